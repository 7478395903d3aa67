#!/usr/bin/env bash
# Starts a single-node Apache Kafka broker (KRaft, combined broker+controller) on
# 127.0.0.1:9092 for Herald development and CI. No Docker: the broker jars come
# from Maven Central via scripts/kafka/pom.xml (cached in ~/.m2 and $KAFKA_WORK).
#
# Usage: bash scripts/kafka/start-kafka.sh      (idempotent; stop with stop-kafka.sh)
#
# Environment:
#   KAFKA_WORK           work dir (jars, data, logs, pid file); default scripts/kafka/work
#   KAFKA_VERSION        Kafka version from Maven Central; default 4.3.1
#   KAFKA_HEAP           heap options; default -Xmx2g (test runs create thousands of partitions)
#   KAFKA_OPTS           extra JVM options for the broker
#   KAFKA_START_TIMEOUT  seconds to wait until the broker serves requests; default 90
#   KAFKA_CLEAN=1        wipe the data dir before starting (only when a broker is started)
#
# Needs: Java 17+ (java on PATH or JAVA_HOME), Maven 3 with access to Maven Central.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
KAFKA_VERSION=${KAFKA_VERSION:-4.3.1}
WORK=${KAFKA_WORK:-$HERE/work}
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
LIB=$WORK/lib-$KAFKA_VERSION
DATA=$WORK/data
LOGS=$WORK/logs
PIDFILE=$WORK/kafka.pid
CONFIG=$WORK/server.properties
HOST=127.0.0.1
PORT=9092
BOOTSTRAP=$HOST:$PORT
KAFKA_HEAP=${KAFKA_HEAP:--Xmx2g}
START_TIMEOUT=${KAFKA_START_TIMEOUT:-90}
JAVA=${JAVA_HOME:+$JAVA_HOME/bin/}java

log() { echo "[start-kafka] $*"; }
die() { echo "[start-kafka] ERROR: $*" >&2; exit 1; }

# pid of our broker if the pid file names a live kafka.Kafka process, else empty.
our_pid() {
  [ -f "$PIDFILE" ] || return 0
  local pid
  pid=$(cat "$PIDFILE" 2>/dev/null || true)
  [[ "$pid" =~ ^[0-9]+$ ]] || return 0
  kill -0 "$pid" 2>/dev/null || return 0
  # Guard against a recycled pid: it must really be a Kafka broker.
  tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -q 'kafka\.Kafka' || return 0
  echo "$pid"
}

port_open() { timeout 2 bash -c "exec 3<>/dev/tcp/$HOST/$PORT" 2>/dev/null; }

# Run a Kafka command-line tool class (StorageTool, TopicCommand, ...): small heap,
# fast JIT start, Log4j2's default configuration (errors only, to the console).
tool() {
  "$JAVA" -Xmx256m -XX:TieredStopAtLevel=1 -Dlog4j2.level=ERROR -cp "$LIB/*" "$@"
}

# A real Kafka request (admin client: Metadata/ListTopics), not just a TCP connect.
kafka_answers() {
  port_open || return 1
  timeout 30 "$JAVA" -Xmx256m -XX:TieredStopAtLevel=1 -Dlog4j2.level=ERROR -cp "$LIB/*" \
    org.apache.kafka.tools.TopicCommand --bootstrap-server "$BOOTSTRAP" \
    --command-config "$WORK/tools-client.properties" --list >/dev/null 2>&1
}

show_logs() {
  local f
  for f in "$LOGS/kafka.out" "$LOGS/server.log"; do
    if [ -s "$f" ]; then
      echo "----- last 60 lines of $f -----"
      tail -n 60 "$f"
      echo "----- end of $f -----"
    fi
  done
}

# Wait (bounded) until the broker serves Kafka requests. $1 = pid to watch or empty.
wait_ready() {
  local pid=$1 start=$SECONDS elapsed
  while :; do
    elapsed=$((SECONDS - start))
    if [ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null; then
      echo "[start-kafka] ERROR: broker process $pid exited during startup" >&2
      show_logs >&2
      rm -f "$PIDFILE"
      return 1
    fi
    if kafka_answers; then
      log "broker on $BOOTSTRAP answers Kafka requests (after ${elapsed}s)"
      return 0
    fi
    if [ "$elapsed" -ge "$START_TIMEOUT" ]; then
      echo "[start-kafka] ERROR: broker on $BOOTSTRAP not ready within ${START_TIMEOUT}s" >&2
      show_logs >&2
      return 1
    fi
    if port_open; then
      log "waiting: port $PORT is open, broker not serving requests yet (${elapsed}s)"
    else
      log "waiting: port $PORT not open yet (${elapsed}s)"
    fi
    sleep 2
  done
}

# ---------------------------------------------------------------- checks
command -v "$JAVA" >/dev/null 2>&1 || die "java not found (need Java 17+)"
JAVA_MAJOR=$("$JAVA" -XshowSettings:properties -version 2>&1 \
  | sed -n 's/^ *java\.specification\.version = //p' | head -n1)
JAVA_MAJOR=${JAVA_MAJOR#1.}
[ "${JAVA_MAJOR%%.*}" -ge 17 ] 2>/dev/null || die "Kafka $KAFKA_VERSION needs Java 17+, found '${JAVA_MAJOR:-unknown}' ($JAVA)"

mkdir -p "$LOGS"
cat > "$WORK/tools-client.properties" <<EOF
# admin-client settings for the readiness probe (short timeouts)
request.timeout.ms=5000
default.api.timeout.ms=8000
socket.connection.setup.timeout.ms=2000
socket.connection.setup.timeout.max.ms=2000
EOF

# ------------------------------------------------- 1) already running?
PID=$(our_pid)
if [ -n "$PID" ]; then
  log "Kafka already running (pid $PID, pid file $PIDFILE); checking it answers..."
  if [ -d "$LIB" ]; then
    wait_ready "$PID" || exit 1
  fi
  exit 0
fi

# --------------------------------------- 2) fetch the jars (first run only)
if [ ! -f "$LIB/.complete" ]; then
  command -v mvn >/dev/null 2>&1 || die "mvn not found (needed once to fetch the Kafka jars)"
  log "fetching Kafka $KAFKA_VERSION jars from Maven Central into $LIB (first run only)..."
  t0=$SECONDS
  rm -rf "$LIB.tmp"
  if ! mvn -B -Dstyle.color=never -f "$HERE/pom.xml" -Dkafka.version="$KAFKA_VERSION" \
      dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$LIB.tmp" \
      > "$LOGS/mvn.out" 2>&1; then
    grep -E '\[(ERROR|WARNING)\]' "$LOGS/mvn.out" | head -n 40 >&2 || true
    die "mvn dependency:copy-dependencies failed for Kafka $KAFKA_VERSION (full output: $LOGS/mvn.out)"
  fi
  [ -f "$LIB.tmp/kafka_2.13-$KAFKA_VERSION.jar" ] \
    || die "kafka_2.13-$KAFKA_VERSION.jar missing after mvn copy-dependencies"
  touch "$LIB.tmp/.complete"
  rm -rf "$LIB"
  mv "$LIB.tmp" "$LIB"
  log "fetched $(find "$LIB" -name '*.jar' | wc -l) jars in $((SECONDS - t0))s"
fi

# ----------------------------- 3) a broker not started from this work dir?
if port_open; then
  if kafka_answers; then
    log "a Kafka broker (not started from $WORK) already answers on $BOOTSTRAP; using it"
    exit 0
  fi
  die "port $PORT on $HOST is in use but does not answer Kafka requests"
fi

# ---------------------------------------------- 4) config and storage
rm -f "$PIDFILE"
if [ "${KAFKA_CLEAN:-0}" = 1 ] && [ -d "$DATA" ]; then
  log "KAFKA_CLEAN=1: wiping data dir $DATA"
  rm -rf "$DATA"
fi
if [ -f "$DATA/meta.properties" ] && [ "$(cat "$DATA/.kafka-version" 2>/dev/null)" != "$KAFKA_VERSION" ]; then
  log "data dir was formatted by Kafka '$(cat "$DATA/.kafka-version" 2>/dev/null || echo unknown)', not $KAFKA_VERSION: wiping $DATA"
  rm -rf "$DATA"
fi
mkdir -p "$DATA"
sed "s#__DATA_DIR__#$DATA#g" "$HERE/server.properties" > "$CONFIG"

if [ ! -f "$DATA/meta.properties" ]; then
  # KRaft cluster id: 16 random bytes, base64url without padding; Kafka refuses ids starting with '-'.
  CLUSTER_ID=-
  while [[ "$CLUSTER_ID" == -* ]]; do
    CLUSTER_ID=$(head -c 16 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=\n')
  done
  log "formatting KRaft storage in $DATA (cluster id $CLUSTER_ID)..."
  tool kafka.tools.StorageTool format -t "$CLUSTER_ID" -c "$CONFIG" > "$LOGS/format.out" 2>&1 \
    || { cat "$LOGS/format.out" >&2; die "storage format failed"; }
  echo "$KAFKA_VERSION" > "$DATA/.kafka-version"
else
  log "storage already formatted ($DATA), reusing it"
fi

# ------------------------------------------------------------ 5) start
[ -f "$LOGS/kafka.out" ] && mv -f "$LOGS/kafka.out" "$LOGS/kafka.out.1"
# Every partition keeps several files open (segment, offset and time indexes), and a
# test run creates thousands of namespaced partitions: at 20,000 descriptors the broker
# died with "Too many open files" mid-suite. Raise the limit as far as we may.
ulimit -n 1048576 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
log "open-file limit for the broker: $(ulimit -n)"
log "starting Kafka $KAFKA_VERSION broker on $BOOTSTRAP (heap: $KAFKA_HEAP; logs: $LOGS/server.log)"
# setsid: own session, so the broker outlives the shell/job that started it.
# bash -c writes its own pid, then exec's java, so the pid file holds the JVM's pid.
# shellcheck disable=SC2086,SC2016
setsid bash -c 'echo $$ > "$0"; exec "$@"' "$PIDFILE" \
  "$JAVA" $KAFKA_HEAP -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:+ExitOnOutOfMemoryError \
  -Djava.awt.headless=true -Dlog4j2.configurationFile="$HERE/log4j2.properties" \
  -Dkafka.logs.dir="$LOGS" ${KAFKA_OPTS:-} \
  -cp "$LIB/*" kafka.Kafka "$CONFIG" \
  > "$LOGS/kafka.out" 2>&1 < /dev/null &

for _ in $(seq 1 50); do [ -s "$PIDFILE" ] && break; sleep 0.1; done
PID=$(cat "$PIDFILE" 2>/dev/null || true)
[ -n "$PID" ] || { show_logs >&2; die "broker did not start (no pid written)"; }
log "broker pid $PID; waiting up to ${START_TIMEOUT}s for it to serve requests..."

if ! wait_ready "$PID"; then
  if kill -0 "$PID" 2>/dev/null; then
    log "stopping the broker that did not become ready"
    bash "$HERE/stop-kafka.sh" || true
  fi
  exit 1
fi
STOP_HINT="bash $HERE/stop-kafka.sh"
[ "$WORK" = "$HERE/work" ] || STOP_HINT="KAFKA_WORK=$WORK $STOP_HINT"
log "Kafka $KAFKA_VERSION is up: bootstrap $BOOTSTRAP, pid $PID (stop: $STOP_HINT)"
