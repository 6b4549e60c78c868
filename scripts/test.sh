#!/usr/bin/env bash
# THE test command: set-up, then every test —
#   1. the style contract: `cargo fmt --check`, clippy with warnings as errors (and the tidy
#      test, tests/tidy.rs, among the cargo tests);
#   2. one build of every target of the workspace (the UI first: the desktop shell embeds it);
#   3. every cargo test: the engine, the embedded model (on the real model set-up fetched),
#      `preflight` with the black-box tests in tests/, the testkit, the desktop shell (its
#      command list and capability), the generated UI types (ts-rs);
#   4. the MCP conformance suite's client scenarios against the engine's MCP host
#      (scripts/conformance.sh), schemathesis against a real `preflight serve`
#      (scripts/schemathesis.sh), a bounded
#      fuzzing run of the planner and turn_plan parsers (scripts/fuzz.sh);
#      the UI: type check and component tests (vitest);
#   5. the desktop app end to end in its real window under Xvfb (scripts/e2e.sh);
#   6. the .deb of that debug build installed as a user would (scripts/install-test.sh: the
#      window and `preflight serve` from the package, upgrade, removal), then removed.
# With arguments, only `cargo test` runs, with the arguments (e.g.
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

if (($# > 0)); then
  echo "test: cargo test --locked $*" >&2
  exec cargo test --locked "$@"
fi

# The style contract: formatting and lints fail the run (the tidy test runs with cargo test).
echo "test: cargo fmt --check" >&2
cargo fmt --all -- --check

# One package selection and one feature set for every cargo call below (the whole workspace,
# the engine's `ts` feature for the generated-types check): a call that selected fewer
# packages would resolve features anew and compile shared dependencies (llama.cpp) again.
cargo_flags=(--locked --workspace --features preflight-engine/ts)

# The desktop shell embeds ui/dist when it compiles, so the UI is built first: before clippy,
# whose check of the shell runs its build script too.
echo "test: ui/ build" >&2
(cd ui && npm run --silent build)

echo "test: cargo clippy --all-targets -D warnings" >&2
cargo clippy "${cargo_flags[@]}" --all-targets -- -D warnings

# Every target at once: tests, the binaries the e2e tests start, and the benchmarks (compiled
# in the dev profile so they cannot rot; `cargo bench --no-run` would build all in release).
echo "test: cargo build --all-targets" >&2
cargo build "${cargo_flags[@]}" --all-targets

echo "test: cargo test (engine, embedded model, preflight, testkit, desktop shell, tidy)" >&2
cargo test "${cargo_flags[@]}"

# The official MCP conformance suite against the engine's MCP host: every client scenario of
# the 2025-06-18 and 2025-11-25 protocol versions (each bounded to 60 s; ~20 s in all).
echo "test: MCP conformance, client scenarios (scripts/conformance.sh)" >&2
CONFORMANCE_SKIP_BUILD=1 bash scripts/conformance.sh

# The headless API fuzzed from its generated OpenAPI document (a real server, bounded examples).
echo "test: schemathesis (scripts/schemathesis.sh)" >&2
SCHEMATHESIS_SKIP_BUILD=1 bash scripts/schemathesis.sh

# A short, bounded fuzzing run of the pure parsers (its own build, without the engine's I/O).
echo "test: fuzz the planner and turn_plan parsers (scripts/fuzz.sh, 20 s each)" >&2
bash scripts/fuzz.sh 20

echo "test: ui/ type check, component tests" >&2
(cd ui && npm run --silent typecheck && npx vitest run)

echo "test: end to end (scripts/e2e.sh)" >&2
E2E_SKIP_SETUP=1 E2E_SKIP_BUILD=1 bash scripts/e2e.sh

# The package of the debug build just tested (no release build: CI's time), installed with apt.
echo "test: the .deb installed, started, upgraded and removed (scripts/install-test.sh)" >&2
PACKAGE_SKIP_BUILD=1 bash scripts/install-test.sh
