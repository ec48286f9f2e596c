# Shared by make-primary and make-replica (sourced, not run): where PostgreSQL's server programs
# are, and running them as the cluster's owner (PostgreSQL refuses to run as root).

# The server programs of major version $1 (default: the newest installed), or PG_BIN if set.
pg_bin() {
  if [ -n "${PG_BIN:-}" ]; then echo "$PG_BIN"; return; fi
  local found
  if [ -n "${1:-}" ]; then
    found=/usr/lib/postgresql/$1/bin
  else
    found=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
  fi
  if [ ! -x "$found/pg_ctl" ]; then
    echo "PostgreSQL ${1:-} server programs not found (/usr/lib/postgresql/*/bin); install postgresql (deploy/scripts/setup) or set PG_BIN" >&2
    return 1
  fi
  echo "$found"
}

# The OS user that owns the clusters made here: PG_OS_USER, else postgres when run as root, else us.
PG_OS_USER=${PG_OS_USER:-$( [ "$(id -u)" = 0 ] && echo postgres || id -un )}

as_owner() {
  if [ "$(id -un)" = "$PG_OS_USER" ]; then "$@"; else runuser -u "$PG_OS_USER" -- "$@"; fi
}

# A new, empty data directory owned by the cluster's owner (its parents must let that user through).
new_data_dir() {
  local dir=$1
  if [ -e "$dir" ] && [ -n "$(ls -A "$dir" 2>/dev/null)" ]; then
    echo "$dir is not empty: give a new directory" >&2
    return 1
  fi
  mkdir -p "$dir"
  chmod 700 "$dir"
  [ "$(id -un)" = "$PG_OS_USER" ] || chown "$PG_OS_USER:" "$dir"
  # The server's log sits beside the directory, so a base backup of it does not copy the log.
  : >"$dir.log"
  [ "$(id -un)" = "$PG_OS_USER" ] || chown "$PG_OS_USER:" "$dir.log"
}
