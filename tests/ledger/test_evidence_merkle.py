"""The Merkle tree against RFC 6962's recursive definition, and its inclusion proofs."""

from __future__ import annotations

import hashlib

import pytest

from ledger.evidence import merkle


def _rfc6962_root(leaves: list[bytes]) -> bytes:
    """MTH(D[n]) as RFC 6962 §2.1 writes it: split at the largest power of two below n."""
    if not leaves:
        return hashlib.sha256(b"").digest()
    if len(leaves) == 1:
        return hashlib.sha256(b"\x00" + leaves[0]).digest()
    k = 1
    while k * 2 < len(leaves):
        k *= 2
    return hashlib.sha256(b"\x01" + _rfc6962_root(leaves[:k]) + _rfc6962_root(leaves[k:])).digest()


def _leaves(n: int) -> list[bytes]:
    return [hashlib.sha256(str(i).encode()).digest() for i in range(n)]


@pytest.mark.parametrize("size", [0, 1, 2, 3, 4, 5, 7, 8, 9, 16, 17, 33])
def test_the_root_is_rfc_6962s(size: int) -> None:
    assert merkle.root(_leaves(size)) == _rfc6962_root(_leaves(size))


@pytest.mark.parametrize("size", [1, 2, 3, 5, 6, 7, 8, 13, 21])
def test_every_leaf_has_a_proof_to_the_root_and_no_other_leaf_fits_it(size: int) -> None:
    leaves = _leaves(size)
    top = merkle.root(leaves)
    for index, leaf in enumerate(leaves):
        path = merkle.inclusion_proof(leaves, index)
        assert merkle.verify_inclusion(leaf, index, size, path, top)
        assert not merkle.verify_inclusion(hashlib.sha256(b"other").digest(), index, size, path, top)
        if size > 1:
            assert not merkle.verify_inclusion(leaf, (index + 1) % size, size, path, top)
