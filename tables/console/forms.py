"""The console's and the pit's posted forms, read and checked before any service runs.

Each view binds one of these inside its tap and calls ``checked``: the first error, in the
words the dealer has always seen, becomes the ``ValidationFailed`` that the tap's answer shows
in place. Rules of the games stay with the engines; these forms only read what was typed.
"""

from __future__ import annotations

from typing import Any

from django import forms

from casino.errors import ValidationFailed
from casino.money import parse_dollars
from tables.models import ShoeKind, TrayRequestKind

CHOOSE_AMOUNT = "Choose an amount: tap a chip or type one."
TAP_A_PLACE = "Tap a place on the layout: one or more cards, or even, odd or high."
CALL_AN_ORDER = "Tap the order you call: loser, winner, hock."
CHOOSE_KIND = "Choose a fill or a credit."
CHOOSE_DEALER = "Choose a dealer."
NO_VERSION = "This form has no valid round version; reload the screen."


def checked[FormT: forms.Form](form: FormT) -> FormT:
    """The form, valid; else its first error, in words, as the ``ValidationFailed`` the screens show."""
    if form.is_valid():
        return form
    name, errors = next(iter(form.errors.items()))
    raise ValidationFailed(str(errors[0]), fields={name: str(errors[0])})


class DollarsField(forms.Field):
    """Dollars as typed ('1,234.50') → int cents, refused in ``casino.money.parse_dollars``'s words.

    ``words`` names the amount in those messages ("Enter the opening count in dollars, …").
    Left empty, an optional one is ``None``; a required one is refused like any bad amount.
    """

    def __init__(self, *, words: str = "amount", allow_zero: bool = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.words = words
        self.allow_zero = allow_zero

    def to_python(self, value: Any) -> int | None:
        if not self.required and (value is None or not str(value).strip()):
            return None
        try:
            return parse_dollars(value, field=self.words, allow_zero=self.allow_zero)
        except ValidationFailed as error:
            raise forms.ValidationError(error.message, code="invalid") from error


class PlayerField(forms.IntegerField):
    """A player's id, from a tapped name or a search result: "Choose a player." when there is none."""

    def __init__(self, *, words: str = "a player", **kwargs: Any) -> None:
        message = f"Choose {words}."
        messages = {"required": message, "invalid": message, "min_value": message}
        super().__init__(min_value=1, error_messages=messages, **kwargs)


class StringListField(forms.Field):
    """Every non-empty value posted under one name, in order (the engine judges what they mean)."""

    widget = forms.MultipleHiddenInput

    def to_python(self, value: Any) -> list[str]:
        return [str(item) for item in value or [] if item]


def _text(**kwargs: Any) -> forms.CharField:
    """Free text handed on as sent (the service checks and trims it)."""
    return forms.CharField(required=False, strip=False, **kwargs)


# --------------------------------------------------------------------------- sessions, seats, tray


class OpenTableForm(forms.Form):
    opening_inventory = DollarsField(words="opening count", allow_zero=True)


class CloseTableForm(forms.Form):
    closing_inventory = DollarsField(words="closing count", allow_zero=True)


class PlayerForm(forms.Form):
    player = PlayerField()


class SeatForm(PlayerForm):
    seat = forms.IntegerField(
        required=False, min_value=1, error_messages={"invalid": "Choose a seat by its number."}
    )


class CashBuyInForm(PlayerForm):
    """A player buys chips with cash at the table: a seated player tapped, then an amount. An
    amount button posts ``amount`` (the tap wins); "Sell chips" posts what was typed (``other``)."""

    amount = DollarsField(words="cash buy-in", required=False)
    other = DollarsField(words="cash buy-in", required=False)

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        amount = cleaned.get("amount") or cleaned.get("other")
        if not self.errors and amount is None:
            raise forms.ValidationError("Tap an amount, or type one and tap Sell chips.")
        cleaned["amount"] = amount
        return cleaned


class TrayRequestForm(forms.Form):
    """A fill or a credit; the dealer's screen knows which from its URL, the pit's form posts ``kind``."""

    kind = forms.ChoiceField(
        choices=TrayRequestKind.choices,
        error_messages={"required": CHOOSE_KIND, "invalid_choice": CHOOSE_KIND},
    )
    amount = DollarsField()

    def __init__(self, data: Any, *, kind: str | None = None) -> None:
        if kind is not None:
            data = data.copy()
            data["kind"] = kind
        super().__init__(data)
        self.fields["amount"].words = f"{self.data.get('kind', '')} amount"  # type: ignore[attr-defined]


class LimitsForm(forms.Form):
    min_bet = DollarsField(words="minimum")
    max_bet = DollarsField(words="maximum")


class DealerForm(forms.Form):
    """The dealer a pit boss swaps in at a table, chosen by name (the service checks who they are)."""

    dealer = forms.IntegerField(
        min_value=1,
        max_value=2**63 - 1,  # a bigint, as the API's ids
        error_messages=dict.fromkeys(("required", "invalid", "min_value", "max_value"), CHOOSE_DEALER),
    )


class CageForm(forms.Form):
    """A buy-in or a cash-out at the cage: dollars, for the player chosen on the screen."""

    amount = DollarsField()


class NoteForm(forms.Form):
    """A pit decision's note (a refusal's reason, an alert's resolution)."""

    note = _text()


class CorrectionForm(forms.Form):
    void = _text()
    reason = _text()


# --------------------------------------------------------------------------- rounds


class StartDealForm(forms.Form):
    shoe = forms.ChoiceField(
        choices=ShoeKind.choices,
        required=False,
        error_messages={"invalid_choice": "Choose the electronic or the manual shoe."},
    )

    def clean_shoe(self) -> str:
        return str(self.cleaned_data["shoe"] or ShoeKind.ELECTRONIC)


class VersionForm(forms.Form):
    """The round version the screen was drawn at; without one, the action is not checked for staleness."""

    version = forms.IntegerField(
        required=False, min_value=0, error_messages={"invalid": NO_VERSION, "min_value": NO_VERSION}
    )


class _FaroStake(forms.Form):
    """A player and their chips: a tapped chip (``amount``, cents) or a typed ``custom_amount`` (dollars)."""

    custom_amount = DollarsField(required=False)
    amount = forms.IntegerField(
        required=False, min_value=0, error_messages={"invalid": CHOOSE_AMOUNT, "min_value": CHOOSE_AMOUNT}
    )

    def stake(self) -> int:
        custom = self.cleaned_data["custom_amount"]
        return int(custom if custom is not None else self.cleaned_data["amount"])

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if data.get("custom_amount") is None and data.get("amount") is None and not self.errors:
            raise forms.ValidationError(CHOOSE_AMOUNT, code="required")
        return data


class FaroBetForm(_FaroStake):
    """A Faro bet: who, where (cards, or even/odd/high), how much, coppered or not."""

    player = PlayerField(words="a player (tap their name)")
    ranks = StringListField(required=False)
    target = forms.CharField(required=False)
    coppered = forms.BooleanField(required=False)
    field_order = ["player", "ranks", "target", "custom_amount", "amount", "coppered"]

    def clean_target(self) -> str:
        target = str(self.cleaned_data["target"])
        if not self.cleaned_data.get("ranks") and not target:
            raise forms.ValidationError(TAP_A_PLACE, code="required")
        return target

    def payload(self) -> dict[str, Any]:
        data = self.cleaned_data
        payload: dict[str, Any] = {"type": "bet", "player": data["player"], "amount": self.stake()}
        if data["ranks"]:
            payload["ranks"] = data["ranks"]
        if data["target"]:
            payload["target"] = data["target"]
        if data["coppered"]:
            payload["coppered"] = True
        return payload


class FaroCallTurnForm(_FaroStake):
    """Calling the last turn: one of the possible orders as tapped ("9,J,4": loser, winner, hock),
    who calls, how much. The engine judges whether the order can come."""

    order = forms.CharField(error_messages={"required": CALL_AN_ORDER})
    player = PlayerField(words="who calls the turn")
    field_order = ["order", "player", "custom_amount", "amount"]

    def clean_order(self) -> list[str]:
        ranks = [rank.strip() for rank in str(self.cleaned_data["order"]).split(",")]
        if len(ranks) != 3 or not all(ranks):
            raise forms.ValidationError(CALL_AN_ORDER, code="invalid")
        return ranks

    def payload(self) -> dict[str, Any]:
        data = self.cleaned_data
        return {"type": "call_turn", "player": data["player"], "order": data["order"], "amount": self.stake()}


class FaroRemoveBetForm(forms.Form):
    bet = forms.CharField(required=False)

    def payload(self) -> dict[str, Any]:
        return {"type": "remove_bet", "bet": self.cleaned_data["bet"]}


def keyed_card(slot: int) -> str:
    """The card picker's field for its ``slot``-th card (``card_0`` …; ``console/games/faro.html``)."""
    return f"card_{slot}"


def keys_cards(data: Any) -> bool:
    """Whether a dealing step was posted by the card picker, which always sends its first slot."""
    return keyed_card(0) in data


class ManualCardsForm(forms.Form):
    """A dealing step (soda, turn, last turn): bare from an electronic shoe; from a manual shoe,
    the ``needed`` cards keyed on the card picker, in order (``card_0`` …)."""

    def __init__(self, data: Any, *, kind: str, needed: int | None) -> None:
        super().__init__(data)
        self.kind = kind
        message = f"Pick {needed} card{'s' if needed and needed > 1 else ''} on the card picker, in order."
        for i in range(needed or 0):
            self.fields[keyed_card(i)] = forms.CharField(error_messages={"required": message})

    def payload(self) -> dict[str, Any]:
        cards = [self.cleaned_data[name] for name in self.fields]
        if not cards:
            return {"type": self.kind}
        if self.kind == "soda":
            return {"type": self.kind, "card": cards[0]}
        return {"type": self.kind, "cards": cards}


FARO_FORMS: dict[str, type[FaroBetForm | FaroCallTurnForm | FaroRemoveBetForm]] = {
    "bet": FaroBetForm,
    "call_turn": FaroCallTurnForm,
    "remove_bet": FaroRemoveBetForm,
}


def faro_payload(kind: str, data: Any, *, needed: int | None = None) -> dict[str, Any]:
    """The engine action a Faro form asks for (API.md "Action types": faro); ``needed`` is how
    many cards a manual shoe's dealing step must key now (``None``: none)."""
    form_class = FARO_FORMS.get(kind)
    if form_class is not None:
        return checked(form_class(data)).payload()
    return checked(ManualCardsForm(data, kind=kind, needed=needed)).payload()
