"""The newest committed engine state of each round this process has seen, least recently used out.

A round's state is the fold of its actions (tables.round_state); folding a long Faro deal
again on every tap would cost a replay per action. Engine states are immutable, so a state
kept here at a round's version is that version's state for as long as the round is the same
round: a restored or reset database can hand an old id to a new round, so every entry also
keeps the round's start time and commitment and is served only to the round that has them.

``ROUND_STATE_CACHE_SIZE`` bounds it (0 turns it off: every read folds from the start).
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, NamedTuple

from django.conf import settings
from django.db import transaction

from tables.models import Round

DEFAULT_SIZE = 512

RoundIdentity = tuple[str, str]


def identity_of(round_: Round) -> RoundIdentity:
    """What tells two rounds with the same id apart: their start time and commitment."""
    return (round_.started_at.isoformat(), round_.commitment)


class Cached(NamedTuple):
    version: int
    state: Any


@dataclass(frozen=True, slots=True)
class _Entry:
    identity: RoundIdentity
    version: int
    state: Any


class StateCache:
    """Per round id, one (version, state); ``size`` None reads ``ROUND_STATE_CACHE_SIZE``."""

    def __init__(self, size: int | None = None) -> None:
        self._size = size
        self._entries: OrderedDict[int, _Entry] = OrderedDict()

    @property
    def size(self) -> int:
        if self._size is not None:
            return self._size
        return int(getattr(settings, "ROUND_STATE_CACHE_SIZE", DEFAULT_SIZE))

    def get(self, round_: Round) -> Cached | None:
        """The state kept of this round at ``round_.version`` or earlier (None: nothing usable)."""
        entry = self._entries.get(round_.pk)
        if entry is None or self.size <= 0:
            return None
        if entry.identity != identity_of(round_) or entry.version > round_.version:
            return None
        self._entries.move_to_end(round_.pk)
        return Cached(entry.version, entry.state)

    def version_of(self, round_id: int) -> int:
        """The version kept of a round not yet read (0: none); ``get`` still checks it is the same round."""
        entry = self._entries.get(round_id) if self.size > 0 else None
        return entry.version if entry is not None else 0

    def put(self, round_: Round, state: Any) -> None:
        """Keep ``state`` as the round's at ``round_.version`` once the transaction commits (at once
        outside one).

        A state kept by an action that then rolled back would be served later for the same
        (round, version) after another worker committed a different action at that version.
        """
        round_id, entry = round_.pk, _Entry(identity_of(round_), round_.version, state)

        def store() -> None:
            size = self.size
            if size <= 0:
                return
            known = self._entries.get(round_id)
            if known is not None and known.identity == entry.identity and known.version > entry.version:
                return  # a newer state is already here
            self._entries[round_id] = entry
            self._entries.move_to_end(round_id)
            while len(self._entries) > size:
                self._entries.popitem(last=False)

        transaction.on_commit(store)

    def forget(self, round_id: int) -> None:
        self._entries.pop(round_id, None)

    def clear(self) -> None:
        """Forget every round (tests do, as a process on a new database would start)."""
        self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)


STATE_CACHE = StateCache()
