#!/usr/bin/env bash
# THE test command: set-up, then every test —
#   1. the style contract: `cargo fmt --check`, clippy with warnings as errors (inside the
#      build, step 2: scripts/lib/dev-build.sh), the tidy test (tests/tidy.rs, a cargo test);
#   2. one build of every target of the workspace (the UI first: the desktop shell embeds it),
#      each of the workspace's crates linted by clippy as it compiles;
#   3. every cargo test: the engine, the embedded model (on the real model set-up fetched),
#      `preflight` with the black-box tests in tests/, the testkit, the desktop shell (its
#      command list and capability), the generated UI types (ts-rs);
#   4. a short soak run of 20 chats under faults (benches/soak), the MCP conformance suite's
#      client scenarios against the engine's MCP host
#      (scripts/conformance.sh), schemathesis against a real `preflight serve`
#      (scripts/schemathesis.sh), a bounded
#      fuzzing run of the planner and turn_plan parsers (scripts/fuzz.sh);
#      the UI: type check and component tests (vitest);
#   5. the desktop app end to end in its real window under Xvfb (scripts/e2e.sh);
#   6. the .deb of that debug build installed as a user would (scripts/install-test.sh: the
#      window and `preflight serve` from the package, upgrade, removal), then removed.
# With arguments, only `cargo test` runs, with the arguments (e.g.
# `scripts/test.sh -p preflight-engine`, `scripts/test.sh -- --nocapture`).
# A pre-set CARGO_TARGET_DIR is respected; everything shares one target/ (debug). Each step's
# wall time is printed when it ends and all of them at the end (also in target/test-times.txt);
# the build's own breakdown is target/cargo-timings/cargo-timing.html.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
source scripts/lib/dev-build.sh
target_dir=${CARGO_TARGET_DIR:-$repo/target}

# step NAME: marks the start of a step; the previous one's time is recorded.
times=()
step_name=
step_start=
run_start=$SECONDS
end_step() {
  [[ -n "$step_name" ]] || return 0
  local took=$((SECONDS - step_start))
  times+=("$(printf '%4dm%02ds  %s' $((took / 60)) $((took % 60)) "$step_name")")
  echo "test: ${step_name}: $((took / 60))m$((took % 60))s" >&2
  step_name=
}
step() {
  end_step
  step_name=$1
  step_start=$SECONDS
  echo "test: $1" >&2
}
summary() {
  local status=$?
  end_step
  ((${#times[@]})) || return 0
  local total=$((SECONDS - run_start))
  {
    echo "test: step times ($([[ $status == 0 ]] && echo passed || echo "FAILED, exit $status")):"
    printf '  %s\n' "${times[@]}"
    printf '  %4dm%02ds  total\n' $((total / 60)) $((total % 60))
  } | tee "$target_dir/test-times.txt" >&2 2>/dev/null || true
}

if (($# > 0)); then
  bash scripts/setup.sh
else
  trap summary EXIT
  mkdir -p "$target_dir"
  step "set-up (scripts/setup.sh --desktop)"
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

# The real model server of tests/api_llama_server (llama-cpp-python, built from its source on a
# fresh machine: ~6 CPU-minutes) installs in the background from the end of `cargo test` on, at
# the lowest priority: it takes the cores the later steps leave idle (schemathesis, vitest and
# the window's tests mostly wait on servers and windows), and its test binary (`test = false`:
# not in the plain `cargo test`) runs last. Beside `cargo test` it cost 1.5 minutes there (the
# embedded model's ten first messages took 104 s instead of 70 s).
start_llama_install() {
  llama_log="$target_dir/llama-server-install.log"
  nice -n 19 bash scripts/lib/llama-server.sh >"$llama_log.out" 2>"$llama_log" &
  llama_install=$!
}

# The style contract: formatting here, lints in the build (clippy-driver), tidy among the tests.
step "cargo fmt --check"
cargo fmt --all -- --check

# The desktop shell embeds ui/dist when it compiles, so the UI is built first.
step "ui/ build"
build_ui

# Every target at once, linted as it compiles (scripts/lib/dev-build.sh): tests, the binaries
# the e2e tests start, and the benchmarks (compiled in the dev profile so they cannot rot;
# `cargo bench --no-run` would build all in release). One feature set for all of it, so
# llama.cpp is compiled once.
step "cargo build --all-targets, clippy -D warnings"
cargo build "${dev_cargo_flags[@]}" --all-targets --test api_llama_server --timings

step "cargo test (the engine's crates, embedded model, preflight, testkit, desktop shell, tidy)"
cargo test "${dev_cargo_flags[@]}"
start_llama_install

# Many chats at once under faults (issue 53; crates/preflight/benches/soak): 20 chats, 80
# turns, provider/MCP/sandbox faults and `preflight serve` SIGKILLed twice, then the store's
# own checker, the message ledger and the task lists (~25 s; `--turns 2000` is the long run).
step "soak under faults, short (cargo bench --bench soak -- --turns 80)"
cargo bench "${dev_cargo_flags[@]}" --profile dev --bench soak -- --turns 80

# The official MCP conformance suite (its 0.2.0 line) against the engine's MCP host: the client
# scenarios it requires for 2025-11-25 and 2026-07-28, and those of 2025-06-18, each
# revision's in parallel (each bounded to 60 s; ~10 s in all).
step "MCP conformance, client scenarios (scripts/conformance.sh)"
CONFORMANCE_SKIP_BUILD=1 bash scripts/conformance.sh

# The headless API fuzzed from its generated OpenAPI document (a real server, bounded examples).
step "schemathesis (scripts/schemathesis.sh)"
# 30 examples an operation in CI (~50 s; the script's own default, 50, for a longer run).
SCHEMATHESIS_SKIP_BUILD=1 SCHEMATHESIS_EXAMPLES=30 bash scripts/schemathesis.sh

# A short, bounded fuzzing run of the pure parsers (its own build, without the engine's I/O):
# 6 s each keeps the cold CI under its 30 minutes; `scripts/fuzz.sh 600` fuzzes for longer.
step "fuzz the planner and turn_plan parsers (scripts/fuzz.sh, 6 s each)"
bash scripts/fuzz.sh 6

step "ui/ type check, component tests (vitest)"
(cd ui && npm run --silent typecheck && npx vitest run)

step "end to end (scripts/e2e.sh)"
E2E_SKIP_SETUP=1 E2E_SKIP_BUILD=1 bash scripts/e2e.sh

# The package of the debug build just tested (no release build: CI's time), installed with apt.
step "the .deb installed, started, upgraded and removed (scripts/install-test.sh)"
PACKAGE_SKIP_BUILD=1 bash scripts/install-test.sh

# Preflight against a real OpenAI-compatible server (issue 53): llama-cpp-python's, installed
# in the background since the build (above).
step "against llama-cpp-python's server (tests/api_llama_server; its install waited for)"
if ! wait "$llama_install"; then
  cat "$llama_log" >&2
  echo "test: llama-cpp-python's server could not be installed (its log is above)" >&2
  exit 1
fi
cat "$llama_log" >&2
PREFLIGHT_LLAMA_SERVER_PYTHON=$(cat "$llama_log.out") \
  cargo test "${dev_cargo_flags[@]}" --test api_llama_server
