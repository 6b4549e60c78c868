#!/usr/bin/env bash
# End-to-end tests of the desktop app in its real window: builds the UI, the desktop binary
# (debug, sharing target/ with cargo test) and the scripted model server, then runs
# tests/e2e/*.test.mjs under Xvfb. Each test starts tauri-driver (in front of Debian's
# WebKitWebDriver), the scripted provider and the app on a temp PREFLIGHT_HOME and workspace;
# the app spawns the real filesystem MCP server. The whole run has one D-Bus session with one
# notification server, dunst (scripts/lib/with-dunst.sh). Screenshots go to $E2E_ARTIFACTS (default
# target/e2e-artifacts/); the README's three are copied to docs/screenshots/.
#
# A failed test's last look at each window (screenshot, page text, chat HTML, app log, model
# requests) goes to $E2E_ARTIFACTS/failures/<app>/, and the test names those files on stderr.
#
#   scripts/e2e.sh              set up (--desktop), build, run
#   scripts/e2e.sh --repeat N   build once, run the whole suite N times, stop at the first failure
#   E2E_SKIP_BUILD=1 scripts/e2e.sh   run against what is built
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"

runs=1
while [[ $# -gt 0 ]]; do
  case "$1" in
    --repeat)
      [[ "${2:-}" =~ ^[1-9][0-9]*$ ]] || { echo "e2e: --repeat takes a number of runs (1 or more)" >&2; exit 2; }
      runs=$2
      shift 2
      ;;
    *)
      echo "usage: scripts/e2e.sh [--repeat N]" >&2
      exit 2
      ;;
  esac
done

if [[ -z "${E2E_SKIP_BUILD:-}" ]]; then
  [[ -n "${E2E_SKIP_SETUP:-}" ]] || bash scripts/setup.sh --desktop
  # scripts/test.sh's build exactly (selection, features, clippy in it, all targets: `--bins`
  # alone resolves dependencies' features without the dev-dependencies and rebuilds half the
  # tree), so neither rebuilds the other.
  source scripts/lib/dev-build.sh
  echo "e2e: building the UI" >&2
  build_ui
  echo "e2e: cargo build (test.sh's build: the desktop app, the scripted provider, the rest)" >&2
  cargo build "${dev_cargo_flags[@]}" --all-targets
fi

export PATH="$HOME/.cargo/bin:$PATH"
export PREFLIGHT_FS_SERVER="${PREFLIGHT_FS_SERVER:-$repo/runtime/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js}"
export E2E_ARTIFACTS="${E2E_ARTIFACTS:-${CARGO_TARGET_DIR:-$repo/target}/e2e-artifacts}"
rm -rf "$E2E_ARTIFACTS"
mkdir -p "$E2E_ARTIFACTS"

for ((run = 1; run <= runs; run++)); do
  echo "e2e: running tests/e2e under Xvfb, run $run/$runs (artifacts: $E2E_ARTIFACTS)" >&2
  # The display is larger than the window (1200×800 at its origin): tests/e2e/layout.test.mjs
  # widens it to 1440 px.
  # On a D-Bus session of its own with one notification server (dunst) for the whole run, and
  # nothing else on it (scripts/lib/e2e-session-bus.conf): tests/e2e/notice.test.mjs reads the
  # desktop notifications it showed.
  if ! xvfb-run -a -s "-screen 0 1600x1000x24" \
    dbus-run-session --config-file=scripts/lib/e2e-session-bus.conf -- bash scripts/lib/with-dunst.sh \
    node --test --test-concurrency=1 --test-reporter=spec tests/e2e/; then
    echo "e2e: run $run/$runs failed; $((run - 1)) of $runs passed before it (evidence: $E2E_ARTIFACTS/failures)" >&2
    exit 1
  fi
  echo "e2e: run $run/$runs passed" >&2
done
echo "e2e: all $runs of $runs runs passed" >&2
