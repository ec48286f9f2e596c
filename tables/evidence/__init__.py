"""The floor's side of the evidence (docs/evidence.md): the checkpoint made when a gaming day
closes, the day's export, inclusion proofs, system exceptions and the staff access review.

The hashing itself is the database's (the posting function and the evidence triggers); the
encoding, the Merkle tree and the signature are ``ledger.evidence``'s, shared with the verifier.
"""
