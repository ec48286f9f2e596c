#!/usr/bin/env bash
# web: migrate then serve; worker / beat: Celery. Settings come only from the environment.
set -euo pipefail
role=${1:-web}
case "$role" in
  web)
    python manage.py migrate --noinput
    rm -rf "${PROMETHEUS_MULTIPROC_DIR:?}"/* 2>/dev/null || true
    exec gunicorn casino.wsgi:application -c deploy/gunicorn.conf.py
    ;;
  worker)
    # One pool per queue (deploy/README.md): `worker floor`, or CELERY_QUEUES; none: every queue.
    # Niceness: background work yields a contended core to the web requests.
    queues=${2:-${CELERY_QUEUES:-}}
    exec nice -n "${CELERY_NICE:-10}" celery -A casino worker --loglevel=INFO \
      --concurrency="${CELERY_CONCURRENCY:-2}" ${queues:+--queues="$queues" --hostname="${queues//,/-}@%h"}
    ;;
  beat)
    exec celery -A casino beat --loglevel=INFO --schedule=/tmp/celerybeat-schedule
    ;;
  *)
    exec "$@"
    ;;
esac
