"""A replay of a transfer already posted into a now-closed day is not a new transfer.

``post_transfer`` claims its key with ``INSERT … ON CONFLICT (key) DO NOTHING``; BEFORE
INSERT triggers fire before the conflict is found, so the closed-day trigger lets a key
that already exists through and the INSERT then does nothing. New keys are still refused.
"""

from django.db import migrations

FORWARD = r"""
CREATE OR REPLACE FUNCTION ledger_refuse_closed_day() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM ledger_closedgamingday WHERE day = NEW.gaming_day)
       AND NOT EXISTS (SELECT 1 FROM ledger_transfer WHERE key = NEW.key) THEN
        RAISE EXCEPTION 'gaming_day_closed: gaming day % is closed', NEW.gaming_day
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END;
$$;
"""

BACKWARD = r"""
CREATE OR REPLACE FUNCTION ledger_refuse_closed_day() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM ledger_closedgamingday WHERE day = NEW.gaming_day) THEN
        RAISE EXCEPTION 'gaming_day_closed: gaming day % is closed', NEW.gaming_day
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END;
$$;
"""


class Migration(migrations.Migration):
    dependencies = [("ledger", "0003_system_accounts")]

    operations = [migrations.RunSQL(FORWARD, BACKWARD)]
