# Sourced by the CLI tests that need a PostgreSQL server (after lib.sh):
# pg_init DIR starts a throwaway one on a private Unix socket in DIR/pg (trust
# authentication, no TCP, no fsync) with a database rt, and sets URL for it;
# pg start|stop [...] runs pg_ctl on it; sql TEXT runs a statement in rt;
# pg_cleanup stops it at once. PGBIN is empty where PostgreSQL is not installed.
PGBIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
pg() { runuser -u postgres -- "$PGBIN/pg_ctl" -D "$PGDIR/data" -w -l "$PGDIR/log" \
  -o "-k $PGDIR -c listen_addresses='' -p 5432 -c fsync=off" "$@" >/dev/null 2>&1; }
sql() { psql -X -A -t -h "$PGDIR" -U postgres rt -c "$1"; }
pg_init() {
  PGDIR=$1/pg
  mkdir -p "$PGDIR" && chown postgres "$PGDIR"
  URL="postgresql://postgres@/rt?host=$PGDIR"
  (cd "$PGDIR" && runuser -u postgres -- "$PGBIN/initdb" -D "$PGDIR/data" -U postgres --auth=trust --no-sync >/dev/null 2>&1) &&
    pg start && runuser -u postgres -- "$PGBIN/createdb" -h "$PGDIR" -U postgres rt
}
pg_cleanup() {
  [ -d "${PGDIR:-}/data" ] && runuser -u postgres -- "$PGBIN/pg_ctl" -D "$PGDIR/data" -m immediate stop >/dev/null 2>&1
}
