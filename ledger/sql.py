"""The ledger's SQL text, all of it: each statement here is one the ORM cannot spell, or one run
so often that building it through the ORM would cost more than running it.

The ledger's modules run these with ``connection.cursor()``; nothing else in the ledger writes SQL.
"""

from __future__ import annotations

from ledger.models import Account

# One call of the posting function (migration 0010): a whole transfer, any number of legs, in
# one round trip. A database function has no ORM spelling.
POST_TRANSFER = """
    SELECT o_transfer_id, o_replayed
      FROM ledger_post_transfer(%s, %s, %s, %s, %s, %s::jsonb, %s, %s::bigint,
                                %s::text[], %s::text[], %s::bigint[], %s::bigint[])
"""

# Moves each account's ``held`` by its delta (every account named is already locked): one UPDATE
# from arrays, where the ORM would send one statement per account.
SHIFT_HELD = f"""
    UPDATE {Account._meta.db_table} AS a SET held = a.held + v.delta, version = a.version + 1
      FROM unnest(%s::bigint[], %s::bigint[]) AS v(id, delta)
     WHERE a.id = v.id
"""

# An account's stored balance: every balance screen and API call reads it, and the statement
# runs in far less time than the ORM takes to build it.
BALANCE = "SELECT balance FROM ledger_account WHERE code = %s"

# An account's balance at a moment: the last entry by then, as a correlated subquery. PostgreSQL
# walks the account's (account, -created_at, -id) index backwards from the moment and stops at
# the first entry, so the read costs the same at 10k or 1M entries. No row: no such account;
# NULL: no entry yet. Plain SQL for the same reason as ``BALANCE``.
BALANCE_AS_OF = """
    SELECT a.id,
           (SELECT e.balance_after
              FROM ledger_entry AS e
             WHERE e.account_id = a.id AND e.created_at <= %s
             ORDER BY e.created_at DESC, e.id DESC
             LIMIT 1)
      FROM ledger_account AS a
     WHERE a.code = %s
"""
