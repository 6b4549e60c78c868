#!/usr/bin/env bash
# THE test command: set-up, then every test of the default workspace members (the engine, the
# `preflight` binary and the black-box tests in tests/), with the benchmarks compiled (not run)
# so that they cannot rot. Extra arguments go to `cargo test` (e.g. `scripts/test.sh -p
# preflight-engine`, `scripts/test.sh -- --nocapture`). A pre-set CARGO_TARGET_DIR is respected.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"

bash scripts/setup.sh

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
# First, so that cargo test's summary stays the last thing printed.
echo "test: cargo build --locked --benches" >&2
cargo build --locked --benches

echo "test: cargo test --locked${*:+ $*}" >&2
cargo test --locked "$@"
