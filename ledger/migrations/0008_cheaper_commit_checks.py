"""The same two trigger checks, cheaper to run: they run on every transfer, one at its COMMIT.

Under ``perf`` on the 2-core dev machine, the deferred zero-sum checks were about 12% of the
database's CPU per transfer, and most of that was setting up the query, not reading: an
aggregate over a bitmap scan, built afresh for two or three rows, three times per transfer.

* ``ledger_check_transfer_balanced`` reads the transfer's entries in a loop (a cursor, so the
  planner picks a plain index scan) and adds them up; same rules, same messages.
* ``ledger_refuse_closed_day`` looks up the closed day first and only then the key, in two
  statements instead of one with two sub-plans.
"""

from importlib import import_module

from django.db import migrations

BALANCED = r"""
CREATE OR REPLACE FUNCTION ledger_check_transfer_balanced() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    tid bigint;
    total bigint := 0;
    n integer := 0;
    amount bigint;
BEGIN
    IF TG_TABLE_NAME = 'ledger_entry' THEN
        tid := NEW.transfer_id;
    ELSE
        tid := NEW.id;
    END IF;
    -- bigint arithmetic raises on overflow, so no sum can wrap around to zero.
    FOR amount IN SELECT e.amount FROM ledger_entry AS e WHERE e.transfer_id = tid LOOP
        total := total + amount;
        n := n + 1;
    END LOOP;
    IF n < 2 THEN
        RAISE EXCEPTION 'ledger_unbalanced: transfer % has % entries; a transfer needs at least two', tid, n
            USING ERRCODE = 'check_violation';
    END IF;
    IF total <> 0 THEN
        RAISE EXCEPTION 'ledger_unbalanced: entries of transfer % sum to %, not 0', tid, total
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NULL;
END;
$$;
"""

OPEN_DAY = r"""
CREATE OR REPLACE FUNCTION ledger_refuse_closed_day() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM 1 FROM ledger_closedgamingday WHERE day = NEW.gaming_day;
    -- A replay of a key already posted is let through: the INSERT then does nothing (0004).
    IF FOUND AND NOT EXISTS (SELECT 1 FROM ledger_transfer WHERE key = NEW.key) THEN
        RAISE EXCEPTION 'gaming_day_closed: gaming day % is closed', NEW.gaming_day
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END;
$$;
"""


def _balanced_of_0002() -> str:
    """Going back restores the check function as migration 0002 wrote it (its first statement)."""
    forward: str = import_module("ledger.migrations.0002_ledger_triggers").FORWARD
    function = forward[: forward.index("$$;") + len("$$;")]
    return function.replace("CREATE FUNCTION", "CREATE OR REPLACE FUNCTION", 1)


def _open_day_of_0004() -> str:
    """Going back restores the closed-day function of migration 0004."""
    forward: str = import_module("ledger.migrations.0004_closed_day_allows_replays").FORWARD
    return forward


class Migration(migrations.Migration):
    dependencies = [("ledger", "0007_leaner_indexes")]

    operations = [
        migrations.RunSQL(BALANCED, _balanced_of_0002()),
        migrations.RunSQL(OPEN_DAY, _open_day_of_0004()),
    ]
