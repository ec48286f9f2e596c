"""The tables app's SQL text, all of it, and why each statement is SQL rather than the ORM.

Two kinds: the few statements every tap runs, where building them through the ORM would cost
more client CPU than the database spends running them (their column lists come from the models'
own fields, ``casino.rows``, and the ``*_FIELDS`` lists say the order rows come back in); and
the night audit's recomputations over a whole gaming day, aggregates the ORM cannot spell
(``FILTER``, ``hashtextextended``, ``EXCEPT ALL``) or rows it would only slow down as instances.

The app's modules run these with ``connection.cursor()``, ``casino.rows.one_row`` or the audit's
``sql_rows``; nothing else in the app writes SQL. This module sits just above ``tables.models``
(pyproject.toml's layers), so every module of the app may import it.
"""

from __future__ import annotations

from functools import cache

from django.db import connection

from casino.models import Player, User
from casino.rows import cast_placeholders, columns_of
from ledger.models import Account
from tables.models import (
    LIVE_ROUND_STATUSES,
    Correction,
    Round,
    RoundAction,
    RoundSettlement,
    RoundStatus,
    Seat,
    Table,
    TableSession,
)

# ============================================================================ locks (tables.locks)

# What a round action reads of its locked table: its name (for words), game, status, limits,
# dealer (who may deal) and tray. Its rules, ante and creation time stay deferred: an action
# never uses them, and its rules are JSON, decoded on every read.
LOCKED_TABLE_FIELDS = [
    f
    for f in Table._meta.concrete_fields
    if f.attname in {"id", "name", "game", "status", "min_bet", "max_bet", "dealer_id", "tray_id"}
]
# The table a round is dealt at, its row locked, found through the round in the same statement:
# every round action runs it.
LOCK_TABLE_OF_ROUND = (
    f"SELECT {columns_of(LOCKED_TABLE_FIELDS, 't')} FROM {Table._meta.db_table} AS t "
    f"WHERE t.id = (SELECT r.table_id FROM {Round._meta.db_table} AS r WHERE r.id = %s) "
    "FOR UPDATE OF t"
)
# The same table held only against deletion and key changes (what a foreign key needs), then
# the round: ``FOR KEY SHARE`` has no ORM spelling.
SHARE_TABLE_OF_ROUND = (
    f"SELECT t.id FROM {Table._meta.db_table} AS t "
    f"WHERE t.id = (SELECT r.table_id FROM {Round._meta.db_table} AS r WHERE r.id = %s) "
    "FOR KEY SHARE OF t"
)
SHARE_ROUND = f"SELECT r.id FROM {Round._meta.db_table} AS r WHERE r.id = %s FOR KEY SHARE OF r"

# ============================================================================ a round action (tables.rounds)

_ROUNDS = Round._meta.db_table

# The round's actions after a version (its first parameter), in order: a JSON aggregate.
_NEWER_PAYLOADS = f"""
    SELECT COALESCE(jsonb_agg(a.payload ORDER BY a.seq), '[]'::jsonb)
      FROM {RoundAction._meta.db_table} AS a
     WHERE a.round_id = {_ROUNDS}.id AND a.seq > %s AND a.voided_by_id IS NULL
"""
# A round waiting for a correction's approval is paused: the correction voids its last actions.
_CORRECTION_PENDING = f"""
    EXISTS (SELECT 1 FROM {Correction._meta.db_table} AS c
             WHERE c.round_id = {_ROUNDS}.id AND c.status = 'pending')
"""
# The round's live settlements so far: an action's answer gives the total beside its own rows.
_SETTLEMENTS_SO_FAR = f"""
    (SELECT count(*) FROM {RoundSettlement._meta.db_table} AS s
      WHERE s.round_id = {_ROUNDS}.id AND s.voided_by_id IS NULL)
"""
# The wallets of the players seated at the round's table now: a bet must name one of them, and
# a turn pays them.
_SEATED_WALLETS = f"""
    SELECT COALESCE(jsonb_object_agg(s.player_id, w.code), '{{}}'::jsonb)
      FROM {Seat._meta.db_table} AS s
      JOIN {Player._meta.db_table} AS p ON p.id = s.player_id
      JOIN {Account._meta.db_table} AS w ON w.id = p.wallet_id
     WHERE s.table_id = {_ROUNDS}.table_id AND s.left_at IS NULL
"""

LOCKED_ROUND_FIELDS = [f for f in Round._meta.concrete_fields if f.attname != "state"]
# The round locked, with the four subqueries above, in one statement every action runs: the
# ORM's spelling (a JSONBAgg subquery and the rest) costs more to compile than the query to
# run. The stored public state is not read: the action recomputes it.
LOCK_ROUND = f"""
    SELECT {columns_of(LOCKED_ROUND_FIELDS, _ROUNDS)},
           ({_NEWER_PAYLOADS}), ({_CORRECTION_PENDING}), ({_SETTLEMENTS_SO_FAR}), ({_SEATED_WALLETS})
      FROM {_ROUNDS} WHERE {_ROUNDS}.id = %s
       FOR UPDATE
"""

ACTION_FIELDS = [f for f in RoundAction._meta.concrete_fields if not f.primary_key]
ROUND_FIELDS = {f.name: f for f in Round._meta.concrete_fields}
# The settlement rows' action is the one inserted beside them, in the same statement.
SETTLEMENT_FIELDS = [
    f for f in RoundSettlement._meta.concrete_fields if not f.primary_key and f.attname != "action_id"
]


@cache
def write_action(settlements: int, changed: tuple[str, ...]) -> str:
    """An action, its ``settlements`` rows and the round's ``changed`` fields in one statement
    (a data-modifying WITH): spelled as three through the ORM, they cost a tap more client CPU to
    build than PostgreSQL spends running them. Parameters: the action's ``ACTION_FIELDS``, each
    row's ``SETTLEMENT_FIELDS``, the changed fields' values, the round's id."""
    round_table, settled = _ROUNDS, RoundSettlement._meta.db_table
    rows = ", ".join([f"({cast_placeholders(SETTLEMENT_FIELDS)})"] * settlements)
    settlement_rows = (
        f""", settled AS (
            INSERT INTO {settled} (action_id, {columns_of(SETTLEMENT_FIELDS)})
            SELECT action.id, row.* FROM action, (VALUES {rows}) AS row)"""
        if settlements
        else ""
    )
    assignments = ", ".join(
        f"{connection.ops.quote_name(str(ROUND_FIELDS[name].column))} = %s" for name in changed
    )
    return f"""
        WITH action AS (
            INSERT INTO {RoundAction._meta.db_table} ({columns_of(ACTION_FIELDS)})
            VALUES ({", ".join(["%s"] * len(ACTION_FIELDS))}) RETURNING id){settlement_rows}
        UPDATE {round_table} SET {assignments} WHERE {round_table}.id = %s
    """


_SESSIONS = TableSession._meta.db_table
_LIVE = ", ".join(f"'{status.value}'" for status in LIVE_ROUND_STATUSES)
# What a new round needs to know of its table's rounds and session (a live round? the last
# settled round's carry, the last number, the open session), in one statement instead of four.
TABLE_FACTS = f"""
    SELECT EXISTS (SELECT 1 FROM {_ROUNDS} WHERE table_id = %(t)s AND status IN ({_LIVE})),
           (SELECT carry FROM {_ROUNDS} WHERE table_id = %(t)s AND status = '{RoundStatus.SETTLED.value}'
             ORDER BY number DESC LIMIT 1),
           COALESCE((SELECT max(number) FROM {_ROUNDS} WHERE table_id = %(t)s), 0),
           (SELECT id FROM {_SESSIONS} WHERE table_id = %(t)s AND closed_at IS NULL ORDER BY id LIMIT 1)
"""

# ============================================================================ reads (tables.selectors)

TABLE_AND_TRAY = ((Table, list(Table._meta.concrete_fields)), (Account, list(Account._meta.concrete_fields)))
SEAT_PARTS = (
    (Seat, list(Seat._meta.concrete_fields)),
    (Player, list(Player._meta.concrete_fields)),
    (User, list(User._meta.concrete_fields)),
    (Account, list(Account._meta.concrete_fields)),  # the player's wallet
)
SEATS_FROM = sum(len(fields) for _, fields in TABLE_AND_TRAY)  # where a row's seat begins
_SEATED_COLUMNS = ", ".join(
    columns_of(fields, f"t{n}") for n, (_, fields) in enumerate(TABLE_AND_TRAY + SEAT_PARTS)
)
# A table with its tray and one row per seated player (one row with NULL seats at an empty
# table). Every console tap reads its table so; through the ORM (``select_related`` and a
# prefetch), two statements cost far more client CPU to build and decode than one to answer.
TABLE_WITH_SEATS = (
    f"SELECT {_SEATED_COLUMNS}"
    f" FROM {Table._meta.db_table} AS t0"
    f" JOIN {Account._meta.db_table} AS t1 ON t1.id = t0.tray_id"
    f" LEFT JOIN {Seat._meta.db_table} AS t2 ON t2.table_id = t0.id AND t2.left_at IS NULL"
    f" LEFT JOIN {Player._meta.db_table} AS t3 ON t3.id = t2.player_id"
    f" LEFT JOIN {User._meta.db_table} AS t4 ON t4.id = t3.user_id"
    f" LEFT JOIN {Account._meta.db_table} AS t5 ON t5.id = t3.wallet_id"
    " WHERE t0.id = %s ORDER BY t2.number"
)

# Whether a round exists (at a table): asked before every API action that carries an
# Idempotency-Key, where the ORM's ``exists()`` costs twice the statement.
ROUND_EXISTS = f"SELECT 1 FROM {_ROUNDS} WHERE id = %s"
ROUND_EXISTS_AT_TABLE = f"{ROUND_EXISTS} AND table_id = %s"

# ============================================================================ tables.services

# A new table's id, reserved first so its tray account is named after it: the ORM has no way
# to take a sequence's next value.
NEXT_TABLE_ID = f"SELECT nextval(pg_get_serial_sequence('{Table._meta.db_table}', 'id'))"

# ============================================================================ tables.replay

# For rounds voided whole (misdeals): every settlement row and action with its transfer,
# whether it is live, and whether a transfer reverses it, in one statement over two tables.
VOID_ROWS = f"""
    SELECT x.round_id, x.transfer_id, x.live,
           EXISTS (SELECT 1 FROM ledger_transfer r WHERE r.reverses_id = x.transfer_id)
      FROM (SELECT round_id, transfer_id, voided_by_id IS NULL AS live
              FROM {RoundSettlement._meta.db_table} WHERE round_id = ANY(%s)
            UNION ALL
            SELECT round_id, transfer_id, voided_by_id IS NULL
              FROM {RoundAction._meta.db_table} WHERE round_id = ANY(%s)) x
"""

# ============================================================================ the night audit (tables.audit)

# One run per report at a time: a PostgreSQL session lock (released if the worker dies), which
# the ORM has no spelling for. Parameters: the lock's namespace and the report's id.
AUDIT_TRY_LOCK = "SELECT pg_try_advisory_lock(%s, %s)"
AUDIT_UNLOCK = "SELECT pg_advisory_unlock(%s, %s)"

# The day's transfers, counted: what the zero-sum check covered.
AUDIT_TRANSFERS_OF_DAY = "SELECT COUNT(*) FROM ledger_transfer WHERE gaming_day = %s"

# The day's transfers whose entries do not sum to 0, or that have fewer than two: an aggregate
# over every entry of the day, read as plain rows.
AUDIT_UNBALANCED_TRANSFERS = """
    SELECT t.id, t.key, t.kind, COALESCE(SUM(e.amount), 0), COUNT(e.id),
           t.meta ->> 'table', t.meta ->> 'round'
      FROM ledger_transfer t
      LEFT JOIN ledger_entry e ON e.transfer_id = t.id
     WHERE t.gaming_day = %s
     GROUP BY t.id
    HAVING COALESCE(SUM(e.amount), 0) <> 0 OR COUNT(e.id) < 2
     ORDER BY t.id
"""

# Every account touched in the day, its stored balance and totals beside the sums of all its
# entries: aggregates with FILTER over a CTE.
AUDIT_ACCOUNT_SUMS = """
    WITH touched AS (
        SELECT DISTINCT e.account_id
          FROM ledger_entry e JOIN ledger_transfer t ON t.id = e.transfer_id
         WHERE t.gaming_day = %s
    ), sums AS (
        SELECT e.account_id,
               COALESCE(SUM(e.amount), 0) AS balance,
               COALESCE(-SUM(e.amount) FILTER (WHERE e.amount < 0), 0) AS debits,
               COALESCE(SUM(e.amount) FILTER (WHERE e.amount > 0), 0) AS credits
          FROM ledger_entry e JOIN touched USING (account_id)
         GROUP BY e.account_id
    )
    SELECT a.id, a.code, a.balance, a.debits_posted, a.credits_posted, s.balance, s.debits, s.credits
      FROM ledger_account a JOIN sums s ON s.account_id = a.id
"""

# Each round transfer of the day against its settlement rows, compared per transfer as (count,
# sum of a hash of each account and signed amount) with ``hashtextextended``, so no sort of the
# day's entries is needed. Parameters: the day, three times.
AUDIT_SETTLEMENTS_VS_LEDGER = """
    WITH round_transfers AS (
        SELECT t.id FROM ledger_transfer t
         WHERE t.gaming_day = %s AND t.meta ? 'round'
           AND NOT (t.kind = 'reversal' AND t.reverses_id IS NOT NULL)
           AND NOT (t.kind = 'pot_split' AND t.meta ? 'session')
    ), ledger_side AS (
        SELECT e.transfer_id, COUNT(*) AS n,
               SUM(hashtextextended(e.account_id::text || ':' || e.amount::text, 0)::numeric) AS h
          FROM ledger_entry e JOIN round_transfers rt ON rt.id = e.transfer_id
         GROUP BY e.transfer_id
    ), settled AS (
        SELECT s.transfer_id, s.from_account AS code, -s.amount AS amount
          FROM tables_roundsettlement s JOIN ledger_transfer t ON t.id = s.transfer_id
         WHERE t.gaming_day = %s
        UNION ALL
        SELECT s.transfer_id, s.to_account, s.amount
          FROM tables_roundsettlement s JOIN ledger_transfer t ON t.id = s.transfer_id
         WHERE t.gaming_day = %s
    ), settlement_side AS (
        SELECT st.transfer_id, COUNT(*) AS n,
               SUM(hashtextextended(COALESCE(a.id::text, st.code) || ':' || st.amount::text, 0)::numeric)
                   AS h
          FROM settled st LEFT JOIN ledger_account a ON a.code = st.code
         GROUP BY st.transfer_id
    )
    SELECT COALESCE(l.transfer_id, s.transfer_id),
           l.n IS NOT DISTINCT FROM s.n AND l.h IS NOT DISTINCT FROM s.h
      FROM ledger_side l FULL JOIN settlement_side s ON s.transfer_id = l.transfer_id
"""

# What differs, leg by leg, for the transfers that did not match: the two sides' legs with
# ``EXCEPT ALL`` each way. Parameters: the transfers' ids, twice.
AUDIT_SETTLEMENT_DIFFERENCES = """
    WITH legs AS (
        SELECT e.transfer_id,
               MAX(a.code) FILTER (WHERE e.amount < 0) AS payer,
               MAX(a.code) FILTER (WHERE e.amount > 0) AS payee,
               MAX(e.amount) FILTER (WHERE e.amount > 0) AS amount
          FROM ledger_entry e JOIN ledger_account a ON a.id = e.account_id
         WHERE e.transfer_id = ANY(%s)
         GROUP BY e.transfer_id, e.leg
    ), settled AS (
        SELECT transfer_id, from_account AS payer, to_account AS payee, amount
          FROM tables_roundsettlement WHERE transfer_id = ANY(%s)
    )
    (SELECT transfer_id, 'ledger', payer, payee, amount FROM legs
     EXCEPT ALL SELECT transfer_id, 'ledger', payer, payee, amount FROM settled)
    UNION ALL
    (SELECT transfer_id, 'settlement', payer, payee, amount FROM settled
     EXCEPT ALL SELECT transfer_id, 'settlement', payer, payee, amount FROM legs)
"""

# The day's reversals of round transfers: whether each mirrors the transfer it reverses (the
# same hash sums as above, amounts negated) and how many of that transfer's settlement rows
# are still live.
AUDIT_REVERSALS = """
    WITH rev AS (
        SELECT r.id, r.reverses_id, r.meta ->> 'table' AS table_ref, r.meta ->> 'round' AS round_ref
          FROM ledger_transfer r JOIN ledger_transfer o ON o.id = r.reverses_id
         WHERE r.gaming_day = %s AND r.kind = 'reversal' AND (o.meta ? 'round' OR r.meta ? 'round')
    ), reversal_side AS (
        SELECT rev.id, COUNT(*) AS n,
               SUM(hashtextextended(e.account_id::text || ':' || e.amount::text, 0)::numeric) AS h
          FROM rev JOIN ledger_entry e ON e.transfer_id = rev.id
         GROUP BY rev.id
    ), original_side AS (
        SELECT rev.id, COUNT(*) AS n,
               SUM(hashtextextended(e.account_id::text || ':' || (-e.amount)::text, 0)::numeric) AS h
          FROM rev JOIN ledger_entry e ON e.transfer_id = rev.reverses_id
         GROUP BY rev.id
    ), rows_of AS (
        SELECT rev.id, COUNT(s.id) AS n, COUNT(s.id) FILTER (WHERE s.voided_by_id IS NULL) AS live
          FROM rev LEFT JOIN tables_roundsettlement s ON s.transfer_id = rev.reverses_id
         GROUP BY rev.id
    )
    SELECT rev.id, rev.reverses_id, rev.table_ref, rev.round_ref,
           rs.n IS NOT DISTINCT FROM os.n AND rs.h IS NOT DISTINCT FROM os.h, rows_of.n, rows_of.live
      FROM rev
      LEFT JOIN reversal_side rs ON rs.id = rev.id
      LEFT JOIN original_side os ON os.id = rev.id
      JOIN rows_of ON rows_of.id = rev.id
     ORDER BY rev.id
"""

# The day's voided settlement rows whose transfer no transfer reverses: grouped per transfer
# with a NOT EXISTS, read as plain rows.
AUDIT_UNREVERSED_VOIDS = """
    SELECT s.transfer_id, MIN(s.round_id), MIN(s.voided_by_id), MIN(r.table_id)
      FROM tables_roundsettlement s
      JOIN ledger_transfer t ON t.id = s.transfer_id
      JOIN tables_round r ON r.id = s.round_id
     WHERE t.gaming_day = %s AND s.voided_by_id IS NOT NULL
       AND NOT EXISTS (SELECT 1 FROM ledger_transfer x WHERE x.reverses_id = s.transfer_id)
     GROUP BY s.transfer_id
     ORDER BY s.transfer_id
"""

# The day's cash hour by hour: entries grouped by their hour since the day's first (epoch
# arithmetic the ORM cannot group by). Parameters: the first hour's start, the day.
AUDIT_CASH_FLOW_BY_HOUR = """
    SELECT floor(extract(epoch FROM t.created_at - %s) / 3600)::int, t.kind, SUM(e.amount)
      FROM ledger_entry e
      JOIN ledger_transfer t ON t.id = e.transfer_id
     WHERE t.gaming_day = %s AND t.kind IN ('buy_in', 'cash_out', 'fill', 'credit') AND e.amount > 0
     GROUP BY 1, 2
"""

# The day's tray postings by tray and kind: an aggregate over a three-table join, as rows.
AUDIT_TRAY_POSTINGS = """
    SELECT e.account_id, t.kind, SUM(e.amount)
      FROM ledger_entry e
      JOIN ledger_transfer t ON t.id = e.transfer_id
      JOIN ledger_account a ON a.id = e.account_id
     WHERE t.gaming_day = %s AND a.purpose = 'tray'
     GROUP BY e.account_id, t.kind
"""

# The day's rake by table, grouped by a key of the transfers' JSON meta.
AUDIT_RAKE_BY_TABLE = """
    SELECT t.meta ->> 'table', SUM(e.amount)
      FROM ledger_entry e
      JOIN ledger_transfer t ON t.id = e.transfer_id
      JOIN ledger_account a ON a.id = e.account_id
     WHERE t.gaming_day = %s AND a.purpose = 'rake_revenue'
     GROUP BY 1
"""

# The rounds' live actions with each payload as text, so the replay decodes each distinct
# text once (half of a night's actions are the same few texts).
AUDIT_ROUND_ACTIONS = (
    "SELECT id, round_id, seq, payload::text FROM tables_roundaction"
    " WHERE round_id = ANY(%s) AND voided_by_id IS NULL ORDER BY round_id, seq"
)
# The rounds' live settlement rows as plain tuples (a night has tens of thousands).
AUDIT_ROUND_SETTLEMENTS = (
    "SELECT round_id, action_id, kind, from_account, to_account, amount FROM tables_roundsettlement"
    " WHERE round_id = ANY(%s) AND voided_by_id IS NULL"
)

# What each of the corrections' reversals moved: its credits summed, as (transfer, cents).
AUDIT_REVERSED_AMOUNTS = (
    "SELECT transfer_id, SUM(amount) FROM ledger_entry WHERE transfer_id = ANY(%s) AND amount > 0"
    " GROUP BY transfer_id"
)


# --------------------------------------------------------------------------- slips

# The next number of a slip series. The counter row stays locked until the slip's transaction
# ends, so numbers are consecutive and a rolled-back slip gives its number back (a sequence
# would leave a gap). One statement whether or not the series has begun.
NEXT_SLIP_SERIAL = """
    INSERT INTO tables_slipcounter AS counter (kind, year, last) VALUES (%s, %s, 1)
    ON CONFLICT (kind, year) DO UPDATE SET last = counter.last + 1
    RETURNING counter.last
"""


# --------------------------------------------------------------------------- evidence (tables.evidence)

# Each hashed record's fields as the export writes them: the same values, in the same spelling,
# as the evidence triggers hashed (tables/migrations/0016_evidence.py; ledger.evidence.records
# FIELDS gives their order). Built as JSON by PostgreSQL so every jsonb value keeps its exact text.
EVIDENCE_RECORDS: dict[str, tuple[str, str, tuple[tuple[str, str], ...]]] = {
    # type: (table, its timestamp column, ((field, SQL expression of x), ...))
    "round_action": (
        "tables_roundaction",
        "at",
        (("round", "x.round_id"), ("seq", "x.seq"), ("payload", "x.payload"), ("actor", "x.actor_id"),
         ("at", "evidence_time(x.at)"), ("transfer", "x.transfer_id")),
    ),
    "slip": (
        "tables_slip",
        "at",
        (("kind", "x.kind"), ("year", "x.year"), ("serial", "x.serial"), ("number", "x.number"),
         ("table", "x.table_id"), ("session", "x.session_id"),
         ("gaming_day", "to_char(x.gaming_day, 'YYYY-MM-DD')"), ("reason", "x.reason"), ("count", "x.count"),
         ("amount", "x.amount"), ("expected", "x.expected"), ("variance", "x.variance"),
         ("requested_by", "x.requested_by_id"), ("at", "evidence_time(x.at)")),
    ),
    "slip_signature": (
        "tables_slipsignature",
        "at",
        (("slip", "x.slip_id"), ("user", "x.user_id"), ("role", "x.role"), ("at", "evidence_time(x.at)"),
         ("note", "x.note")),
    ),
    "correction": (
        "tables_correction",
        "requested_at",
        (("round", "x.round_id"), ("void", "x.void"), ("from_seq", "x.from_seq"),
         ("at_version", "x.at_version"), ("reason", "x.reason"), ("requested_by", "x.requested_by_id"),
         ("at", "evidence_time(x.requested_at)")),
    ),
    "action_log": (
        "casino_auditlog",
        "at",
        (("at", "evidence_time(x.at)"), ("actor", "x.actor_id"), ("action", "x.action"),
         ("object_type", "x.object_type"), ("object_id", "x.object_id"), ("data", "x.data"),
         ("request_id", "x.request_id"), ("remote_addr", "host(x.remote_addr)")),
    ),
}  # fmt: skip


def evidence_records(kind: str) -> str:
    """One export line per record of ``kind``: those in the checkpoint's runs of their streams
    (parameters: the streams, first and last places, as three arrays), and those written in the
    day's window with no hash at all (a row inserted around the trigger; parameters: the window's
    start and end), by id. A JSON object built by PostgreSQL, so no jsonb value is re-spelled."""
    table, moment, fields = EVIDENCE_RECORDS[kind]
    body = ", ".join(f"'{name}', {expression}" for name, expression in fields)
    return f"""
        SELECT json_build_object('type', '{kind}', 'id', x.id, 'stream', x.evidence_stream,
                                 'seq', x.evidence_seq, 'previous', encode(x.evidence_previous, 'hex'),
                                 'hash', encode(x.evidence_hash, 'hex'),
                                 'fields', json_build_object({body}))::text
          FROM {table} AS x
         WHERE EXISTS (SELECT 1 FROM unnest(%s::text[], %s::bigint[], %s::bigint[]) AS r(stream, first, last)
                        WHERE x.evidence_stream = r.stream AND x.evidence_seq BETWEEN r.first AND r.last)
            OR (x.evidence_hash IS NULL AND x.{moment} >= %s AND x.{moment} < %s)
         ORDER BY x.id
    """


# The day's transfers with their entries, by id, each as one export line (a transfer whose
# entries are gone still has its line, with none).
EVIDENCE_TRANSFERS = """
    SELECT json_build_object(
               'type', 'transfer', 'id', t.id,
               'hash', (array_agg(encode(e.evidence_hash, 'hex') ORDER BY e.id))[1],
               'fields', json_build_object(
                   'key', t.key, 'kind', t.kind, 'memo', t.memo, 'at', evidence_time(t.created_at),
                   'gaming_day', to_char(t.gaming_day, 'YYYY-MM-DD'), 'meta', t.meta,
                   'fingerprint', t.fingerprint, 'reverses', t.reverses_id,
                   'entries', COALESCE(json_agg(json_build_object(
                       'id', e.id, 'leg', e.leg, 'account', a.code, 'amount', e.amount,
                       'balance_after', e.balance_after, 'hold', e.hold_id, 'seq', e.evidence_seq,
                       'previous', encode(e.evidence_previous, 'hex'), 'hash', encode(e.evidence_hash, 'hex'))
                       ORDER BY e.id) FILTER (WHERE e.id IS NOT NULL), '[]'::json)))::text
      FROM ledger_transfer AS t
      LEFT JOIN ledger_entry AS e ON e.transfer_id = t.id
      LEFT JOIN ledger_account AS a ON a.id = e.account_id
     WHERE t.gaming_day = %s
     GROUP BY t.id
     ORDER BY t.id
"""

# Every chain with links no checkpoint covers yet: where the last checkpoint stopped (0 and no
# hash: nowhere) and where the chain is now. One snapshot, so each head is committed with its links.
EVIDENCE_UNCOVERED = """
    SELECT c.stream, COALESCE(m.seq, 0), m.head, c.links, encode(c.head, 'hex')
      FROM tables_evidencechain AS c
      LEFT JOIN tables_evidencemark AS m ON m.stream = c.stream
     WHERE c.links > COALESCE(m.seq, 0)
     ORDER BY c.stream
"""

# The transactions writing to this database now (but this one), from the server's activity view: a
# checkpoint waits for them, so that a transfer claimed into the day just before its close is
# committed before the day is read.
EVIDENCE_IN_FLIGHT = (
    "SELECT array_agg(backend_xid::text) FROM pg_stat_activity"
    " WHERE datname = current_database() AND backend_xid IS NOT NULL AND pid <> pg_backend_pid()"
)
EVIDENCE_STILL_RUNNING = "SELECT count(*) FROM pg_stat_activity WHERE backend_xid::text = ANY(%s::text[])"
# One checkpoint at a time (each names the one before it): a transaction-scoped advisory lock.
EVIDENCE_CHECKPOINT_LOCK = "SELECT pg_advisory_xact_lock(%s)"


# Win as the regulator reads it (tables.audit.compute.win_data): the cash buy-ins of some days
# with their box, a box's last buy-in, a tray's balance before a moment, and the trays' postings
# by kind per day or per shift (the shift a posting falls in: how many later shifts' starts are at
# or before it).
_TRAY_POSTINGS_FROM = """
  FROM ledger_entry e
  JOIN ledger_transfer t ON t.id = e.transfer_id
  JOIN tables_table tb ON tb.tray_id = e.account_id
"""
WIN_CASH_BUY_INS = f"""
SELECT tb.id, (t.meta ->> 'drop_box')::bigint, t.created_at, -SUM(e.amount)
{_TRAY_POSTINGS_FROM}
 WHERE t.kind = %s AND t.gaming_day BETWEEN %s AND %s
 GROUP BY tb.id, t.id, t.created_at
"""
WIN_LAST_BUY_IN_OF_BOX = """
SELECT (t.meta ->> 'drop_box')::bigint, MAX(t.created_at)
  FROM ledger_transfer t
 WHERE t.kind = %s AND t.gaming_day >= %s AND (t.meta ->> 'drop_box')::bigint = ANY(%s)
 GROUP BY 1
"""
WIN_BALANCE_BEFORE = (
    "SELECT balance_after FROM ledger_entry WHERE account_id = %s AND created_at < %s"
    " ORDER BY created_at DESC, id DESC LIMIT 1"
)
WIN_TRAY_BY_SHIFT = f"""
SELECT tb.id, width_bucket(extract(epoch FROM t.created_at)::float8, %s::float8[]), t.kind, SUM(e.amount)
{_TRAY_POSTINGS_FROM}
 WHERE t.gaming_day = %s
 GROUP BY 1, 2, 3
"""
WIN_TRAY_BY_DAY = f"""
SELECT tb.id, t.gaming_day, t.kind, SUM(e.amount)
{_TRAY_POSTINGS_FROM}
 WHERE t.gaming_day BETWEEN %s AND %s
 GROUP BY 1, 2, 3
"""
