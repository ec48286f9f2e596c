"""One posting function, ``ledger_post_transfer``, for every transfer; ``ledger_post_leg`` goes.

Migration 0006 had added a second function for the common shape (one leg without a hold),
written with scalars, because the general function spent more per call than it. This one
function is written so that any number of legs costs what that shape did: the legs are walked in
PL/pgSQL loops and each statement is simple (the accounts by ``code = ANY``, the entries from
arrays, the balances by ``id = ANY``). ``SET plan_cache_mode = force_generic_plan`` keeps each
statement's plan for the connection: with array parameters, PostgreSQL would otherwise find a
fresh plan cheaper and plan several statements again on every call. A kept plan is as good as
the tables' statistics when it was made (PostgreSQL plans again after an ANALYZE): with
autovacuum off and a ledger grown far past its last ANALYZE, it can be a poor one.

``ledger_post_transfer`` does, in one statement, in this order:

0. refuse malformed legs (the Python wrapper refuses them first);
1. claim the idempotency key (``INSERT … ON CONFLICT (key) DO NOTHING``) before any lock: a
   twin in flight makes the INSERT wait for it, then this call is a replay (same fingerprint,
   the first transfer returned and nothing moved, even if the payer could no longer afford it)
   or a conflict; if the twin rolled back, this call goes on as the first. Claiming first also
   keeps the transfer row's insert (and its closed-day trigger) out of the time an account's
   row lock is held;
2. lock the legs' accounts in primary-key order, and add up what the legs do to each;
3. lock the holds the legs capture from, in primary-key order (keys, then accounts, then holds:
   the order every money path uses, so none of them deadlocks with another), and check each
   captured hold (it reserves funds on the leg's payer, it is pending, and the legs do not take
   more than is left of it);
4. check each account's net result: a ``must_not_go_negative`` account must still cover what
   stays reserved by its holds (legs are simultaneous, so an account may pay on what it
   receives in the same transfer);
5. write the entries, credits first, then debits, each in leg order, so each account's
   ``balance_after`` chain never dips below zero inside a transfer that step 4 allowed;
6. update the stored balances (one UPDATE) and the holds' captured amounts.

Refusals are raised with SQLSTATEs of a class of our own, ``CK``, which the Python wrapper maps
to the ledger's domain errors; the message is the one a person reads, and DETAIL carries the
error's fields as JSON:

    CK001 insufficient_funds   CK002 idempotency_conflict   CK003 unknown_account
    CK004 hold_not_pending     CK005 hold_exceeded          CK006 invalid_transfer

The database's own guards (zero-sum, append-only, closed day, CHECKs) still apply to everything
this function writes; it is not trusted more than any other writer.

On a database migrated with the old files this replaces their ``ledger_post_transfer``, whose
arguments it keeps; on a new one (after 0001_squashed_0009) it creates it. Unapplied, it drops
the function, as 0001_squashed_0009 has none.
"""

from django.db import migrations

POST_TRANSFER = r"""
CREATE OR REPLACE FUNCTION ledger_post_transfer(
    p_key text,
    p_kind text,
    p_memo text,
    p_at timestamptz,
    p_day date,
    p_meta jsonb,
    p_fingerprint text,
    p_reverses bigint,
    p_debits text[],
    p_credits text[],
    p_amounts bigint[],
    p_holds bigint[],
    OUT o_transfer_id bigint,
    OUT o_replayed boolean
) LANGUAGE plpgsql
-- Plan each statement once per connection (see the docstring).
SET plan_cache_mode = force_generic_plan
AS $$
DECLARE
    v_legs integer := coalesce(cardinality(p_amounts), 0);
    v_has_holds boolean := false;
    -- The touched accounts as locked, in pk order, and what the legs do to each.
    v_ids bigint[] := '{}';
    v_codes text[] := '{}';
    v_balances bigint[] := '{}';
    v_debited bigint[] := '{}';
    v_credited bigint[] := '{}';
    v_captured bigint[] := '{}';
    v_n integer := 0;
    -- The entries, in the order they are written: credits first, then debits, each in leg order.
    e_accounts bigint[] := '{}';
    e_legs smallint[] := '{}';
    e_amounts bigint[] := '{}';
    e_after bigint[] := '{}';
    e_holds bigint[] := '{}';
    -- The first guarded account the transfer would leave short, if any.
    v_short_code text;
    v_short_label text;
    v_short_available bigint;
    v_short_needed bigint;
    v_debit bigint;
    v_credit bigint;
    v_capture bigint;
    v_fingerprint text;
    v_at integer;
    i integer;
    r record;
BEGIN
    o_replayed := false;

    -- 0. What the Python wrapper refuses first, refused here too for any other caller.
    IF v_legs = 0
       OR cardinality(p_debits) IS DISTINCT FROM v_legs
       OR cardinality(p_credits) IS DISTINCT FROM v_legs
       OR cardinality(p_holds) IS DISTINCT FROM v_legs THEN
        RAISE EXCEPTION USING
            ERRCODE = 'CK006', MESSAGE = 'A transfer needs at least one leg, each with a debit, credit, amount and hold.';
    END IF;
    FOR i IN 1..v_legs LOOP
        IF (p_debits[i] <> p_credits[i] AND p_amounts[i] > 0) IS NOT TRUE THEN
            RAISE EXCEPTION USING
                ERRCODE = 'CK006', MESSAGE = 'Each leg moves a positive amount between two different accounts.';
        END IF;
        v_has_holds := v_has_holds OR p_holds[i] IS NOT NULL;
    END LOOP;

    -- 1. The key. A twin in flight makes the INSERT wait for it, then skip (or go on, if it
    -- rolled back).
    INSERT INTO ledger_transfer (key, kind, memo, created_at, gaming_day, meta, fingerprint, reverses_id)
    VALUES (p_key, p_kind, p_memo, p_at, p_day, p_meta, p_fingerprint, p_reverses)
    ON CONFLICT (key) DO NOTHING
    RETURNING id INTO o_transfer_id;
    IF o_transfer_id IS NULL THEN
        SELECT t.id, t.fingerprint INTO o_transfer_id, v_fingerprint FROM ledger_transfer AS t WHERE t.key = p_key;
        IF o_transfer_id IS NULL THEN
            RAISE EXCEPTION USING
                ERRCODE = 'CK002',
                MESSAGE = format('Key %L is being used by another transfer right now; retry.', p_key);
        END IF;
        IF v_fingerprint <> p_fingerprint THEN
            RAISE EXCEPTION USING
                ERRCODE = 'CK002',
                MESSAGE = format('Key %L was already used for a different transfer.', p_key);
        END IF;
        o_replayed := true;
        RETURN;
    END IF;

    -- 2. Accounts, locked in pk order (a row that changed while we waited for its lock is
    -- re-read, so the figures below are the locked row's), and what the legs do to each.
    FOR r IN
        SELECT a.id, a.code, a.name, a.balance, a.held, a.must_not_go_negative AS guarded
          FROM ledger_account AS a WHERE a.code = ANY (p_debits || p_credits) ORDER BY a.id FOR UPDATE
    LOOP
        v_debit := 0;
        v_credit := 0;
        v_capture := 0;
        FOR i IN 1..v_legs LOOP
            IF p_debits[i] = r.code THEN
                v_debit := v_debit + p_amounts[i];
                IF p_holds[i] IS NOT NULL THEN
                    v_capture := v_capture + p_amounts[i];
                END IF;
            ELSIF p_credits[i] = r.code THEN
                v_credit := v_credit + p_amounts[i];
            END IF;
        END LOOP;
        v_n := v_n + 1;
        v_ids[v_n] := r.id;
        v_codes[v_n] := r.code;
        v_balances[v_n] := r.balance;
        v_debited[v_n] := v_debit;
        v_credited[v_n] := v_credit;
        v_captured[v_n] := v_capture;
        -- Legs are simultaneous: what counts is the result, which must still cover what stays held.
        IF v_short_code IS NULL AND r.guarded AND r.balance + v_credit - v_debit < r.held - v_capture THEN
            v_short_code := r.code;
            v_short_label := coalesce(nullif(r.name, ''), r.code);
            v_short_available := r.balance - r.held;
            v_short_needed := v_debit - v_credit - v_capture;
        END IF;
    END LOOP;
    FOR i IN 1..v_legs LOOP
        IF array_position(v_codes, p_debits[i]) IS NULL OR array_position(v_codes, p_credits[i]) IS NULL THEN
            RAISE EXCEPTION USING
                ERRCODE = 'CK003',
                MESSAGE = format('No such account: %s.', (
                    SELECT string_agg(DISTINCT c, ', ' ORDER BY c) FROM unnest(p_debits || p_credits) AS c
                     WHERE NOT EXISTS (SELECT 1 FROM ledger_account AS a WHERE a.code = c)));
        END IF;
    END LOOP;

    -- 3. Holds, after the accounts, in pk order; then each captured hold, leg by leg.
    IF v_has_holds THEN
        PERFORM count(*) FROM (SELECT id FROM ledger_hold WHERE id = ANY (p_holds) ORDER BY id FOR UPDATE) AS locked;
        FOR r IN
            SELECT l.hold_id, l.debit, h.key AS hold_key, h.status, a.code AS hold_account,
                   h.amount - h.captured AS hold_left,
                   sum(l.amount) OVER (PARTITION BY l.hold_id ORDER BY l.leg ROWS UNBOUNDED PRECEDING) AS used
              FROM unnest(p_debits, p_amounts, p_holds) WITH ORDINALITY AS l(debit, amount, hold_id, leg)
              LEFT JOIN ledger_hold AS h ON h.id = l.hold_id
              LEFT JOIN ledger_account AS a ON a.id = h.account_id
             WHERE l.hold_id IS NOT NULL
             ORDER BY l.leg
        LOOP
            IF r.hold_account IS NULL OR r.hold_account <> r.debit THEN
                RAISE EXCEPTION USING
                    ERRCODE = 'CK006',
                    MESSAGE = format('Hold %s does not reserve funds on %s.', r.hold_id, r.debit);
            END IF;
            IF r.status <> 'pending' THEN
                RAISE EXCEPTION USING
                    ERRCODE = 'CK004',
                    MESSAGE = format('Hold %s is %s; it can no longer pay.', r.hold_key, r.status);
            END IF;
            IF r.used > r.hold_left THEN
                RAISE EXCEPTION USING
                    ERRCODE = 'CK005',
                    MESSAGE = format('Hold %s has %s cents left, not %s.', r.hold_key, r.hold_left, r.used);
            END IF;
        END LOOP;
    END IF;

    -- 4. Funds, as found in step 2.
    IF v_short_code IS NOT NULL THEN
        RAISE EXCEPTION USING
            ERRCODE = 'CK001',
            MESSAGE = format('%s has %s cents available; this transfer needs %s cents more.',
                             v_short_label, v_short_available, v_short_needed - v_short_available),
            DETAIL = json_build_object('account', v_short_code, 'available', v_short_available,
                                       'needed', v_short_needed)::text;
    END IF;

    -- 5. Entries: credits first, then debits, each in leg order; each account's balance_after
    -- runs on from its locked balance.
    FOR i IN 1..v_legs LOOP
        v_at := array_position(v_codes, p_credits[i]);
        v_balances[v_at] := v_balances[v_at] + p_amounts[i];
        e_accounts[i] := v_ids[v_at];
        e_legs[i] := i - 1;
        e_amounts[i] := p_amounts[i];
        e_after[i] := v_balances[v_at];
        e_holds[i] := NULL;
    END LOOP;
    FOR i IN 1..v_legs LOOP
        v_at := array_position(v_codes, p_debits[i]);
        v_balances[v_at] := v_balances[v_at] - p_amounts[i];
        e_accounts[v_legs + i] := v_ids[v_at];
        e_legs[v_legs + i] := i - 1;
        e_amounts[v_legs + i] := -p_amounts[i];
        e_after[v_legs + i] := v_balances[v_at];
        e_holds[v_legs + i] := p_holds[i];
    END LOOP;
    INSERT INTO ledger_entry (transfer_id, account_id, leg, amount, balance_after, hold_id, created_at)
    SELECT o_transfer_id, e.account_id, e.leg, e.amount, e.balance_after, e.hold_id, p_at
      FROM unnest(e_accounts, e_legs, e_amounts, e_after, e_holds)
           WITH ORDINALITY AS e(account_id, leg, amount, balance_after, hold_id, n)
     ORDER BY e.n;

    -- 6. Stored balances in one UPDATE, then the holds' captures.
    UPDATE ledger_account AS a
       SET balance = a.balance + v_credited[array_position(v_ids, a.id)] - v_debited[array_position(v_ids, a.id)],
           debits_posted = a.debits_posted + v_debited[array_position(v_ids, a.id)],
           credits_posted = a.credits_posted + v_credited[array_position(v_ids, a.id)],
           held = a.held - v_captured[array_position(v_ids, a.id)],
           version = a.version + 1
     WHERE a.id = ANY (v_ids);

    IF v_has_holds THEN
        UPDATE ledger_hold AS h
           SET captured = h.captured + u.used
          FROM (SELECT l.hold_id, sum(l.amount)::bigint AS used
                  FROM unnest(p_amounts, p_holds) AS l(amount, hold_id)
                 WHERE l.hold_id IS NOT NULL
                 GROUP BY l.hold_id) AS u
         WHERE h.id = u.hold_id;
    END IF;
END;
$$;
"""

DROP_POST_LEG = r"""
DROP FUNCTION IF EXISTS ledger_post_leg(text, text, text, timestamptz, date, jsonb, text, bigint, text, text, bigint);
"""

DROP_POST_TRANSFER = r"""
DROP FUNCTION IF EXISTS ledger_post_transfer(
    text, text, text, timestamptz, date, jsonb, text, bigint, text[], text[], bigint[], bigint[]
);
"""


class Migration(migrations.Migration):
    dependencies = [("ledger", "0001_squashed_0009_ledger")]

    operations = [
        migrations.RunSQL(DROP_POST_LEG, migrations.RunSQL.noop),
        migrations.RunSQL(POST_TRANSFER, DROP_POST_TRANSFER),
    ]
