"""A player's credit line, the markers drawn on it and their redemptions.

What a player owes is the ledger's: each credit line has its own markers-receivable account
(purpose ``markers``), whose balance is the sum of the player's markers still outstanding. A
marker's own ``outstanding`` moves in the same transaction as that account, so the two always
agree (the audit checks it). The marker itself is a numbered slip (kind ``marker``, M-<year>-…)
that the table's dealer signs; these rows say whose it is and what is left to pay.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import F, Q

from casino.money import format_dollars


class CreditLine(models.Model):
    """How much a player may draw in markers, set by an admin after the cage's credit check.

    ``set_by`` is kept because the person who set a line never issues a marker on it
    (25 CFR 543.15).
    """

    player = models.OneToOneField("casino.Player", on_delete=models.PROTECT, related_name="credit_line")
    limit = models.BigIntegerField(help_text="cents")
    receivable = models.OneToOneField(
        "ledger.Account",
        on_delete=models.PROTECT,
        related_name="+",
        help_text="the player's markers-receivable account: its balance is what they owe",
    )
    set_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    set_at = models.DateTimeField()

    class Meta:
        app_label = "tables"
        constraints = [
            models.CheckConstraint(condition=Q(limit__gte=0), name="tables_creditline_limit_not_negative"),
        ]

    def __str__(self) -> str:
        return f"credit line of player {self.player_id}: {format_dollars(self.limit)}"


class Marker(models.Model):
    """One marker: the slip the player signed for chips on credit, and what is left to pay."""

    slip = models.OneToOneField("tables.Slip", on_delete=models.PROTECT, related_name="marker")
    credit_line = models.ForeignKey(CreditLine, on_delete=models.PROTECT, related_name="markers")
    player = models.ForeignKey("casino.Player", on_delete=models.PROTECT, related_name="+")
    amount = models.BigIntegerField(help_text="cents, as issued")
    outstanding = models.BigIntegerField(help_text="cents still owed on this marker")
    issued_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    transfer = models.OneToOneField(
        "ledger.Transfer",
        on_delete=models.PROTECT,
        related_name="+",
        help_text="chips from the tray to the player, and the receivable",
    )
    at = models.DateTimeField(db_index=True)

    class Meta:
        app_label = "tables"
        ordering = ["-id"]
        constraints = [
            models.CheckConstraint(condition=Q(amount__gt=0), name="tables_marker_amount_positive"),
            models.CheckConstraint(
                condition=Q(outstanding__gte=0) & Q(outstanding__lte=F("amount")),
                name="tables_marker_outstanding_within_amount",
            ),
        ]
        indexes = [models.Index(fields=["player", "outstanding"], name="tables_marker_player_owed")]

    def __str__(self) -> str:
        return f"marker {self.slip_id}: {format_dollars(self.outstanding)} of {format_dollars(self.amount)}"


class RedemptionMethod(models.TextChoices):
    CASH = "cash", "cash"
    CHIPS = "chips", "chips"


class MarkerRedemption(models.Model):
    """A payment against a marker at the cage, in cash or in chips; a marker may be paid in parts."""

    marker = models.ForeignKey(Marker, on_delete=models.PROTECT, related_name="redemptions")
    amount = models.BigIntegerField(help_text="cents")
    method = models.CharField(max_length=5, choices=RedemptionMethod.choices)
    transfer = models.OneToOneField("ledger.Transfer", on_delete=models.PROTECT, related_name="+")
    by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    at = models.DateTimeField(db_index=True)

    class Meta:
        app_label = "tables"
        ordering = ["id"]
        constraints = [
            models.CheckConstraint(condition=Q(amount__gt=0), name="tables_markerredemption_amount_positive"),
        ]

    def __str__(self) -> str:
        return f"{format_dollars(self.amount)} in {self.method} on marker {self.marker_id}"
