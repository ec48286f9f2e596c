#!/usr/bin/env bash
# The primary's first start (the postgres image runs /docker-entrypoint-initdb.d/*, as postgres):
# the role db-replica streams with, and the pg_hba.conf line that lets it in from the network.
set -euo pipefail
psql -v ON_ERROR_STOP=1 -v password="$POSTGRES_REPLICATION_PASSWORD" \
  --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" <<'SQL'
CREATE ROLE replicator WITH REPLICATION LOGIN PASSWORD :'password';
SQL
echo "host replication replicator all scram-sha-256" >>"$PGDATA/pg_hba.conf"
