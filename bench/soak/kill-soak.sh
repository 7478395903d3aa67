#!/usr/bin/env bash
# The kill tests on their long schedules: what `npm test` runs with 7 engine kills and 6
# kills of each dispatch process, here with 12 and 10 (the schedules they had before they
# were shortened to keep CI under 45 minutes), repeated ROUNDS times with fresh seeds.
# Needs the same infrastructure as the suite's distributed tests:
#   HERALD_TEST_KAFKA_BROKERS=127.0.0.1:9092 HERALD_TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/herald_test bash bench/soak/kill-soak.sh [ROUNDS]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
rounds=${1:-1}
for round in $(seq 1 "$rounds"); do
  echo "== kill soak, round $round of $rounds"
  HERALD_KILL_TEST_KILLS=12 node --experimental-vm-modules node_modules/jest/bin/jest.js e2e/src/engine-kill.e2e.spec.ts
  HERALD_KILL_TEST_KILLS=10 node --experimental-vm-modules node_modules/jest/bin/jest.js e2e/src/dispatch-kill.e2e.spec.ts
done
