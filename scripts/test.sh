#!/usr/bin/env bash
# THE test command: set-up, then every test —
#   1. the default workspace members (engine, the embedded model — on the real model set-up
#      fetched —, `preflight`, black-box tests in tests/), with the benchmarks compiled (not
#      run) so that they cannot rot;
#   2. the UI's generated TypeScript types are up to date with the Rust types (ts-rs);
#   3. the UI: type check, component tests (vitest), production build;
#   4. the desktop shell's own tests (its command list and capability, its IPC types);
#   5. the desktop app end to end in its real window under Xvfb (scripts/e2e.sh).
# With arguments, only step 1 runs, with the arguments passed to `cargo test` (e.g.
# `scripts/test.sh -p preflight-engine`, `scripts/test.sh -- --nocapture`).
# A pre-set CARGO_TARGET_DIR is respected; everything shares one target/ (debug).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"

if (($# > 0)); then
  bash scripts/setup.sh
else
  bash scripts/setup.sh --desktop
fi

# The engine spawns the MCP filesystem server from here (see DESIGN.md §4).
export PREFLIGHT_FS_SERVER="${PREFLIGHT_FS_SERVER:-$repo/runtime/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js}"
# Colours only on a terminal: CI logs (and the lines that count tests) stay plain text.
if [[ -t 1 ]]; then
  export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-auto}"
else
  export CARGO_TERM_COLOR=never
fi

# Benchmarks are compiled, not run, in the dev profile: this shares the test build's
# dependencies, where `cargo bench --no-run` would build everything again in release.
echo "test: cargo build --locked --benches" >&2
cargo build --locked --benches

echo "test: cargo test --locked${*:+ $*}" >&2
cargo test --locked "$@"
(($# > 0)) && exit 0

echo "test: generated UI types (ts-rs)" >&2
cargo test --locked -p preflight-engine --features ts --test ts_bindings

echo "test: ui/ type check, component tests, build" >&2
(cd ui && npm run --silent typecheck && npx vitest run && npm run --silent build)

echo "test: desktop shell (cargo test -p preflight-desktop)" >&2
cargo test --locked -p preflight-desktop

echo "test: end to end (scripts/e2e.sh)" >&2
E2E_SKIP_SETUP=1 bash scripts/e2e.sh
