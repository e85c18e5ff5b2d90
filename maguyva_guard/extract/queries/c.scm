; C symbols and references: everything is in _cfamily.scm.
; inherits: _cfamily
