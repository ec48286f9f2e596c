"""The ratings' rows, written by the ratings task from settled rounds: a round's figures for the
floor and each player's part in it, in the ``tables`` app."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from tables.models import Game

MILLI = 1000  # theo_milli is in thousandths of a cent (RoundStat)


class RoundStat(models.Model):
    """A settled round's figures for the floor (handle, house win, pace), written by the ratings task.

    Theoretical win is kept in thousandths of a cent (``theo_milli``): it is an expectation,
    not chips, and summing rounded cents would drift.
    """

    round = models.OneToOneField(
        "tables.Round", on_delete=models.CASCADE, primary_key=True, related_name="stat"
    )
    table = models.ForeignKey("tables.Table", on_delete=models.PROTECT, related_name="+")
    game = models.CharField(max_length=12, choices=Game.choices)
    dealer = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.PROTECT, related_name="+"
    )
    started_at = models.DateTimeField()
    ended_at = models.DateTimeField(db_index=True)
    hour = models.DateTimeField(help_text="start of the hour the round ended in")
    handle = models.BigIntegerField(default=0)
    win = models.BigIntegerField(default=0, help_text="house win: tray net plus rake")
    decisions = models.PositiveIntegerField(default=0)
    theo_milli = models.BigIntegerField(default=0)
    theo_variance = models.BigIntegerField(
        default=0,
        help_text="cents²: Σ stake² x each decided Faro bet's variance, the spread of win about theo",
    )

    class Meta:
        indexes = [
            models.Index(fields=["table", "hour"], name="tables_roundstat_table_hour"),
            models.Index(fields=["dealer", "ended_at"], name="tables_roundstat_dealer"),
        ]

    def __str__(self) -> str:
        return f"stat of round {self.round_id}"


class RoundPlayerStat(models.Model):
    """One player's part in one round, attached to the sitting it belongs to."""

    round = models.ForeignKey("tables.Round", on_delete=models.CASCADE, related_name="player_stats")
    player = models.ForeignKey("casino.Player", on_delete=models.PROTECT, related_name="+")
    seat = models.ForeignKey("tables.Seat", null=True, on_delete=models.PROTECT, related_name="stats")
    table = models.ForeignKey("tables.Table", on_delete=models.PROTECT, related_name="+")
    handle = models.BigIntegerField(default=0)
    result = models.BigIntegerField(default=0, help_text="the player's net win (+) or loss (−)")
    bets = models.PositiveIntegerField(default=0)
    decisions = models.PositiveIntegerField(default=0)
    theo_milli = models.BigIntegerField(default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["round", "player"], name="tables_playerstat_once")]

    def __str__(self) -> str:
        return f"player {self.player_id} in round {self.round_id}"
