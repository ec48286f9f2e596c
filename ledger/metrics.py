"""Ledger counters for Prometheus; counted on commit, so rolled-back transfers never show."""

from __future__ import annotations

from prometheus_client import Counter

TRANSFERS = Counter("casekeeper_ledger_transfers_total", "Ledger transfers committed", ["kind"])
TRANSFER_LEGS = Counter("casekeeper_ledger_transfer_legs_total", "Ledger transfer legs committed")
