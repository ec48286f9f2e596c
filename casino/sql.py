"""The casino app's SQL text, all of it. Each statement here is run on every request or tap of
some kind, and building it through the ORM would cost more client CPU than the database spends
running it; its column lists come from the models' own fields (``casino.rows``), and the
``*_FIELDS`` lists say the order its rows come back in.

The casino's modules run these with ``connection.cursor()`` or ``casino.rows.one_row``; nothing
else in the app writes SQL but the readiness probe's ``SELECT 1`` (``casino/observability/health.py``,
which this module cannot be imported into without an import cycle).
"""

from __future__ import annotations

from casino.models import ApiToken, IdempotencyRecord, Player, Session, User
from casino.rows import columns_of
from ledger.models import Account

USER_FIELDS = list(User._meta.concrete_fields)

# ------------------------------------------------------------------ who is asking (every request)

TOKEN_FIELDS = list(ApiToken._meta.concrete_fields)
# An API token with its user, in one statement: the ORM's ``select_related`` costs more to build.
TOKEN_WITH_USER = (
    f"SELECT {columns_of(TOKEN_FIELDS, 't')}, {columns_of(USER_FIELDS, 'u')} "
    f"FROM {ApiToken._meta.db_table} AS t JOIN {User._meta.db_table} AS u ON u.id = t.user_id "
    "WHERE t.digest = %s"
)

SESSION_FIELDS = list(Session._meta.concrete_fields)
# A browser session with its signed-in user, in one statement: through the ORM, two statements
# that cost more to build and decode than to answer.
SESSION_AND_USER = (
    f"SELECT {columns_of(SESSION_FIELDS, 's')}, {columns_of(USER_FIELDS, 'u')}"
    f" FROM {Session._meta.db_table} AS s LEFT JOIN {User._meta.db_table} AS u ON u.id = s.user_id"
    " WHERE s.session_key = %s AND s.expire_date > %s"
)
# A user by id, when the session's read did not bring it: plain for the same reason.
USER = f"SELECT {columns_of(USER_FIELDS)} FROM {User._meta.db_table} WHERE id = %s"

# ------------------------------------------------------------------ a player with user and wallet

PLAYER_FIELDS = list(Player._meta.concrete_fields)
WALLET_FIELDS = list(Account._meta.concrete_fields)
# A player with their user and wallet in one statement (a kiosk's balance read runs it each
# time): through the ORM (``select_related``), compiling it costs more client CPU than running it.
_PLAYER_WITH_USER_AND_WALLET = (
    f"SELECT {columns_of(PLAYER_FIELDS, 'p')}, {columns_of(USER_FIELDS, 'u')},"
    f" {columns_of(WALLET_FIELDS, 'w')} FROM {Player._meta.db_table} AS p"
    f" JOIN {User._meta.db_table} AS u ON u.id = p.user_id"
    f" JOIN {Account._meta.db_table} AS w ON w.id = p.wallet_id WHERE "
)
PLAYER_OF_USER = _PLAYER_WITH_USER_AND_WALLET + "p.user_id = %s"
PLAYER_BY_ID = _PLAYER_WITH_USER_AND_WALLET + "p.id = %s"
PLAYER_BY_ID_OF_USER = _PLAYER_WITH_USER_AND_WALLET + "p.id = %s AND p.user_id = %s"

# ------------------------------------------------------------------ balances

# Every player's wallet and the sum of their layout accounts in one statement (a kiosk's poll,
# each seat row of a dealer's screen): through the ORM, the wallet then an aggregate cost more
# client CPU than the database spends on them. Parameters: the layout purpose, then the
# players' ids, wallet ids and holder tags as three arrays.
BALANCES = (
    f"SELECT x.player, w.balance, w.held, COALESCE((SELECT sum(a.balance) FROM {Account._meta.db_table} a"
    " WHERE a.holder = x.holder AND a.purpose = %s), 0)"
    " FROM unnest(%s::bigint[], %s::bigint[], %s::text[]) AS x(player, wallet, holder)"
    f" JOIN {Account._meta.db_table} w ON w.id = x.wallet"
)
# The same, after one account's own balance (its player NULL): a dealer's screen after a tap
# shows the tray's balance beside the seated players' chips, and reads them together.
ACCOUNT_AND_BALANCES = (
    f"SELECT NULL::bigint, balance, 0::bigint, 0::numeric FROM {Account._meta.db_table} WHERE code = %s"
    f" UNION ALL {BALANCES}"
)

# ------------------------------------------------------------------ run once per key

_IDEMPOTENCY = {field.name: field for field in IdempotencyRecord._meta.concrete_fields}
CLAIMED_FIELDS = [
    _IDEMPOTENCY[name] for name in ("user", "key", "method", "path", "request_hash", "created_at")
]
STORED_FIELDS = [_IDEMPOTENCY["status_code"], _IDEMPOTENCY["response_body"]]
# Every money-moving POST and console tap claims its key and stores its outcome: the ORM's
# get_or_create (a read, a savepoint, the insert, its release) cost more than the action's own
# statements, and ON CONFLICT has no ORM spelling that waits for a twin.
CLAIM_KEY = (
    f"INSERT INTO {IdempotencyRecord._meta.db_table} ({columns_of(CLAIMED_FIELDS)})"
    f" VALUES ({', '.join(['%s'] * len(CLAIMED_FIELDS))})"
    ' ON CONFLICT ("user_id", "key") DO NOTHING RETURNING "id"'
)
STORE_OUTCOME = (
    f'UPDATE {IdempotencyRecord._meta.db_table} SET ({columns_of(STORED_FIELDS)}) = (%s, %s) WHERE "id" = %s'
)

# ------------------------------------------------------------------ the reports' replica (casino.replica)

# How far behind the primary a streaming replica is, in one cheap statement on the replica: is it
# one, is its WAL receiver streaming, seconds since the last transaction it replayed when it has
# received WAL it has not replayed yet (0 when it has replayed all it has), and how far it has
# replayed, in bytes of WAL. Catalog functions: the ORM has no spelling of them.
REPLICA_STANDING = (
    "SELECT pg_is_in_recovery(), (SELECT status FROM pg_stat_wal_receiver),"
    " CASE WHEN pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn() THEN 0"
    " ELSE extract(epoch FROM clock_timestamp() - pg_last_xact_replay_timestamp()) END,"
    " pg_last_wal_replay_lsn() - '0/0'::pg_lsn"
)
# Where the primary's WAL ends now, in bytes: a replica that has replayed this far has every
# transaction committed before this statement ran.
PRIMARY_WAL_POSITION = "SELECT pg_current_wal_insert_lsn() - '0/0'::pg_lsn"
