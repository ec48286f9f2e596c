#!/usr/bin/env bash
# db-replica (deploy/compose.yaml): on its first start, a base backup of the primary (as
# deploy/scripts/make-replica makes one); then a hot standby streaming from it. PGPASSWORD is the
# replicator's (POSTGRES_REPLICATION_PASSWORD); pg_basebackup -R keeps it in primary_conninfo.
set -euo pipefail
data=${PGDATA:-/var/lib/postgresql/data}
if [ ! -s "$data/PG_VERSION" ]; then
  until pg_basebackup -h "${PRIMARY_HOST:-db}" -U replicator -D "$data" -X stream -R -c fast; do
    echo "replica: the primary is not taking base backups yet; trying again" >&2
    find "$data" -mindepth 1 -delete
    sleep 2
  done
  chmod 700 "$data"
fi
# hot_standby_feedback: the primary's vacuum keeps the rows a long audit query here still reads,
# instead of replay cancelling that query.
exec postgres -D "$data" -c hot_standby=on -c hot_standby_feedback=on
