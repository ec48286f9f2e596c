"""What a username may be: Django's own rules, and no lookalike of someone else's name.

A dealer or a cashier reads names off a screen, so ``аlice`` (Cyrillic ``а``) must not pass
for ``alice``, nor ``pIayer.1`` (capital i), ``player.l`` or ``p1ayer.1`` for ``player.1``.
The homoglyph data across scripts is Unicode's confusables list as the
``confusable-homoglyphs`` package ships it (the library django-registration uses for the same
check); within ASCII the few Latin lookalikes are folded as Unicode's skeletons fold them
(``LATIN_LOOKALIKES``). This module only folds a name into a *skeleton*, so two names that
look alike have the same skeleton. Pure functions: the service asks the database whether a
skeleton is taken; a change here needs a migration that refills the stored skeletons.
"""

from __future__ import annotations

import functools
import unicodedata

from confusable_homoglyphs import confusables

# Letters and digits a reader mistakes for one another in most screen fonts, each folded to one
# of its kind as in Unicode's confusables (UTS #39): capital I, small l and the digit 1; the
# digit 0 and the letter O (which casefolds to o); "rn", read as "m", after casefolding.
LATIN_LOOKALIKES = str.maketrans({"I": "l", "1": "l", "0": "o"})
LATIN_PAIRS = (("rn", "m"),)


def username_skeleton(username: str) -> str:
    """NFKC, each non-ASCII character that looks like an ASCII one becomes it, the Latin
    lookalikes become one of their kind, then casefold.

    ``ＡLICE``, ``Alice``, ``аlice``, ``АLICE`` and ``αlice`` all give ``alice``;
    ``player.1``, ``pIayer.1``, ``player.l`` and ``p1ayer.I`` all give ``player.l``; ``rnike``
    gives ``mike``. Lookalikes are mapped before casefolding, because looks depend on case
    (Cyrillic ``В`` is a ``B``, its lower case ``в`` is no ``b``; capital ``I`` is an ``l``,
    small ``i`` is not). This adds lookalikes to the case-insensitive match Django's user
    creation form already makes.
    """
    normal = unicodedata.normalize("NFKC", username)
    ascii_like = "".join(_ascii_lookalike(char) for char in normal)
    skeleton = ascii_like.translate(LATIN_LOOKALIKES).casefold()
    for pair, single in LATIN_PAIRS:
        skeleton = skeleton.replace(pair, single)
    return skeleton


def is_mixed_script_lookalike(username: str) -> bool:
    """Letters of two scripts, one of them looking like the other's (``pаypal``): never honest."""
    return bool(confusables.is_dangerous(username))


@functools.cache
def _ascii_lookalike(char: str) -> str:
    """The ASCII text ``char`` can pass for, one or two steps through the homoglyph table.

    Two steps, because the table links some Cyrillic letters to ASCII only through a Latin
    look-alike (``к`` → ``ĸ`` → …); more would drift to shapes that no longer look alike.
    """
    if char.isascii():
        return char
    seen = {char}
    frontier = [char]
    for _ in range(2):
        following = []
        for glyph in frontier:
            for entry in confusables.confusables_data.get(glyph, ()):
                candidate = entry["c"]
                if candidate.isascii() and candidate.isalnum():
                    return candidate
                if candidate not in seen:
                    seen.add(candidate)
                    following.append(candidate)
        frontier = following
    return char
