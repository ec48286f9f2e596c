"""A table's drop boxes: the locked box under the table that takes the cash players buy chips
with (and the markers the pit issues), until the count team removes and counts it
(N.J.A.C. 13:69D-1.17; 25 CFR 542.31).

A table has one box ``at_table`` at a time (a database constraint); removing it puts the next
one there at once. ``recorded`` is what the table put in (each cash buy-in, in the same
transaction as its ledger transfer); ``counted`` is what the count found, and the drop slip
(kind ``drop``) carries both, so ``variance = counted − recorded``.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import F, Q

from casino.money import format_dollars


class DropBoxStatus(models.TextChoices):
    AT_TABLE = "at_table", "at the table"
    REMOVED = "removed", "waiting for the count"
    COUNTED = "counted", "counted"


def drop_box_number(table_id: int, sequence: int) -> str:
    """``BOX-12-0007``: the table's seventh box, as the seal log and the count sheet write it."""
    return f"BOX-{table_id}-{sequence:04d}"


class DropBox(models.Model):
    table = models.ForeignKey("tables.Table", on_delete=models.PROTECT, related_name="drop_boxes")
    sequence = models.PositiveIntegerField(help_text="the table's boxes in order, from 1")
    number = models.CharField(max_length=32, unique=True, help_text="e.g. BOX-12-0007")
    gaming_day = models.DateField(db_index=True, help_text="the gaming day it went to the table")
    status = models.CharField(max_length=10, choices=DropBoxStatus.choices, default=DropBoxStatus.AT_TABLE)
    recorded = models.BigIntegerField(default=0, help_text="cents of cash recorded into it at the table")
    counted = models.BigIntegerField(null=True, blank=True, help_text="cents the count found")
    seal = models.CharField(max_length=40, blank=True, help_text="the seal number it was removed under")
    placed_at = models.DateTimeField(auto_now_add=True)
    removed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    removed_at = models.DateTimeField(null=True, blank=True)
    counted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    counted_at = models.DateTimeField(null=True, blank=True)
    slip = models.OneToOneField(
        "tables.Slip",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="counted_box",
        help_text="the drop slip its count wrote",
    )
    count_transfer = models.OneToOneField(
        "ledger.Transfer",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        help_text="at the count: its cash from the box to the count room, a variance to over/short",
    )

    class Meta:
        app_label = "tables"
        ordering = ["-id"]
        constraints = [
            models.UniqueConstraint(fields=["table", "sequence"], name="tables_dropbox_one_per_place"),
            models.UniqueConstraint(
                fields=["table"],
                condition=Q(status="at_table"),
                name="tables_dropbox_one_at_table",
            ),
            models.CheckConstraint(condition=Q(sequence__gte=1), name="tables_dropbox_sequence_positive"),
            models.CheckConstraint(condition=Q(recorded__gte=0), name="tables_dropbox_recorded_not_negative"),
            models.CheckConstraint(
                condition=Q(counted__isnull=True) | Q(counted__gte=0),
                name="tables_dropbox_counted_not_negative",
            ),
            models.CheckConstraint(
                condition=Q(status="at_table", removed_at__isnull=True, counted__isnull=True)
                | (Q(status="removed", removed_at__isnull=False, counted__isnull=True) & ~Q(seal=""))
                | (
                    Q(
                        status="counted",
                        removed_at__isnull=False,
                        counted__isnull=False,
                        counted_at__isnull=False,
                        slip__isnull=False,
                    )
                    & ~Q(seal="")
                ),
                name="tables_dropbox_status_has_its_facts",
            ),
            models.CheckConstraint(
                condition=Q(removed_at__isnull=True) | Q(removed_at__gte=F("placed_at")),
                name="tables_dropbox_removed_after_placed",
            ),
        ]
        indexes = [models.Index(fields=["status", "gaming_day"], name="tables_dropbox_status_day")]

    def __str__(self) -> str:
        return f"{self.number} ({self.get_status_display()}, {format_dollars(self.recorded)})"

    @property
    def variance(self) -> int | None:
        """counted − recorded, once counted."""
        return None if self.counted is None else self.counted - self.recorded
