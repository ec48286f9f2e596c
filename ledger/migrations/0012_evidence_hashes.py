"""Evidence in the ledger: every transfer is hashed as it is posted, in the posting function.

Each account's history becomes a hash chain (docs/evidence.md): a transfer is one link in the
chain of every account it moves. ``ledger_post_transfer`` already holds each of those accounts'
rows locked and rewrites them, so it reads each chain's head with the lock (step 2), hashes the
transfer's canonical array with PostgreSQL's ``sha256`` (step 5b: its fields, its entries, and
each account's place in its chain and previous hash) and moves the heads in the UPDATE it
already makes (step 6): no statement, lock or round trip is added to a posting.

Columns, written only here and read only by the evidence export (tables.evidence), so no model
lists them:

* ``ledger_account.evidence_links``: how many links the account's chain has;
  ``evidence_head``: the hash of its last link (NULL: none yet);
* ``ledger_entry.evidence_seq`` and ``evidence_previous``: the transfer's place in the entry's
  account chain and the hash of the link before (NULL: the chain's first link);
  ``evidence_hash``: the transfer's hash, stored on each of its entries (the transfer row is
  written before the accounts are locked, so it cannot carry it without a second write).

``evidence_time`` spells a timestamp in the encoding's one form (UTC, microseconds, ``Z``); the
floor's evidence triggers use it too. Transfers posted before this migration carry no hash.
Unapplied, the function goes back to 0010's and the columns go.
"""

from django.db import migrations

EVIDENCE_TIME = r"""
CREATE FUNCTION evidence_time(timestamptz) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN to_char($1 AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"');
"""

COLUMNS = r"""
ALTER TABLE ledger_account ADD COLUMN evidence_links bigint NOT NULL DEFAULT 0,
                           ADD COLUMN evidence_head bytea;
ALTER TABLE ledger_entry ADD COLUMN evidence_seq bigint,
                         ADD COLUMN evidence_previous bytea,
                         ADD COLUMN evidence_hash bytea;
"""

DROP_COLUMNS = r"""
ALTER TABLE ledger_entry DROP COLUMN evidence_seq, DROP COLUMN evidence_previous, DROP COLUMN evidence_hash;
ALTER TABLE ledger_account DROP COLUMN evidence_links, DROP COLUMN evidence_head;
DROP FUNCTION evidence_time(timestamptz);
"""

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
    v_links bigint[] := '{}';
    v_heads bytea[] := '{}';
    v_n integer := 0;
    -- The entries, in the order they are written: credits first, then debits, each in leg order.
    e_accounts bigint[] := '{}';
    e_legs smallint[] := '{}';
    e_amounts bigint[] := '{}';
    e_after bigint[] := '{}';
    e_holds bigint[] := '{}';
    e_codes text[] := '{}';
    -- Evidence: the transfer's hash, and the canonical array it is the hash of.
    v_entries jsonb;
    v_hash bytea;
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
        SELECT a.id, a.code, a.name, a.balance, a.held, a.must_not_go_negative AS guarded,
               a.evidence_links, a.evidence_head
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
        v_links[v_n] := r.evidence_links + 1;
        v_heads[v_n] := r.evidence_head;
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
        e_codes[i] := p_credits[i];
    END LOOP;
    FOR i IN 1..v_legs LOOP
        v_at := array_position(v_codes, p_debits[i]);
        v_balances[v_at] := v_balances[v_at] - p_amounts[i];
        e_accounts[v_legs + i] := v_ids[v_at];
        e_legs[v_legs + i] := i - 1;
        e_amounts[v_legs + i] := -p_amounts[i];
        e_after[v_legs + i] := v_balances[v_at];
        e_holds[v_legs + i] := p_holds[i];
        e_codes[v_legs + i] := p_debits[i];
    END LOOP;

    -- 5b. Evidence (docs/evidence.md): the transfer is the next link in the chain of every account
    -- it moves (each locked above, so no other writer is between); its hash covers its fields,
    -- its entries and each account's place and previous hash, and is stored on its entries.
    -- Built in a loop of plain expressions, not a query: PL/pgSQL evaluates them without the SQL
    -- executor.
    v_entries := '[]'::jsonb;
    FOR i IN 1..2 * v_legs LOOP
        v_at := array_position(v_ids, e_accounts[i]);
        v_entries := v_entries || jsonb_build_array(jsonb_build_array(
            e_legs[i], e_codes[i], e_amounts[i], e_after[i], e_holds[i], v_links[v_at], encode(v_heads[v_at], 'hex')));
    END LOOP;
    v_hash := sha256(convert_to(jsonb_build_array(
        'ck1', 'transfer', o_transfer_id, p_key, p_kind, p_memo, evidence_time(p_at),
        to_char(p_day, 'YYYY-MM-DD'), p_meta, p_fingerprint, p_reverses, v_entries)::text, 'UTF8'));

    INSERT INTO ledger_entry (transfer_id, account_id, leg, amount, balance_after, hold_id, created_at,
                              evidence_seq, evidence_previous, evidence_hash)
    SELECT o_transfer_id, e.account_id, e.leg, e.amount, e.balance_after, e.hold_id, p_at,
           v_links[array_position(v_ids, e.account_id)], v_heads[array_position(v_ids, e.account_id)], v_hash
      FROM unnest(e_accounts, e_legs, e_amounts, e_after, e_holds)
           WITH ORDINALITY AS e(account_id, leg, amount, balance_after, hold_id, n)
     ORDER BY e.n;

    -- 6. Stored balances in one UPDATE, then the holds' captures.
    UPDATE ledger_account AS a
       SET balance = a.balance + v_credited[array_position(v_ids, a.id)] - v_debited[array_position(v_ids, a.id)],
           debits_posted = a.debits_posted + v_debited[array_position(v_ids, a.id)],
           credits_posted = a.credits_posted + v_credited[array_position(v_ids, a.id)],
           held = a.held - v_captured[array_position(v_ids, a.id)],
           version = a.version + 1,
           evidence_links = v_links[array_position(v_ids, a.id)],
           evidence_head = v_hash
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

POST_TRANSFER_0010 = r"""
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


class Migration(migrations.Migration):
    dependencies = [("ledger", "0011_chips_in_transit_purpose")]

    operations = [
        migrations.RunSQL(EVIDENCE_TIME + COLUMNS, DROP_COLUMNS),
        migrations.RunSQL(POST_TRANSFER, POST_TRANSFER_0010),
    ]
