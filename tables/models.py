"""Tables, their sessions, seats, fills and credits, and the limit history."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.db import models
from django.db.models import F, Q
from django.utils import timezone

from casino.money import format_dollars


class Game(models.TextChoices):
    FARO = "faro", "Faro"
    FARMER = "farmer", "Farmer"
    FAN_TAN = "fan_tan", "Fan Tan"
    NEWMARKET = "newmarket", "Newmarket"
    TONK = "tonk", "Tonk"
    STAKES = "stakes", "Stakes (result-keyed)"


class TableStatus(models.TextChoices):
    CLOSED = "closed"
    OPEN = "open"


class Table(models.Model):
    name = models.CharField(max_length=100, unique=True)
    game = models.CharField(max_length=12, choices=Game.choices)
    status = models.CharField(max_length=8, choices=TableStatus.choices, default=TableStatus.CLOSED)
    min_bet = models.BigIntegerField(help_text="cents")
    max_bet = models.BigIntegerField(help_text="cents")
    ante = models.BigIntegerField(default=0, help_text="cents; one stake in Tonk and the stakes games")
    rules = models.JSONField(default=dict, blank=True)
    dealer = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="assigned_tables",
    )
    tray = models.OneToOneField("ledger.Account", on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(min_bet__gt=0), name="tables_table_min_bet_positive"),
            models.CheckConstraint(
                condition=Q(max_bet__gte=F("min_bet")), name="tables_table_max_at_least_min"
            ),
            models.CheckConstraint(condition=Q(ante__gte=0), name="tables_table_ante_not_negative"),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.get_game_display()})"


def table_win(*, opener: int, closer: int, fills: int, credits: int) -> int:
    """A table's win by the count: what is left plus what went to the cage, less what it started
    with and what the cage sent (the session's close, the pit's live figure and the audit)."""
    return closer + credits - opener - fills


class TableSession(models.Model):
    """From opening count to closing count: the unit a shift's win is measured on."""

    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="sessions")
    opened_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    opened_at = models.DateTimeField(auto_now_add=True)
    opening_inventory = models.BigIntegerField()
    opening_ledger = models.BigIntegerField(
        help_text="tray balance in the ledger at opening, before adjustment"
    )
    opening_variance = models.BigIntegerField(default=0)
    closed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    closed_at = models.DateTimeField(null=True, blank=True)
    closing_inventory = models.BigIntegerField(null=True, blank=True)
    closing_ledger = models.BigIntegerField(null=True, blank=True)
    closing_variance = models.BigIntegerField(null=True, blank=True)
    drop = models.BigIntegerField(null=True, blank=True)
    fills = models.BigIntegerField(null=True, blank=True)
    credits = models.BigIntegerField(null=True, blank=True)
    win = models.BigIntegerField(null=True, blank=True)
    rake = models.BigIntegerField(null=True, blank=True, help_text="house rake collected in the session")
    pot_splits = models.JSONField(default=list, blank=True, help_text="unwon pots split at closing")

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["table"],
                condition=Q(closed_at__isnull=True),
                name="tables_one_open_session_per_table",
            ),
            models.CheckConstraint(
                condition=Q(opening_inventory__gte=0), name="tables_session_opening_not_negative"
            ),
            models.CheckConstraint(
                condition=Q(closing_inventory__isnull=True) | Q(closing_inventory__gte=0),
                name="tables_session_closing_not_negative",
            ),
        ]

    def __str__(self) -> str:
        return f"session {self.pk} of {self.table_id}"


class Seat(models.Model):
    """A sitting: a player in a seat from ``seated_at`` until ``left_at``."""

    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="seatings")
    player = models.ForeignKey("casino.Player", on_delete=models.PROTECT, related_name="seatings")
    number = models.PositiveSmallIntegerField()
    seated_at = models.DateTimeField(auto_now_add=True)
    left_at = models.DateTimeField(null=True, blank=True)
    seated_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    rake_periods_charged = models.PositiveIntegerField(default=0, help_text="time-rake periods paid")
    time_rake_paid = models.BigIntegerField(default=0, help_text="cents of time rake paid in this sitting")

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["table", "number"], condition=Q(left_at__isnull=True), name="tables_seat_taken_once"
            ),
            models.UniqueConstraint(
                fields=["player"], condition=Q(left_at__isnull=True), name="tables_player_in_one_seat"
            ),
            models.CheckConstraint(
                condition=Q(number__gte=1) & Q(number__lte=12), name="tables_seat_number_range"
            ),
        ]

    def __str__(self) -> str:
        return f"seat {self.number} at {self.table_id}"


class TrayRequestKind(models.TextChoices):
    FILL = "fill"
    CREDIT = "credit"


class DecisionStatus(models.TextChoices):
    PENDING = "pending"
    APPROVED = "approved"
    REFUSED = "refused"


TrayRequestStatus = CorrectionStatus = DecisionStatus


class SecondPersonDecides(models.Model):
    """A request that one person makes and another approves or refuses (MICS: two people)."""

    status = models.CharField(max_length=8, choices=DecisionStatus.choices, default=DecisionStatus.PENDING)
    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    requested_at = models.DateTimeField(auto_now_add=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    note = models.CharField(max_length=300, blank=True)

    class Meta:
        abstract = True

    def decide(self, actor: Any, status: str, *, also: tuple[str, ...] = ()) -> None:
        """Save the second person's answer, with the ``also`` fields the caller set (row locked)."""
        self.status = status
        self.decided_by = actor
        self.decided_at = timezone.now()
        self.save(update_fields=["status", "decided_by", "decided_at", *also])

    # Each subclass adds this to its own constraints (named tables_<model>_two_people).
    @staticmethod
    def two_people(model: str) -> models.CheckConstraint:
        return models.CheckConstraint(
            condition=Q(decided_by__isnull=True) | ~Q(decided_by=F("requested_by")),
            name=f"tables_{model}_two_people",
        )


class TrayRequest(SecondPersonDecides):
    """A fill (cage → tray) or credit (tray → cage). Only a second person's approval moves chips."""

    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="tray_requests")
    kind = models.CharField(max_length=6, choices=TrayRequestKind.choices)
    amount = models.BigIntegerField()
    transfer = models.OneToOneField(
        "ledger.Transfer", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )

    class Meta:
        verbose_name = "fill or credit"
        verbose_name_plural = "fills and credits"
        constraints = [
            models.CheckConstraint(condition=Q(amount__gt=0), name="tables_trayrequest_amount_positive"),
            models.CheckConstraint(
                condition=Q(status="approved", transfer__isnull=False)
                | (~Q(status="approved") & Q(transfer__isnull=True)),
                name="tables_trayrequest_transfer_iff_approved",
            ),
            SecondPersonDecides.two_people("trayrequest"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} of {format_dollars(self.amount)} for table {self.table_id}"


class LimitChange(models.Model):
    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="limit_changes")
    changed_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    at = models.DateTimeField(auto_now_add=True)
    old_min_bet = models.BigIntegerField()
    old_max_bet = models.BigIntegerField()
    new_min_bet = models.BigIntegerField()
    new_max_bet = models.BigIntegerField()

    def __str__(self) -> str:
        return f"limits of {self.table_id} at {self.at}"


class ShoeKind(models.TextChoices):
    ELECTRONIC = "electronic"
    MANUAL = "manual"


class RoundStatus(models.TextChoices):
    BETTING = "betting"
    IN_PLAY = "in_play"
    SETTLED = "settled"
    VOID = "void"


LIVE_ROUND_STATUSES = (RoundStatus.BETTING, RoundStatus.IN_PLAY)


class Round(models.Model):
    """One deal of a game. Its state is a pure function of ``context``, the deck and its actions."""

    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="rounds")
    game = models.CharField(max_length=12, choices=Game.choices)
    number = models.PositiveIntegerField(help_text="the table's round counter")
    status = models.CharField(max_length=8, choices=RoundStatus.choices, default=RoundStatus.BETTING)
    shoe = models.CharField(max_length=10, choices=ShoeKind.choices)
    rules = models.JSONField(default=dict)
    context = models.JSONField(default=dict, help_text="seats, limits, ante and carry at the start")
    players = ArrayField(models.BigIntegerField(), default=list, help_text="players dealt in")
    commitment = models.CharField(max_length=64, blank=True)
    seed = models.CharField(max_length=64, blank=True, help_text="revealed by /verify once the round ends")
    extra_seeds = models.JSONField(default=list, blank=True)
    state = models.JSONField(default=dict)
    carry = models.JSONField(default=dict, blank=True, help_text="what the next round inherits")
    holds = models.JSONField(default=dict, blank=True, help_text="player id -> ledger hold id")
    version = models.PositiveIntegerField(default=0)
    started_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    started_at = models.DateTimeField(auto_now_add=True)
    ended_at = models.DateTimeField(null=True, blank=True)
    session = models.ForeignKey(
        TableSession, null=True, blank=True, on_delete=models.PROTECT, related_name="rounds"
    )

    # Not stored: set on the round tables.rounds.apply_round_action returns, for its answer.
    # This action's settlements as (transfer_id, kind, amount, player_id, from, to), the
    # round's live total, and the action as recorded (the round's last action now).
    settlements_made: list[tuple[int, str, int, int | None, str, str]]
    settlements_count: int
    last_payload: dict[str, Any]

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["table", "number"], name="tables_round_number_per_table"),
            models.UniqueConstraint(
                fields=["table"],
                condition=Q(status__in=["betting", "in_play"]),
                name="tables_one_live_round_per_table",
            ),
        ]
        indexes = [
            models.Index(fields=["table", "-started_at"], name="tables_round_recent"),
            # The ratings sweep's walk over recently settled rounds (tables.ratings.services).
            models.Index(
                fields=["ended_at"], condition=Q(status="settled"), name="tables_round_settled_ended"
            ),
        ]

    def __str__(self) -> str:
        return f"round {self.pk} ({self.game}) at {self.table_id}"


class LiveRowManager(models.Manager):
    """Rows no approved correction has voided: the round as if the voided actions never were.

    The default manager of actions and settlements, so every fold of a round (play, replay,
    audit, ratings, detection) skips what a correction voided; ``all_objects`` keeps them.
    """

    def get_queryset(self) -> models.QuerySet:
        return super().get_queryset().filter(voided_by__isnull=True)


class RoundAction(models.Model):
    """An accepted action, as the engine saw it (server-injected limits included)."""

    round = models.ForeignKey(Round, on_delete=models.PROTECT, related_name="actions")
    seq = models.PositiveIntegerField()
    payload = models.JSONField()
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    at = models.DateTimeField(auto_now_add=True)
    transfer = models.OneToOneField(
        "ledger.Transfer", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    # No index: corrections are never deleted (PROTECT), and an insert per tap should not pay for one.
    voided_by = models.ForeignKey(
        "tables.Correction",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="voided_actions",
        db_index=False,
    )

    all_objects = models.Manager()
    objects = LiveRowManager()

    class Meta:
        default_manager_name = "objects"
        constraints = [models.UniqueConstraint(fields=["round", "seq"], name="tables_action_seq_per_round")]

    def __str__(self) -> str:
        return f"{self.round_id}#{self.seq} {self.payload.get('type')}"


class RoundSettlement(models.Model):
    """One leg of a transfer a round made: who paid whom, and why."""

    round = models.ForeignKey(Round, on_delete=models.PROTECT, related_name="settlements")
    action = models.ForeignKey(RoundAction, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    transfer = models.ForeignKey("ledger.Transfer", on_delete=models.PROTECT, related_name="+")
    kind = models.CharField(max_length=30)
    from_account = models.CharField(max_length=100)
    to_account = models.CharField(max_length=100)
    amount = models.BigIntegerField()
    player = models.ForeignKey(
        "casino.Player", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    voided_by = models.ForeignKey(
        "tables.Correction", null=True, blank=True, on_delete=models.PROTECT, related_name="+", db_index=False
    )

    all_objects = models.Manager()
    objects = LiveRowManager()

    class Meta:
        default_manager_name = "objects"
        constraints = [
            models.CheckConstraint(condition=Q(amount__gt=0), name="tables_settlement_amount_positive")
        ]

    def __str__(self) -> str:
        return f"{self.kind} {format_dollars(self.amount)} {self.from_account}->{self.to_account}"


class Correction(SecondPersonDecides):
    """A dealer's request to void a round's last actions, or the whole round (a misdeal).

    Nothing is edited: approval by a second person reverses the voided actions' transfers and
    marks the actions voided, and the round is refolded without them (MICS: never edit).
    """

    round = models.ForeignKey(Round, on_delete=models.PROTECT, related_name="corrections")
    void = models.JSONField(help_text='as asked: "last", "round" or {"from": seq}')
    from_seq = models.PositiveIntegerField(
        null=True, blank=True, help_text="first action voided; empty when the whole round is"
    )
    at_version = models.PositiveIntegerField(help_text="the round's version when asked")
    reason = models.CharField(max_length=300)
    reversals = models.JSONField(default=list, blank=True, help_text="ids of the reversing transfers")

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["round"], condition=Q(status="pending"), name="tables_one_pending_correction"
            ),
            SecondPersonDecides.two_people("correction"),
        ]

    def __str__(self) -> str:
        return f"correction {self.pk} of round {self.round_id} ({self.status})"


class RefusedAction(models.Model):
    """An action the engine or the limits refused: kept for dealer metrics and detection."""

    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="+")
    round = models.ForeignKey(Round, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    player = models.ForeignKey(
        "casino.Player", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    code = models.CharField(max_length=40)
    payload = models.JSONField(default=dict)
    at = models.DateTimeField(auto_now_add=True, db_index=True)

    def __str__(self) -> str:
        return f"refused {self.code} at {self.table_id}"


class DealerShift(models.Model):
    """Who dealt a table and when: dealers rotate, and win, pace and alerts follow the dealer."""

    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="dealer_shifts")
    dealer = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="dealer_shifts"
    )
    started_at = models.DateTimeField(auto_now_add=True)
    ended_at = models.DateTimeField(null=True, blank=True)
    assigned_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["table"], condition=Q(ended_at__isnull=True), name="tables_one_dealer_shift_per_table"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.dealer_id} at {self.table_id} from {self.started_at}"
