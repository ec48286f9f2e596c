"""The double-entry chip ledger: accounts, immutable transfers and entries, and holds.

Every account is a chip holder: ``balance = credits_posted - debits_posted``. A transfer
debits payers and credits payees; its entries sum to zero (a deferred trigger checks it),
and transfers and entries are append-only (triggers refuse UPDATE and DELETE). The cage
is the one place chips enter and leave the floor, so it is allowed to go negative.
"""

from __future__ import annotations

from django.db import models
from django.db.models import F, Q


class AccountKind(models.TextChoices):
    ASSET = "asset"
    LIABILITY = "liability"
    EQUITY = "equity"
    REVENUE = "revenue"
    EXPENSE = "expense"


class AccountPurpose(models.TextChoices):
    WALLET = "wallet", "Player wallet"
    TRAY = "tray", "Table tray"
    LAYOUT = "layout", "Chips on a layout"
    POT = "pot", "Player pot"
    CAGE = "cage", "Cage"
    HOUSE_BANK = "house_bank", "House bank"
    RAKE_REVENUE = "rake_revenue", "Rake revenue"
    HOUSE_WIN = "house_win", "House win"
    SUSPENSE = "suspense", "Suspense"
    TRANSIT = "transit", "Chips in transit"
    DROP = "drop", "Cash in a drop box"
    COUNT_ROOM = "count_room", "Cash in the count room"
    MARKERS = "markers", "Markers receivable"


class Account(models.Model):
    code = models.CharField(max_length=100, unique=True)
    name = models.CharField(max_length=200, blank=True)
    kind = models.CharField(max_length=16, choices=AccountKind.choices)
    purpose = models.CharField(max_length=20, choices=AccountPurpose.choices)
    # Opaque owner reference for the domain (e.g. "player:42"); the ledger never reads it.
    holder = models.CharField(max_length=100, blank=True, db_index=True)
    must_not_go_negative = models.BooleanField(default=True)
    debits_posted = models.BigIntegerField(default=0)
    credits_posted = models.BigIntegerField(default=0)
    balance = models.BigIntegerField(default=0)
    held = models.BigIntegerField(default=0, help_text="Cents reserved by pending holds.")
    version = models.BigIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(must_not_go_negative=False) | Q(balance__gte=0),
                name="ledger_account_balance_not_negative",
            ),
            models.CheckConstraint(
                condition=Q(must_not_go_negative=False) | Q(balance__gte=F("held")),
                name="ledger_account_holds_covered",
            ),
            models.CheckConstraint(condition=Q(held__gte=0), name="ledger_account_held_not_negative"),
            models.CheckConstraint(
                condition=Q(debits_posted__gte=0) & Q(credits_posted__gte=0),
                name="ledger_account_totals_not_negative",
            ),
            models.CheckConstraint(
                condition=Q(balance=F("credits_posted") - F("debits_posted")),
                name="ledger_account_balance_is_credits_minus_debits",
            ),
        ]

    def __str__(self) -> str:
        return self.code

    @property
    def available(self) -> int:
        return self.balance - self.held


class HoldStatus(models.TextChoices):
    PENDING = "pending"
    POSTED = "posted"
    VOIDED = "voided"
    EXPIRED = "expired"


class Hold(models.Model):
    """Funds reserved on an account (two-phase): captured by transfers, then posted or voided.

    Unlike a TigerBeetle pending transfer, a hold may be captured several times while it is
    pending, because a pot game takes each payment of a round from the player's reserve.
    A trigger refuses any change to a hold once it has left ``pending``.
    """

    key = models.CharField(max_length=200, unique=True)
    account = models.ForeignKey(Account, on_delete=models.PROTECT, related_name="holds")
    amount = models.BigIntegerField()
    captured = models.BigIntegerField(default=0)
    status = models.CharField(max_length=10, choices=HoldStatus.choices, default=HoldStatus.PENDING)
    memo = models.CharField(max_length=300, blank=True)
    meta = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField(null=True, blank=True)
    resolved_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(amount__gt=0), name="ledger_hold_amount_positive"),
            models.CheckConstraint(
                condition=Q(captured__gte=0) & Q(captured__lte=F("amount")),
                name="ledger_hold_captured_within_amount",
            ),
        ]
        indexes = [models.Index(fields=["status", "expires_at"], name="ledger_hold_expiry")]

    def __str__(self) -> str:
        return f"hold {self.key} on {self.account_id}"

    @property
    def remaining(self) -> int:
        return self.amount - self.captured if self.status == HoldStatus.PENDING else 0


class Transfer(models.Model):
    """One balanced, immutable movement of chips. ``key`` is the idempotency key."""

    # Every index below is written on each transfer, so only those a query uses exist: the key
    # is looked up by equality only (a unique constraint, without Django's LIKE index), and
    # reports select by gaming day and kind (ledger_transfer_day_kind).
    key = models.CharField(max_length=200)
    kind = models.CharField(max_length=40)
    memo = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField()
    gaming_day = models.DateField()
    meta = models.JSONField(default=dict, blank=True)
    fingerprint = models.CharField(max_length=64, help_text="SHA-256 of the content, for replays.")
    reverses = models.OneToOneField(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="reversed_by"
    )

    class Meta:
        constraints = [models.UniqueConstraint(fields=["key"], name="ledger_transfer_key_unique")]
        indexes = [models.Index(fields=["gaming_day", "kind"], name="ledger_transfer_day_kind")]

    def __str__(self) -> str:
        return f"{self.kind} {self.key}"


class Entry(models.Model):
    """One leg side: a signed amount on one account (negative debits, positive credits)."""

    transfer = models.ForeignKey(Transfer, on_delete=models.PROTECT, related_name="entries")
    # Looked up through ledger_entry_account_time, whose first column it is.
    account = models.ForeignKey(Account, on_delete=models.PROTECT, related_name="entries", db_index=False)
    leg = models.PositiveSmallIntegerField()
    amount = models.BigIntegerField()
    balance_after = models.BigIntegerField()
    hold = models.ForeignKey(
        Hold, null=True, blank=True, on_delete=models.PROTECT, related_name="captures", db_index=False
    )
    created_at = models.DateTimeField()

    class Meta:
        verbose_name_plural = "entries"
        constraints = [
            models.CheckConstraint(condition=~Q(amount=0), name="ledger_entry_amount_not_zero"),
        ]
        indexes = [
            models.Index(fields=["account", "-created_at", "-id"], name="ledger_entry_account_time"),
            # Most entries capture no hold: a partial index skips them.
            models.Index(fields=["hold"], condition=Q(hold__isnull=False), name="ledger_entry_hold"),
        ]

    def __str__(self) -> str:
        # No amount: the ledger cannot write dollars (casino.money is above it); the admin shows them.
        return f"entry {self.pk}: leg {self.leg} of transfer {self.transfer_id}"


class ClosedGamingDay(models.Model):
    """A gaming day after its audit: a trigger refuses any transfer dated into it."""

    day = models.DateField(primary_key=True)
    closed_at = models.DateTimeField(auto_now_add=True)
    closed_by = models.CharField(max_length=150, blank=True)

    def __str__(self) -> str:
        return f"closed {self.day}"
