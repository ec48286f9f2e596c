"""``post_transfer`` as one server-side call: one round trip per transfer instead of six.

``ledger_post_transfer`` does, in one statement, what ``ledger.services.post_transfer`` did
in Python between round trips, in the same order and with the same rules:

0. refuse malformed legs (the Python wrapper refuses them first);
1. resolve the legs' account codes and lock those rows in primary-key order;
2. lock the holds the legs capture from, in primary-key order (accounts first, then holds:
   the order every money path uses, so none of them deadlocks with another);
3. claim the idempotency key (``INSERT … ON CONFLICT (key) DO NOTHING``); a replay with the
   same fingerprint returns the first transfer and moves nothing, even if the payer could no
   longer afford it;
4. check each captured hold (it reserves funds on the leg's payer, it is pending, and the
   legs do not take more than is left of it);
5. check each account's net result: a ``must_not_go_negative`` account must still cover what
   stays reserved by its holds (legs are simultaneous, so an account may pay on what it
   receives in the same transfer);
6. write the entries, credits first, so each account's ``balance_after`` chain never dips
   below zero inside a transfer that step 5 allowed;
7. update the stored balances (one UPDATE) and the holds' captured amounts.

Refusals are raised with SQLSTATEs of a class of our own, ``CK``, which the Python wrapper
maps to the ledger's domain errors; the message is the one a person reads, and DETAIL carries
the error's fields as JSON:

    CK001 insufficient_funds   CK002 idempotency_conflict   CK003 unknown_account
    CK004 hold_not_pending     CK005 hold_exceeded          CK006 invalid_transfer

The database's own guards (zero-sum, append-only, closed day, CHECKs) still apply to
everything this function writes; it is not trusted more than any other writer.
"""

from django.db import migrations

FORWARD = r"""
CREATE FUNCTION ledger_post_transfer(
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
    v_credit integer;
    v_debit integer;
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
    IF cardinality(p_amounts) = 1 THEN
        IF (p_debits[1] <> p_credits[1] AND p_amounts[1] > 0) IS NOT TRUE THEN
            RAISE EXCEPTION USING
                ERRCODE = 'CK006', MESSAGE = 'Each leg moves a positive amount between two different accounts.';
        END IF;
    ELSIF EXISTS (SELECT 1 FROM unnest(p_debits, p_credits, p_amounts) AS l(debit, credit, amount)
                   WHERE (l.debit <> l.credit AND l.amount > 0) IS NOT TRUE) THEN
        RAISE EXCEPTION USING
            ERRCODE = 'CK006', MESSAGE = 'Each leg moves a positive amount between two different accounts.';
    END IF;

    -- 1. Accounts, locked in pk order (LockRows sits above the Sort; a row that changed while
    -- we waited for its lock is re-read, so the figures below are the locked row's). One leg
    -- (most transfers) takes a shorter path than many.
    IF cardinality(p_amounts) = 1 THEN
        v_wanted := 2;
        FOR r IN
            SELECT a.id, a.code, coalesce(nullif(a.name, ''), a.code) AS label, a.balance, a.held,
                   a.must_not_go_negative AS guarded
              FROM ledger_account AS a WHERE a.code IN (p_debits[1], p_credits[1]) ORDER BY a.id FOR UPDATE
        LOOP
            v_ids := v_ids || r.id;
            v_codes := v_codes || r.code::text;
            v_balances := v_balances || r.balance;
            IF r.code = p_debits[1] THEN
                v_debited := v_debited || p_amounts[1];
                v_credited := v_credited || 0::bigint;
                v_captured := v_captured || CASE WHEN p_holds[1] IS NULL THEN 0::bigint ELSE p_amounts[1] END;
                -- What counts is the result, which must still cover what stays held.
                IF r.guarded AND r.balance - p_amounts[1] < r.held - v_captured[cardinality(v_captured)] THEN
                    v_short_code := r.code;
                    v_short_label := r.label;
                    v_short_available := r.balance - r.held;
                    v_short_needed := p_amounts[1] - v_captured[cardinality(v_captured)];
                END IF;
            ELSE
                v_debited := v_debited || 0::bigint;
                v_credited := v_credited || p_amounts[1];
                v_captured := v_captured || 0::bigint;
            END IF;
        END LOOP;
    ELSE
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
    END IF;
    IF cardinality(v_ids) = 0 OR cardinality(v_ids) < v_wanted THEN
        RAISE EXCEPTION USING
            ERRCODE = 'CK003',
            MESSAGE = format('No such account: %s.', (
                SELECT string_agg(DISTINCT c, ', ' ORDER BY c) FROM unnest(p_debits || p_credits) AS c
                 WHERE NOT EXISTS (SELECT 1 FROM ledger_account AS a WHERE a.code = c)));
    END IF;

    -- 2. Holds, after the accounts, in pk order.
    IF v_has_holds THEN
        PERFORM count(*) FROM (SELECT id FROM ledger_hold WHERE id = ANY (p_holds) ORDER BY id FOR UPDATE) AS locked;
    END IF;

    -- 3. The key. Same-key retries lock the same accounts, so a twin has committed by now; a
    -- twin on other accounts makes the INSERT wait for it, then skip.
    INSERT INTO ledger_transfer (key, kind, memo, created_at, gaming_day, meta, fingerprint, reverses_id)
    VALUES (p_key, p_kind, p_memo, p_at, p_day, p_meta, p_fingerprint, p_reverses)
    ON CONFLICT (key) DO NOTHING
    RETURNING id INTO o_transfer_id;
    IF o_transfer_id IS NULL THEN
        SELECT t.id, t.fingerprint INTO o_transfer_id, v_fingerprint FROM ledger_transfer AS t WHERE t.key = p_key;
        IF o_transfer_id IS NULL THEN  -- the twin rolled back after we waited: nothing is posted under the key
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

    -- 4. Captured holds, leg by leg.
    IF v_has_holds THEN
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

    -- 5. Funds, as found in step 1.
    IF v_short_code IS NOT NULL THEN
        RAISE EXCEPTION USING
            ERRCODE = 'CK001',
            MESSAGE = format('%s has %s cents available; this transfer needs %s cents more.',
                             v_short_label, v_short_available, v_short_needed - v_short_available),
            DETAIL = json_build_object('account', v_short_code, 'available', v_short_available,
                                       'needed', v_short_needed)::text;
    END IF;

    -- 6. Entries: credits first, then debits, each in leg order.
    IF cardinality(p_amounts) = 1 THEN
        v_credit := array_position(v_codes, p_credits[1]);
        v_debit := array_position(v_codes, p_debits[1]);
        INSERT INTO ledger_entry (transfer_id, account_id, leg, amount, balance_after, hold_id, created_at)
        VALUES (o_transfer_id, v_ids[v_credit], 0, p_amounts[1], v_balances[v_credit] + p_amounts[1], NULL, p_at),
               (o_transfer_id, v_ids[v_debit], 0, -p_amounts[1], v_balances[v_debit] - p_amounts[1], p_holds[1], p_at);
    ELSE
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
    END IF;

    -- 7. Stored balances in one UPDATE, then the holds' captures.
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
"""

BACKWARD = r"""
DROP FUNCTION IF EXISTS ledger_post_transfer(
    text, text, text, timestamptz, date, jsonb, text, bigint, text[], text[], bigint[], bigint[]
);
"""


class Migration(migrations.Migration):
    dependencies = [("ledger", "0004_closed_day_allows_replays")]

    operations = [migrations.RunSQL(FORWARD, BACKWARD)]
