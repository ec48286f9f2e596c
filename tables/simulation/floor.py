"""The part of a simulated night that the cheat injector may see and use.

``tables.simulation.night`` drives the night and calls the injector's hooks; the injector
gets the night as a ``Floor``: its seed and length, its cast and tables, and what a player can
stake. So the injector depends on this narrow interface, not on the night or its internals,
and the night is the only one of the two that imports the other.
"""

from __future__ import annotations

from typing import Protocol

from casino.models import Player, User
from tables import services
from tables.models import Table, TrayRequest


class FloorConfig(Protocol):
    @property
    def seed(self) -> int: ...

    @property
    def cast_seed(self) -> int | None: ...

    @property
    def rounds(self) -> int: ...


class Floor(Protocol):
    @property
    def config(self) -> FloorConfig: ...

    @property
    def table_list(self) -> list[Table]:
        """Every table of the night in play order; the injector appends the tables it adds."""
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


def signed_tray_change(*, table: Table, kind: str, amount: int, dealer: User, approver: User) -> TrayRequest:
    """A fill or credit as the night makes them: the dealer asks and a pit boss signs at once."""
    request = services.request_tray_change(actor=dealer, table_id=table.pk, kind=kind, amount=amount)
    return services.approve_tray_request(actor=approver, table_id=table.pk, request_id=request.pk, kind=kind)
