"""Accountable slips: every count of a tray and every chip that enters or leaves a table is one
numbered form that named people sign (N.J.A.C. 13:69D-1.20 to 1.23; Nevada MICS table games).

A slip's number is ``<letter>-<year>-<6 digits>``, sequential per kind and calendar year with no
gap: it comes from a counter row taken in the slip's own transaction (``SlipCounter``), so a
rolled-back slip gives its number back. Triggers (migration tables/0014) keep what a slip says
from changing once written and keep slips, signatures and counters from being deleted; only
its progress (status, what it still needs, its transfers, a void) moves on.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models
from django.db.models import F, Q

from casino.money import format_dollars


class SlipKind(models.TextChoices):
    OPENER = "opener"
    CLOSER = "closer"
    COUNT = "count"
    FILL = "fill"
    CREDIT = "credit"
    DROP = "drop"
    MARKER = "marker"


LETTER_OF_KIND: dict[str, str] = {
    SlipKind.OPENER: "O",
    SlipKind.CLOSER: "X",
    SlipKind.COUNT: "S",
    SlipKind.FILL: "F",
    SlipKind.CREDIT: "C",
    SlipKind.DROP: "D",
    SlipKind.MARKER: "M",
}


class SlipStatus(models.TextChoices):
    PENDING = "pending", "waiting for a signature"
    ISSUED = "issued", "in transit"
    RECEIVED = "received", "received"
    FINAL = "final", "signed"
    VOID = "void", "void"


class CountReason(models.TextChoices):
    SHIFT_CHANGE = "shift_change", "shift change"
    SPOT_CHECK = "spot_check", "spot check"


class SlipCounter(models.Model):
    """The last number issued in one series (a kind in a calendar year). Its row is the lock that
    makes numbers consecutive: a sequence would leave a gap on every rollback."""

    kind = models.CharField(max_length=8, choices=SlipKind.choices)
    year = models.PositiveSmallIntegerField()
    last = models.PositiveIntegerField()

    class Meta:
        app_label = "tables"
        constraints = [
            models.UniqueConstraint(fields=["kind", "year"], name="tables_slipcounter_one_per_series"),
            models.CheckConstraint(condition=Q(last__gte=1), name="tables_slipcounter_last_positive"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.year}: {self.last}"


class Slip(models.Model):
    kind = models.CharField(max_length=8, choices=SlipKind.choices)
    year = models.PositiveSmallIntegerField(help_text="the calendar year of its series")
    serial = models.PositiveIntegerField(help_text="its place in the series, from 1")
    number = models.CharField(max_length=16, unique=True, help_text="e.g. F-2026-000042")
    status = models.CharField(max_length=8, choices=SlipStatus.choices, default=SlipStatus.PENDING)
    table = models.ForeignKey(
        "tables.Table", null=True, blank=True, on_delete=models.PROTECT, related_name="slips"
    )
    session = models.ForeignKey(
        "tables.TableSession", null=True, blank=True, on_delete=models.PROTECT, related_name="slips"
    )
    gaming_day = models.DateField(db_index=True)
    reason = models.CharField(
        max_length=300, blank=True, help_text="why a count was taken, or a request's note"
    )
    count = models.JSONField(null=True, blank=True, help_text='pieces by denomination: {"2500": 40}')
    amount = models.BigIntegerField(help_text="cents")
    expected = models.BigIntegerField(null=True, blank=True, help_text="the ledger's tray when counted")
    variance = models.BigIntegerField(null=True, blank=True, help_text="amount − expected")
    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    needs = models.JSONField(default=list, blank=True, help_text="the roles whose signature it waits for")
    step = models.PositiveSmallIntegerField(default=0, help_text="which step of its kind's flow it is at")
    at = models.DateTimeField(auto_now_add=True, db_index=True)
    issue_transfer = models.OneToOneField(
        "ledger.Transfer",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        help_text="the chips leaving where they were (into transit, or an adjustment to the count)",
    )
    receipt_transfer = models.OneToOneField(
        "ledger.Transfer",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        help_text="the chips reaching where they go",
    )
    return_transfer = models.OneToOneField(
        "ledger.Transfer",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        help_text="chips in transit sent back by a void",
    )
    void_reason = models.CharField(max_length=300, blank=True)
    voided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    voided_at = models.DateTimeField(null=True, blank=True)
    drop_box = models.ForeignKey(
        "tables.DropBox",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="slips",
        help_text="the drop box a marker went into (the count lists them); set once, never moved",
    )

    class Meta:
        app_label = "tables"
        ordering = ["-id"]
        constraints = [
            models.UniqueConstraint(fields=["kind", "year", "serial"], name="tables_slip_one_number"),
            models.CheckConstraint(condition=Q(serial__gte=1), name="tables_slip_serial_positive"),
            models.CheckConstraint(condition=Q(amount__gte=0), name="tables_slip_amount_not_negative"),
            models.CheckConstraint(
                condition=Q(expected__isnull=True, variance__isnull=True)
                | Q(expected__isnull=False, variance=F("amount") - F("expected")),
                name="tables_slip_variance_is_count_less_expected",
            ),
            models.CheckConstraint(
                condition=Q(status="void", voided_by__isnull=False, voided_at__isnull=False)
                | (~Q(status="void") & Q(voided_by__isnull=True, voided_at__isnull=True)),
                name="tables_slip_void_has_who_and_when",
            ),
        ]
        indexes = [models.Index(fields=["kind", "status"], name="tables_slip_kind_status")]

    def __str__(self) -> str:
        return f"{self.number} ({self.kind}, {format_dollars(self.amount)})"

    @property
    def is_final(self) -> bool:
        return not self.needs and self.status != SlipStatus.VOID

    def void_summary(self) -> dict[str, Any] | None:
        if self.status != SlipStatus.VOID:
            return None
        return {"reason": self.void_reason, "by": self.voided_by_id, "at": self.voided_at}


class SlipSignature(models.Model):
    """One person's electronic signature.

    ``password_confirmed`` says how the signer was known: they typed their own password again
    (every ``POST /slips/{id}/sign``, and an approval that sent one), or only by the session they
    were signed in with (an approval sent without a password, as clients of the one-step fill
    approval still send it). The slip shows which, so an auditor can weigh each signature.
    """

    slip = models.ForeignKey(Slip, on_delete=models.PROTECT, related_name="signatures")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    role = models.CharField(max_length=12)
    at = models.DateTimeField(auto_now_add=True)
    note = models.CharField(max_length=300, blank=True)
    password_confirmed = models.BooleanField(
        default=True, help_text="the signer typed their own password again to sign"
    )

    class Meta:
        app_label = "tables"
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(fields=["slip", "user"], name="tables_slipsignature_once_per_person"),
        ]

    def __str__(self) -> str:
        return f"{self.role} {self.user_id} on slip {self.slip_id}"
