"""``ledger_post_leg``: the one-leg transfer without a hold, as scalar PL/pgSQL; and the key first.

Most transfers are one leg without a hold (a bet, a payout, a buy-in). Measured on the 2-core
dev machine, ``ledger_post_transfer``'s general path spent about 0.16 ms more per call than the
same work written with scalars: appending to arrays, ``array_position``, and an UPDATE joined
to ``unnest`` of four arrays. ``ledger_post_leg`` does that one shape with scalars; the Python
wrapper sends every other transfer (several legs, or a capture from a hold) to
``ledger_post_transfer``.

Both functions now claim the idempotency key before they lock any account: keys, then
accounts in primary-key order, then holds, the same order in both, so a call of one cannot
deadlock with a call of the other over the same key. Claiming first also keeps the insert of
the transfer row (and its closed-day trigger) out of the time an account's row lock is held,
which is what bounds throughput on a hot account. If a twin with the same key is in flight,
the INSERT waits for it: when it commits, this call is a replay (same fingerprint) or a
conflict; when it rolls back, this call goes on as the first.

The rules, the refusals (SQLSTATEs ``CK001``..``CK006``, see migration 0005) and their messages
are the same in both functions; ``tests/ledger/test_post_functions.py`` runs the same cases
through each of them.
"""

from django.db import migrations

# Step 1 of both functions, word for word: claim the key, or answer a replay or a conflict.
CLAIM_KEY = r"""    -- 1. The key. A twin in flight makes the INSERT wait for it, then skip (or go on, if it
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
"""

POST_LEG = r"""
CREATE FUNCTION ledger_post_leg(
    p_key text,
    p_kind text,
    p_memo text,
    p_at timestamptz,
    p_day date,
    p_meta jsonb,
    p_fingerprint text,
    p_reverses bigint,
    p_debit text,
    p_credit text,
    p_amount bigint,
    OUT o_transfer_id bigint,
    OUT o_replayed boolean
) LANGUAGE plpgsql AS $$
DECLARE
    v_debit_id bigint;
    v_credit_id bigint;
    v_debit_balance bigint;
    v_credit_balance bigint;
    v_short boolean := false;
    v_label text;
    v_available bigint;
    v_fingerprint text;
    r record;
BEGIN
    o_replayed := false;
    IF (p_debit <> p_credit AND p_amount > 0) IS NOT TRUE THEN
        RAISE EXCEPTION USING
            ERRCODE = 'CK006', MESSAGE = 'Each leg moves a positive amount between two different accounts.';
    END IF;

@CLAIM_KEY@

    -- 2. Both accounts, locked in pk order (a row that changed while we waited for its lock
    -- is re-read, so the figures are the locked row's).
    FOR r IN
        SELECT a.id, a.code, a.name, a.balance, a.held, a.must_not_go_negative AS guarded
          FROM ledger_account AS a WHERE a.code IN (p_debit, p_credit) ORDER BY a.id FOR UPDATE
    LOOP
        IF r.code = p_debit THEN
            v_debit_id := r.id;
            v_debit_balance := r.balance;
            -- The result must still cover what the account's holds reserve.
            IF r.guarded AND r.balance - p_amount < r.held THEN
                v_short := true;
                v_label := coalesce(nullif(r.name, ''), r.code);
                v_available := r.balance - r.held;
            END IF;
        ELSE
            v_credit_id := r.id;
            v_credit_balance := r.balance;
        END IF;
    END LOOP;
    IF v_debit_id IS NULL OR v_credit_id IS NULL THEN
        RAISE EXCEPTION USING
            ERRCODE = 'CK003',
            MESSAGE = format('No such account: %s.', (
                SELECT string_agg(DISTINCT c, ', ' ORDER BY c) FROM unnest(ARRAY[p_debit, p_credit]) AS c
                 WHERE NOT EXISTS (SELECT 1 FROM ledger_account AS a WHERE a.code = c)));
    END IF;

    -- 3. Funds.
    IF v_short THEN
        RAISE EXCEPTION USING
            ERRCODE = 'CK001',
            MESSAGE = format('%s has %s cents available; this transfer needs %s cents more.',
                             v_label, v_available, p_amount - v_available),
            DETAIL = json_build_object('account', p_debit, 'available', v_available, 'needed', p_amount)::text;
    END IF;

    -- 4. Entries, the credit first; then both stored balances in one UPDATE.
    INSERT INTO ledger_entry (transfer_id, account_id, leg, amount, balance_after, hold_id, created_at)
    VALUES (o_transfer_id, v_credit_id, 0, p_amount, v_credit_balance + p_amount, NULL, p_at),
           (o_transfer_id, v_debit_id, 0, -p_amount, v_debit_balance - p_amount, NULL, p_at);
    UPDATE ledger_account AS a
       SET balance = a.balance + CASE WHEN a.id = v_credit_id THEN p_amount ELSE -p_amount END,
           debits_posted = a.debits_posted + CASE WHEN a.id = v_debit_id THEN p_amount ELSE 0 END,
           credits_posted = a.credits_posted + CASE WHEN a.id = v_credit_id THEN p_amount ELSE 0 END,
           version = a.version + 1
     WHERE a.id IN (v_debit_id, v_credit_id);
END;
$$;
""".replace("@CLAIM_KEY@\n", CLAIM_KEY)

# ledger_post_transfer as in migration 0005, with two changes: the key is claimed first (step
# 1), and the one-leg shortcuts are gone (one leg without a hold goes to ledger_post_leg; one
# leg with a hold takes the general path, which handles any number of legs).
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
) LANGUAGE plpgsql AS $$
DECLARE
    v_has_holds boolean := array_remove(p_holds, NULL) <> '{}';
    -- The touched accounts as locked, in pk order, and what the legs do to each.
    v_ids bigint[] := '{}';
    v_codes text[] := '{}';
    v_balances bigint[] := '{}';
    v_debited bigint[] := '{}';
    v_credited bigint[] := '{}';
    v_captured bigint[] := '{}';
    v_wanted bigint := 0;
    -- The first guarded account the transfer would leave short, if any.
    v_short_code text;
    v_short_label text;
    v_short_available bigint;
    v_short_needed bigint;
    v_fingerprint text;
    r record;
BEGIN
    o_replayed := false;

    -- 0. What the Python wrapper refuses first, refused here too for any other caller.
    IF coalesce(cardinality(p_amounts), 0) = 0
       OR cardinality(p_debits) IS DISTINCT FROM cardinality(p_amounts)
       OR cardinality(p_credits) IS DISTINCT FROM cardinality(p_amounts)
       OR cardinality(p_holds) IS DISTINCT FROM cardinality(p_amounts) THEN
        RAISE EXCEPTION USING
            ERRCODE = 'CK006', MESSAGE = 'A transfer needs at least one leg, each with a debit, credit, amount and hold.';
    END IF;
    IF EXISTS (SELECT 1 FROM unnest(p_debits, p_credits, p_amounts) AS l(debit, credit, amount)
                WHERE (l.debit <> l.credit AND l.amount > 0) IS NOT TRUE) THEN
        RAISE EXCEPTION USING
            ERRCODE = 'CK006', MESSAGE = 'Each leg moves a positive amount between two different accounts.';
    END IF;

@CLAIM_KEY@

    -- 2. Accounts, locked in pk order (LockRows sits above the Sort; a row that changed while
    -- we waited for its lock is re-read, so the figures below are the locked row's).
    FOR r IN
        SELECT a.id, a.code, coalesce(nullif(a.name, ''), a.code) AS label, a.balance, a.held,
               a.must_not_go_negative AS guarded, n.debited, n.credited, n.captured, n.wanted
          FROM (SELECT m.code, sum(m.debited)::bigint AS debited, sum(m.credited)::bigint AS credited,
                       sum(m.captured)::bigint AS captured, count(*) OVER () AS wanted
                  FROM (SELECT l.debit AS code, l.amount AS debited, 0::bigint AS credited,
                               CASE WHEN l.hold_id IS NULL THEN 0::bigint ELSE l.amount END AS captured
                          FROM unnest(p_debits, p_amounts, p_holds) AS l(debit, amount, hold_id)
                        UNION ALL
                        SELECT l.credit, 0::bigint, l.amount, 0::bigint
                          FROM unnest(p_credits, p_amounts) AS l(credit, amount)) AS m
                 GROUP BY m.code) AS n
          JOIN ledger_account AS a ON a.code = n.code
         ORDER BY a.id
           FOR UPDATE OF a
    LOOP
        v_wanted := r.wanted;
        v_ids := v_ids || r.id;
        v_codes := v_codes || r.code::text;
        v_balances := v_balances || r.balance;
        v_debited := v_debited || r.debited;
        v_credited := v_credited || r.credited;
        v_captured := v_captured || r.captured;
        -- Legs are simultaneous: what counts is the result, which must still cover what stays held.
        IF v_short_code IS NULL AND r.guarded
           AND r.balance + r.credited - r.debited < r.held - r.captured THEN
            v_short_code := r.code;
            v_short_label := r.label;
            v_short_available := r.balance - r.held;
            v_short_needed := r.debited - r.credited - r.captured;
        END IF;
    END LOOP;
    IF cardinality(v_ids) = 0 OR cardinality(v_ids) < v_wanted THEN
        RAISE EXCEPTION USING
            ERRCODE = 'CK003',
            MESSAGE = format('No such account: %s.', (
                SELECT string_agg(DISTINCT c, ', ' ORDER BY c) FROM unnest(p_debits || p_credits) AS c
                 WHERE NOT EXISTS (SELECT 1 FROM ledger_account AS a WHERE a.code = c)));
    END IF;

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

    -- 5. Entries: credits first, then debits, each in leg order.
    INSERT INTO ledger_entry (transfer_id, account_id, leg, amount, balance_after, hold_id, created_at)
    SELECT o_transfer_id, a.id, m.leg, m.amount,
           a.balance + sum(m.amount) OVER (PARTITION BY a.id ORDER BY m.side, m.leg ROWS UNBOUNDED PRECEDING),
           m.hold_id, p_at
      FROM (SELECT l.credit AS code, (l.leg - 1)::smallint AS leg, l.amount, NULL::bigint AS hold_id, 0 AS side
              FROM unnest(p_credits, p_amounts) WITH ORDINALITY AS l(credit, amount, leg)
            UNION ALL
            SELECT l.debit, (l.leg - 1)::smallint, -l.amount, l.hold_id, 1
              FROM unnest(p_debits, p_amounts, p_holds) WITH ORDINALITY AS l(debit, amount, hold_id, leg)) AS m
      JOIN unnest(v_codes, v_ids, v_balances) AS a(code, id, balance) ON a.code = m.code
     ORDER BY m.side, m.leg;

    -- 6. Stored balances in one UPDATE, then the holds' captures.
    UPDATE ledger_account AS a
       SET balance = a.balance + n.credited - n.debited,
           debits_posted = a.debits_posted + n.debited,
           credits_posted = a.credits_posted + n.credited,
           held = a.held - n.captured,
           version = a.version + 1
      FROM unnest(v_ids, v_debited, v_credited, v_captured) AS n(id, debited, credited, captured)
     WHERE a.id = n.id;

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
""".replace("@CLAIM_KEY@\n", CLAIM_KEY)

DROP_POST_LEG = r"""
DROP FUNCTION IF EXISTS ledger_post_leg(text, text, text, timestamptz, date, jsonb, text, bigint, text, text, bigint);
"""


def _post_transfer_of_0005() -> str:
    """Going back restores migration 0005's ledger_post_transfer, text for text."""
    from importlib import import_module

    previous = import_module("ledger.migrations.0005_post_transfer_function")
    return previous.FORWARD.replace("CREATE FUNCTION", "CREATE OR REPLACE FUNCTION", 1)


class Migration(migrations.Migration):
    dependencies = [("ledger", "0005_post_transfer_function")]

    operations = [
        migrations.RunSQL(POST_LEG, DROP_POST_LEG),
        migrations.RunSQL(POST_TRANSFER, _post_transfer_of_0005()),
    ]
