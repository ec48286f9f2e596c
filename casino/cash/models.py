"""Cash transactions, the per-player day totals that serialise them, identification, refusals.

A table is named and numbered here (``where``, ``table_id``), never a foreign key: the casino
domain sits below the tables app (pyproject's import contracts).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q


class CashDirection(models.TextChoices):
    IN = "in", "Cash in"
    OUT = "out", "Cash out"


class CashKind(models.TextChoices):
    CAGE_BUY_IN = "cage_buy_in", "Buy-in at the cage"
    TABLE_BUY_IN = "table_buy_in", "Cash buy-in at a table"
    MARKER_REDEMPTION = "marker_redemption", "Marker redeemed in cash"
    CAGE_CASH_OUT = "cage_cash_out", "Cash-out at the cage"


# Each kind moves cash one way only; the database holds every row to it.
KIND_DIRECTION = {
    CashKind.CAGE_BUY_IN: CashDirection.IN,
    CashKind.TABLE_BUY_IN: CashDirection.IN,
    CashKind.MARKER_REDEMPTION: CashDirection.IN,
    CashKind.CAGE_CASH_OUT: CashDirection.OUT,
}


class CashDay(models.Model):
    """One player's cash in and cash out on one gaming day, across the cage and every table.

    Its row is the lock every cash transaction of the player that day takes before it reads the
    totals (``casino.cash.services.record_cash``), so two cashiers at once cannot both slip under
    the identification line.
    """

    player = models.ForeignKey("casino.Player", on_delete=models.PROTECT, related_name="+")
    gaming_day = models.DateField()
    cash_in = models.BigIntegerField(default=0)
    cash_out = models.BigIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["player", "gaming_day"], name="cash_day_one_per_player_day"),
            models.CheckConstraint(
                condition=Q(cash_in__gte=0, cash_out__gte=0), name="cash_day_not_negative"
            ),
        ]
        indexes = [models.Index(fields=["gaming_day"], name="cash_day_by_day")]

    def __str__(self) -> str:
        return f"cash of player {self.player_id} on {self.gaming_day}"


class CashTransaction(models.Model):
    """One cash transaction with a player: a line of the day's cash in or out (and maybe the MTL)."""

    player = models.ForeignKey("casino.Player", on_delete=models.PROTECT, related_name="+")
    gaming_day = models.DateField()
    direction = models.CharField(max_length=3, choices=CashDirection.choices)
    kind = models.CharField(max_length=20, choices=CashKind.choices)
    amount = models.BigIntegerField()
    where = models.CharField(max_length=120, help_text='"Cage" or the table\'s name, in words')
    table_id = models.BigIntegerField(null=True, blank=True)
    by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    at = models.DateTimeField()
    transfer = models.OneToOneField(
        "ledger.Transfer", null=True, blank=True, on_delete=models.PROTECT, related_name="cash_transaction"
    )
    mtl = models.BooleanField(default=False, help_text="A line of the multiple-transaction log")

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(amount__gt=0), name="cash_amount_positive"),
            models.CheckConstraint(
                condition=Q(
                    direction=CashDirection.IN, kind__in=["cage_buy_in", "table_buy_in", "marker_redemption"]
                )
                | Q(direction=CashDirection.OUT, kind="cage_cash_out"),
                name="cash_kind_direction",
            ),
        ]
        indexes = [
            models.Index(fields=["player", "gaming_day"], name="cash_by_player_day"),
            models.Index(fields=["gaming_day", "at"], name="cash_by_day"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} of {self.amount} for player {self.player_id}"


class IdentificationKind(models.TextChoices):
    DRIVERS_LICENSE = "drivers_license", "Driver's licence"
    PASSPORT = "passport", "Passport"
    STATE_ID = "state_id", "State ID card"
    MILITARY_ID = "military_id", "Military ID"
    ALIEN_REGISTRATION = "alien_registration", "Alien registration card"
    OTHER = "other", "Other government ID"


class Identification(models.Model):
    """A player's identification as the cage examined it (FinCEN 112, part I). The newest is on file."""

    player = models.ForeignKey("casino.Player", on_delete=models.PROTECT, related_name="+")
    kind = models.CharField(max_length=20, choices=IdentificationKind.choices)
    number = models.CharField(max_length=60)
    issued_by = models.CharField(max_length=80, blank=True, help_text="Issuing state or country")
    name = models.CharField(max_length=150)
    birth_date = models.DateField()
    address = models.CharField(max_length=300)
    recorded_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=~Q(number="") & ~Q(name="") & ~Q(address=""), name="identification_complete"
            ),
        ]
        indexes = [models.Index(fields=["player", "-at"], name="identification_newest")]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} of player {self.player_id}"


class CashRefusal(models.Model):
    """A cash transaction refused for want of identification. The transaction rolled back; this row
    is written after it, in a transaction of its own, so the audit can list it."""

    player = models.ForeignKey("casino.Player", on_delete=models.PROTECT, related_name="+")
    gaming_day = models.DateField()
    direction = models.CharField(max_length=3, choices=CashDirection.choices)
    kind = models.CharField(max_length=20, choices=CashKind.choices)
    amount = models.BigIntegerField()
    day_total = models.BigIntegerField(help_text="The direction's day total before the refused transaction")
    where = models.CharField(max_length=120)
    table_id = models.BigIntegerField(null=True, blank=True)
    by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    at = models.DateTimeField()

    class Meta:
        indexes = [models.Index(fields=["gaming_day", "at"], name="cash_refusal_by_day")]

    def __str__(self) -> str:
        return f"refused {self.kind} of {self.amount} for player {self.player_id}"
