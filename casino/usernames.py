"""What a username may be: Django's own rules, and no lookalike of someone else's name.

A dealer reads names off a screen, so ``аlice`` (Cyrillic ``а``) must not pass for ``alice``.
The homoglyph data is Unicode's confusables list as the ``confusable-homoglyphs`` package
ships it (the library django-registration uses for the same check); this module only folds
a name into a *skeleton*, so two names that look alike have the same skeleton.
Pure functions: the service asks the database whether a skeleton is taken.
"""

from __future__ import annotations

import functools
import unicodedata

from confusable_homoglyphs import confusables


def username_skeleton(username: str) -> str:
    """NFKC, each non-ASCII character that looks like an ASCII one becomes it, then casefold.

    ``ＡLICE``, ``Alice``, ``аlice``, ``АLICE`` and ``αlice`` all give ``alice``. Lookalikes
    are mapped before casefolding, because looks depend on case (Cyrillic ``В`` is a ``B``,
    its lower case ``в`` is no ``b``). ASCII is left as it is (``l`` and ``1`` stay apart), so
    this adds lookalikes across scripts to the case-insensitive match Django's user creation
    form already makes.
    """
    normal = unicodedata.normalize("NFKC", username)
    return "".join(_ascii_lookalike(char) for char in normal).casefold()


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
                    return candidate.casefold()
                if candidate not in seen:
                    seen.add(candidate)
                    following.append(candidate)
        frontier = following
    return char
