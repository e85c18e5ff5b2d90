"""Embedding backends: code and questions to packed sign bits.

Owns the Backend protocol and its settings (base.py), the choice of backend (backend.py),
the embedded SimHash of code subtokens (hashed.py), the opt-in Voyage client (voyage.py) and
the vectors file with its Hamming top-k (vectors.py).

May import: the top-level basics and extract.
"""
