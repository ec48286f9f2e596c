"""Chain heads, what each checkpoint covered, and the signed checkpoints."""

from __future__ import annotations

from django.db import models


class EvidenceChain(models.Model):
    """The head of one stream's hash chain (a table, the staff member who acted, a slip series).

    Written only by the database's evidence triggers (migration tables/0015), under the lock the
    write already holds (a table's row for everything at that table), so no chain is global; one
    UPDATE both moves the head and hands back the link before it (``previous``).
    A ledger account's chain keeps its head on the account's own row instead.
    """

    stream = models.CharField(max_length=100, primary_key=True)
    links = models.BigIntegerField(default=0)
    previous = models.BinaryField(null=True, help_text="the hash of the link before the head")
    head = models.BinaryField(null=True)

    class Meta:
        app_label = "tables"

    def __str__(self) -> str:
        return f"{self.stream}: {self.links} links"


class EvidenceMark(models.Model):
    """The last link of a stream that a checkpoint covers: the next checkpoint starts after it."""

    stream = models.CharField(max_length=100, primary_key=True)
    seq = models.BigIntegerField()
    head = models.CharField(max_length=64, help_text="the hash of link #seq, in hex")

    class Meta:
        app_label = "tables"

    def __str__(self) -> str:
        return f"{self.stream} to #{self.seq}"


class Checkpoint(models.Model):
    """A gaming day's signed checkpoint: made once, when the day closes, and never changed.

    ``document`` is the signed JSON as served and exported (ledger.evidence.signing); the
    columns beside it are what the pages and queries read. ``previous`` makes the checkpoints one
    chain: each names the one made before it, and none is named twice.
    """

    gaming_day = models.DateField(unique=True)
    records = models.PositiveIntegerField()
    root = models.CharField(max_length=64)
    previous = models.OneToOneField(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="next"
    )
    previous_root = models.CharField(max_length=64, blank=True)
    key_id = models.CharField(max_length=32)
    at = models.DateTimeField()
    document = models.JSONField()

    class Meta:
        app_label = "tables"
        ordering = ["-gaming_day"]

    def __str__(self) -> str:
        return f"checkpoint of {self.gaming_day}"
