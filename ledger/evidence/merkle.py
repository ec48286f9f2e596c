"""The Merkle tree of a day's records as RFC 6962 (certificate transparency) defines it.

Leaves are ``SHA-256(0x00 || record hash)``, inner nodes ``SHA-256(0x01 || left || right)``; the
tree splits at the largest power of two below its size, which is the same as pairing each level
from the left and carrying an odd last node up unchanged. The empty tree's root is SHA-256 of
nothing. An inclusion proof is the list of sibling hashes from the leaf up.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

LEAF, NODE = b"\x00", b"\x01"


def leaf_hash(record_hash: bytes) -> bytes:
    return hashlib.sha256(LEAF + record_hash).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(NODE + left + right).digest()


def _next_level(level: Sequence[bytes]) -> list[bytes]:
    paired = [node_hash(level[i], level[i + 1]) for i in range(0, len(level) - 1, 2)]
    if len(level) % 2:
        paired.append(level[-1])
    return paired


def root(record_hashes: Sequence[bytes]) -> bytes:
    if not record_hashes:
        return hashlib.sha256(b"").digest()
    level = [leaf_hash(h) for h in record_hashes]
    while len(level) > 1:
        level = _next_level(level)
    return level[0]


def inclusion_proof(record_hashes: Sequence[bytes], index: int) -> list[bytes]:
    """The siblings on the way from leaf ``index`` to the root."""
    if not 0 <= index < len(record_hashes):
        raise IndexError(index)
    level = [leaf_hash(h) for h in record_hashes]
    path = []
    while len(level) > 1:
        sibling = index ^ 1
        if sibling < len(level):
            path.append(level[sibling])
        level = _next_level(level)
        index //= 2
    return path


def verify_inclusion(
    record_hash: bytes, index: int, size: int, path: Sequence[bytes], expected: bytes
) -> bool:
    """Whether ``path`` leads from the record at ``index`` of a tree of ``size`` leaves to ``expected``."""
    if not 0 <= index < size:
        return False
    node, steps = leaf_hash(record_hash), list(path)
    while size > 1:
        if index % 2:
            if not steps:
                return False
            node = node_hash(steps.pop(0), node)
        elif index + 1 < size:
            if not steps:
                return False
            node = node_hash(node, steps.pop(0))
        index, size = index // 2, (size + 1) // 2
    return not steps and node == expected
