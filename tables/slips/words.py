"""Amounts written out in words, as a slip prints them beside the figures.

A slip's amount is written twice, in words and in figures, like a cheque: a figure altered on
paper no longer agrees with the words ("One thousand two hundred fifty dollars and 50 cents —
$1,250.50"). The dollars are words; the cents stay figures, as a cheque writes them.
"""

from __future__ import annotations

from casino.money import format_dollars

ONES = (
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
    "nineteen",
)  # fmt: skip
TENS = ("", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
# Each group of three digits, from the right, and the word that names it.
SCALES = ("", "thousand", "million", "billion", "trillion", "quadrillion")


def _below_a_thousand(number: int) -> str:
    """1 to 999: "seven", "forty-two", "three hundred five"."""
    hundreds, rest = divmod(number, 100)
    words = [f"{ONES[hundreds]} hundred"] if hundreds else []
    if rest >= 20:
        tens, ones = divmod(rest, 10)
        words.append(f"{TENS[tens]}-{ONES[ones]}" if ones else TENS[tens])
    elif rest:
        words.append(ONES[rest])
    return " ".join(words)


def number_in_words(number: int) -> str:
    """A whole number from 0 in lower-case words: 1250 → "one thousand two hundred fifty"."""
    if number < 0:
        raise ValueError("only whole numbers from 0 are written out")
    if number == 0:
        return ONES[0]
    groups: list[str] = []
    for scale in SCALES:
        number, group = divmod(number, 1000)
        if group:
            groups.append(f"{_below_a_thousand(group)} {scale}".rstrip())
        if not number:
            return " ".join(reversed(groups))
    raise ValueError("the number is too large to write out")


def amount_in_words(cents: int) -> str:
    """Cents as a slip writes them in words: 125050 → "One thousand two hundred fifty dollars
    and 50 cents"; 100 → "One dollar"; 5 → "Zero dollars and 5 cents"."""
    whole, rest = divmod(abs(cents), 100)
    text = f"{number_in_words(whole)} dollar{'' if whole == 1 else 's'}"
    if rest:
        text += f" and {rest} cent{'' if rest == 1 else 's'}"
    text = text[0].upper() + text[1:]
    return f"Minus {text[0].lower()}{text[1:]}" if cents < 0 else text


def amount_in_words_and_figures(cents: int) -> str:
    """ "One thousand two hundred fifty dollars and 50 cents — $1,250.50"."""
    return f"{amount_in_words(cents)} — {format_dollars(cents)}"
