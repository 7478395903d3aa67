#!/bin/sh
# Runs `node "$@"` with V8's heap sized to the memory limit of the container (cgroup)
# it runs in: the image's CMD, and the benches under --memory-limit.
#
# Node sizes its heap from the cgroup limit on its own, but under a limit of 512 MiB
# or less V8 picks a 1 MiB semi-space (young generation) instead of the 16 MiB it
# uses on a large machine: every few hundred messages a scavenge, more objects promoted
# to the old space: in bench/flow, inside 384 MiB cgroups, the engine and the
# dispatchers spent 1.3x the CPU per delivery they spend when started by this script
# (docs/architecture.md, Operations, "Memory").
#
# So, when a limit is set: a 16 MiB semi-space (V8's own default on a large machine),
# and an old space of 75% of the limit less the young generation (3 semi-spaces),
# which leaves a quarter of the limit to what is not V8's heap (code, buffers, the
# native side of the Kafka and Postgres clients): V8's heap limit is then exactly 75% of
# the container's. HERALD_HEAP_PERCENT changes the 75;
# --max-old-space-size or --max-semi-space-size in NODE_OPTIONS or the arguments
# leaves the heap to them. No limit (or one over 64 GiB): node as it is.
set -eu

case " ${NODE_OPTIONS:-} $* " in
  *--max-old-space-size*|*--max-semi-space-size*) exec node "$@" ;;
esac

# HERALD_MEMORY_LIMIT_MIB, when set (e.g. from the Downward API's limits.memory);
# otherwise process.constrainedMemory(), in which libuv reads the cgroup's limit, v1 and
# v2 alike (0 or a huge number when there is none).
limit_mib=${HERALD_MEMORY_LIMIT_MIB:-$(node -e 'const m = process.constrainedMemory?.() ?? 0; process.stdout.write(String(m > 0 && m < 2 ** 46 ? Math.floor(m / 2 ** 20) : 0))')}
percent=${HERALD_HEAP_PERCENT:-75}
case "$limit_mib$percent" in
  *[!0-9]*) echo "node-in-container: HERALD_MEMORY_LIMIT_MIB and HERALD_HEAP_PERCENT must be whole numbers" >&2; exit 64 ;;
esac
semi_mib=16
old_mib=$((limit_mib * percent / 100 - 3 * semi_mib))

# Under ~150 MiB there is no room for that young generation: V8's own sizing.
if [ "$limit_mib" -le 0 ] || [ "$old_mib" -lt 64 ]; then exec node "$@"; fi
exec node --max-old-space-size="$old_mib" --max-semi-space-size="$semi_mib" "$@"
