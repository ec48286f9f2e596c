"""What a plug-in may see of a simulated night (``Floor``), and where it may change it (``NightHooks``).

``tables.simulation.night`` drives the night and calls its hooks at fixed points; a plug-in
gets the night as a ``Floor``: its seed and length, its cast and tables, and what a player can
stake. The product's nights plug nothing in: ``NightHooks`` itself changes nothing, so its
night is exactly the clean one. The detection bench's cheats (``bench/cheats/``, not part of
the installed product) are such a plug-in; the night knows nothing of them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from casino.models import Player, User
from tables.models import Round, Table
from tables.slips.models import Slip, SlipKind
from tables.slips.services import sign_slip
from tables.slips.transit import approve_transit_slip, request_transit_slip


class FloorConfig(Protocol):
    @property
    def seed(self) -> int: ...

    @property
    def rounds(self) -> int: ...


class Floor(Protocol):
    @property
    def config(self) -> FloorConfig: ...

    @property
    def table_list(self) -> list[Table]:
        """Every table of the night in play order; a plug-in may append tables of its own."""
        ...

    @property
    def pit(self) -> list[User]: ...

    @property
    def dealers(self) -> list[User]: ...

    @property
    def players(self) -> list[Player]: ...

    @property
    def cashier(self) -> User: ...

    def available(self, player: Player) -> int:
        """What ``player`` can stake now: their wallet less what reserves hold."""
        ...


class NightHooks:
    """The points where a plug-in may change a night; each default leaves the night as it is.

    The night calls ``attach`` once, when it is made, then the others as it goes. One hooks
    object serves one night.
    """

    def attach(self, night: Floor) -> None:
        """The night this plugs into, before anything is dealt."""

    def extra_tables(self) -> int:
        """Tables the plug-in will add (``add_tables``): the night hires a dealer for each."""
        return 0

    def add_tables(self) -> None:
        """Append tables of the plug-in's own to ``night.table_list``, after the night's."""

    def plan(self) -> None:
        """Everyone is cast and every table made; nothing is open yet."""

    def cage_start(self) -> None:
        """Every player has bought in once; the tables open next."""

    def seat_for(self, table: Table, number: int) -> None:
        """Before ``table`` seats its players in pass ``number``."""

    def seats(self, table: Table) -> tuple[int, int] | None:
        """The fewest and most players ``table`` seats, or None for its game's own."""
        return None

    def manages(self, player_id: int) -> bool:
        """Whether the plug-in seats this player itself (the night then leaves them be)."""
        return False

    def round_seed(self, table: Table, number: int, seed: str) -> str:
        """The seed ``table``'s round ``number`` is dealt from."""
        return seed

    def shoe_for(self, table: Table) -> str:
        """The shoe ``table`` deals from: electronic, or manual (``deal_cards`` keys the cards)."""
        return "electronic"

    def steer(self, table: Table, round_: Round, action: dict[str, Any]) -> dict[str, Any]:
        """The action played instead of ``action``, the one the bots chose."""
        return action

    def faro_actions(self, table: Table, public: Mapping[str, Any]) -> list[dict[str, Any]]:
        """More actions for a Faro turn, after the bots' bets."""
        return []

    def deal_cards(self, public: Mapping[str, Any], action: dict[str, Any]) -> dict[str, Any]:
        """The dealing action with its cards, on a manual shoe."""
        return action

    def pinned_dealers(self) -> set[int]:
        """Dealers kept at their tables all night: no table takes them at a rotation."""
        return set()

    def is_pinned(self, table: Table) -> bool:
        """Whether ``table`` keeps its dealer all night."""
        return False

    def after_round(self, table: Table) -> None:
        """``table`` has dealt its round of the pass and had its tray checked."""

    def before_close(self, table: Table) -> None:
        """``table`` is about to count its tray and close."""

    def closing_count(self, table: Table, count: int) -> int:
        """The count ``table`` closes on."""
        return count

    def cash_out(self, player: Player) -> bool:
        """True when the plug-in settles ``player``'s chips itself at the end of the night."""
        return False


def signed_tray_change(
    *, table: Table, kind: str, amount: int, dealer: User, pit_boss: User, cashier: User
) -> Slip:
    """A fill or credit as the night makes them, every signature at once: the dealer asks; a fill
    is issued by the cashier and received by the dealer and the pit boss, a credit released by
    the pit boss and received by the cashier. Nobody types a password in a simulated night: the
    signatures say so."""
    slip = request_transit_slip(actor=dealer, table_id=table.pk, kind=kind, amount=amount)
    fill = kind == SlipKind.FILL
    approve_transit_slip(
        actor=cashier if fill else pit_boss,
        table_id=table.pk,
        slip_id=slip.pk,
        kind=kind,
        password_confirmed=False,
    )
    for signer in (dealer, pit_boss) if fill else (cashier,):
        slip = sign_slip(actor=signer, slip_id=slip.pk, password_confirmed=False)
    return slip
