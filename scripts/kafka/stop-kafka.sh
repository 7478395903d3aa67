#!/usr/bin/env bash
# Stops the Kafka broker started by start-kafka.sh from the same work dir, by the pid
# in $KAFKA_WORK/kafka.pid only: SIGTERM (controlled shutdown), then SIGKILL after
# KAFKA_STOP_TIMEOUT seconds (default 30). Never touches a broker it did not start.
#
# Usage: bash scripts/kafka/stop-kafka.sh
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
WORK=${KAFKA_WORK:-$HERE/work}
PIDFILE=$WORK/kafka.pid
STOP_TIMEOUT=${KAFKA_STOP_TIMEOUT:-30}

log() { echo "[stop-kafka] $*"; }

if [ ! -f "$PIDFILE" ]; then
  log "no pid file ($PIDFILE): no broker started from this work dir is running"
  exit 0
fi
PID=$(cat "$PIDFILE" 2>/dev/null || true)
if ! [[ "$PID" =~ ^[0-9]+$ ]] || ! kill -0 "$PID" 2>/dev/null; then
  log "broker (pid ${PID:-?}) is not running; removing stale pid file"
  rm -f "$PIDFILE"
  exit 0
fi
if ! tr '\0' ' ' < "/proc/$PID/cmdline" 2>/dev/null | grep -q 'kafka\.Kafka'; then
  log "pid $PID is not a Kafka broker (pid reused?); removing stale pid file, killing nothing"
  rm -f "$PIDFILE"
  exit 0
fi

log "stopping Kafka broker pid $PID (SIGTERM, up to ${STOP_TIMEOUT}s)..."
t0=$SECONDS
kill -TERM "$PID" 2>/dev/null || true
while kill -0 "$PID" 2>/dev/null; do
  if [ $((SECONDS - t0)) -ge "$STOP_TIMEOUT" ]; then
    log "still running after ${STOP_TIMEOUT}s: sending SIGKILL"
    kill -KILL "$PID" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$PID" 2>/dev/null || break; sleep 0.1; done
    break
  fi
  sleep 0.5
done
if kill -0 "$PID" 2>/dev/null; then
  log "ERROR: pid $PID survived SIGKILL"
  exit 1
fi
rm -f "$PIDFILE"
log "stopped (pid $PID, took $((SECONDS - t0))s)"
