#!/usr/bin/env bash
# End-to-end tests of the desktop app in its real window: builds the UI, the desktop binary
# (debug, sharing target/ with cargo test) and the scripted model server, then runs
# tests/e2e/*.test.mjs under Xvfb. Each test starts tauri-driver (in front of Debian's
# WebKitWebDriver), the scripted provider and the app on a temp PREFLIGHT_HOME and workspace;
# the app spawns the real filesystem MCP server. Screenshots go to $E2E_ARTIFACTS (default
# target/e2e-artifacts/); the README's three are copied to docs/screenshots/.
#
#   scripts/e2e.sh              set up (--desktop), build, run
#   E2E_SKIP_BUILD=1 scripts/e2e.sh   run against what is built
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"

if [[ -z "${E2E_SKIP_BUILD:-}" ]]; then
  [[ -n "${E2E_SKIP_SETUP:-}" ]] || bash scripts/setup.sh --desktop
  echo "e2e: building the UI" >&2
  (cd ui && npm run --silent build >&2)
  echo "e2e: cargo build (desktop app, scripted provider)" >&2
  # The package selection and features of scripts/test.sh, so shared dependencies are reused.
  cargo build --locked --workspace --features preflight-engine/ts --bins
fi

export PATH="$HOME/.cargo/bin:$PATH"
export PREFLIGHT_FS_SERVER="${PREFLIGHT_FS_SERVER:-$repo/runtime/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js}"
export E2E_ARTIFACTS="${E2E_ARTIFACTS:-${CARGO_TARGET_DIR:-$repo/target}/e2e-artifacts}"
rm -rf "$E2E_ARTIFACTS"
mkdir -p "$E2E_ARTIFACTS"

echo "e2e: running tests/e2e under Xvfb (artifacts: $E2E_ARTIFACTS)" >&2
xvfb-run -a -s "-screen 0 1280x900x24" node --test --test-concurrency=1 --test-reporter=spec tests/e2e/
