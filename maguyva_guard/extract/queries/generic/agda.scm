; Agda (generic tier): a function's type signature names it.
(function (lhs (function_name (atom (qid) @name)))) @definition.function
(data (data_name) @name) @definition.type
(record (record_name) @name) @definition.type
