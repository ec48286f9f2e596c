"""Evidence anyone can verify: the canonical bytes of each record, hash chains, the Merkle tree of
a day and its signed checkpoint (docs/evidence.md).

Pure Python on purpose: the standard library and ``cryptography`` only, never Django or a
database, so ``python -m ledger.verify`` runs where neither is (an import contract says so).
"""
