"""The four retrievers, one per modality, behind one protocol (base.py): a request in, a
ranked list of hits out.

Owns text.py (trigram full text, verified matches), structural.py (the symbol table),
graph.py (callers and users, resolved through resolve.py and importpaths.py) and semantic.py
(Hamming search over the vectors), with their helpers (comments, textmatch).

May import: the top-level basics, extract, embed and index.
"""
