"""Invariants the database enforces whatever code (or raw SQL) writes to the ledger.

* Every transfer's entries sum to zero, and a transfer has entries: deferred constraint
  triggers, checked at commit, so a transfer and its entries are written together.
* Transfers and entries are append-only: UPDATE and DELETE raise.
* A hold, once posted, voided or expired, never changes again; its amount never changes.
* No transfer can be dated into a closed gaming day.
"""

from django.db import migrations

FORWARD = r"""
CREATE FUNCTION ledger_check_transfer_balanced() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    tid bigint;
    total numeric;
    n integer;
BEGIN
    IF TG_TABLE_NAME = 'ledger_entry' THEN
        tid := NEW.transfer_id;
    ELSE
        tid := NEW.id;
    END IF;
    SELECT COALESCE(SUM(amount), 0), COUNT(*) INTO total, n FROM ledger_entry WHERE transfer_id = tid;
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

CREATE CONSTRAINT TRIGGER ledger_entry_balanced
    AFTER INSERT ON ledger_entry
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION ledger_check_transfer_balanced();

CREATE CONSTRAINT TRIGGER ledger_transfer_balanced
    AFTER INSERT ON ledger_transfer
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION ledger_check_transfer_balanced();

CREATE FUNCTION ledger_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'ledger_append_only: % on % is not allowed; post a reversing transfer instead',
        TG_OP, TG_TABLE_NAME USING ERRCODE = 'restrict_violation';
END;
$$;

CREATE TRIGGER ledger_transfer_append_only
    BEFORE UPDATE OR DELETE ON ledger_transfer
    FOR EACH ROW EXECUTE FUNCTION ledger_refuse_change();

CREATE TRIGGER ledger_entry_append_only
    BEFORE UPDATE OR DELETE ON ledger_entry
    FOR EACH ROW EXECUTE FUNCTION ledger_refuse_change();

CREATE FUNCTION ledger_hold_final() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        RAISE EXCEPTION 'ledger_append_only: holds are never deleted' USING ERRCODE = 'restrict_violation';
    END IF;
    IF OLD.status <> 'pending' THEN
        RAISE EXCEPTION 'ledger_hold_final: hold % is already %', OLD.id, OLD.status
            USING ERRCODE = 'restrict_violation';
    END IF;
    IF NEW.amount <> OLD.amount OR NEW.account_id <> OLD.account_id OR NEW.key <> OLD.key
       OR NEW.captured < OLD.captured THEN
        RAISE EXCEPTION 'ledger_hold_final: a hold''s amount, account and key never change, and captures only grow'
            USING ERRCODE = 'restrict_violation';
    END IF;
    RETURN NEW;
END;
$$;

CREATE TRIGGER ledger_hold_final
    BEFORE UPDATE OR DELETE ON ledger_hold
    FOR EACH ROW EXECUTE FUNCTION ledger_hold_final();

CREATE FUNCTION ledger_refuse_closed_day() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM ledger_closedgamingday WHERE day = NEW.gaming_day) THEN
        RAISE EXCEPTION 'gaming_day_closed: gaming day % is closed', NEW.gaming_day
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END;
$$;

CREATE TRIGGER ledger_transfer_open_day
    BEFORE INSERT ON ledger_transfer
    FOR EACH ROW EXECUTE FUNCTION ledger_refuse_closed_day();
"""

BACKWARD = r"""
DROP TRIGGER IF EXISTS ledger_transfer_open_day ON ledger_transfer;
DROP FUNCTION IF EXISTS ledger_refuse_closed_day();
DROP TRIGGER IF EXISTS ledger_hold_final ON ledger_hold;
DROP FUNCTION IF EXISTS ledger_hold_final();
DROP TRIGGER IF EXISTS ledger_entry_append_only ON ledger_entry;
DROP TRIGGER IF EXISTS ledger_transfer_append_only ON ledger_transfer;
DROP FUNCTION IF EXISTS ledger_refuse_change();
DROP TRIGGER IF EXISTS ledger_transfer_balanced ON ledger_transfer;
DROP TRIGGER IF EXISTS ledger_entry_balanced ON ledger_entry;
DROP FUNCTION IF EXISTS ledger_check_transfer_balanced();
"""


class Migration(migrations.Migration):
    dependencies = [("ledger", "0001_initial")]

    operations = [migrations.RunSQL(FORWARD, BACKWARD)]
