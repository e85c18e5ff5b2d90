"""The search engine: one question surface over the four retrievers.

Owns intent classification (intent.py), the plan and the run of the chosen modalities under
one deadline (engine.py, modalities.py) and weighted reciprocal rank fusion (fusion.py).

May import: the top-level basics, extract, embed, index and retrievers.
"""
