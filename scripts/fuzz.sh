#!/usr/bin/env bash
# Fuzzes the engine's pure parsers (fuzz/README.md) for a bounded time:
#   scripts/fuzz.sh [SECONDS]    each target runs SECONDS (default 20) after one build.
# Installs the pinned cargo-fuzz when it is missing. Builds into fuzz/target (its own
# instrumented build, never the main target/). Grown corpora stay in fuzz/target/corpus/;
# the committed seeds are only read. Exits non-zero when a target crashes, naming the input.
set -euo pipefail

seconds="${1:-20}"
cargo_fuzz_version=0.13.2
targets=(planner_reply turn_plan_ops)

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo/fuzz"

if [[ "$(cargo fuzz --version 2>/dev/null | head -n1)" != "cargo-fuzz $cargo_fuzz_version" ]]; then
  echo "fuzz: cargo install cargo-fuzz $cargo_fuzz_version" >&2
  cargo install cargo-fuzz --version "$cargo_fuzz_version" --locked
fi

# cargo fuzz passes nightly-only flags; this machine has the stable toolchain only.
export RUSTC_BOOTSTRAP=1
# Never share the main build's directories: the instrumentation flags differ.
unset CARGO_TARGET_DIR CARGO_BUILD_TARGET_DIR CARGO_BUILD_BUILD_DIR
# Safe Rust only: no sanitizer; release with debug assertions and overflow checks.
build_flags=(--sanitizer none --debug-assertions --target-dir "$repo/fuzz/target")

echo "fuzz: cargo fuzz build (${targets[*]})" >&2
cargo fuzz build "${build_flags[@]}"

seeds_of() {
  case "$1" in
    planner_reply) echo "$repo/tests/corpus/planner" ;;
    *) echo "$repo/fuzz/corpus/$1" ;;
  esac
}

failed=()
for target in "${targets[@]}"; do
  corpus="$repo/fuzz/target/corpus/$target"
  log="$repo/fuzz/target/$target.log"
  mkdir -p "$corpus"
  echo "fuzz: $target for ${seconds}s" >&2
  if cargo fuzz run "${build_flags[@]}" "$target" "$corpus" "$(seeds_of "$target")" -- \
    -max_total_time="$seconds" -dict="$repo/fuzz/dict/$target.dict" -timeout=10 \
    -print_final_stats=1 >"$log" 2>&1; then
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    per_second=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
    echo "fuzz: $target: no crash; ${runs:-?} runs, ${per_second:-?}/s" >&2
  else
    # The panic message (not its backtrace) and libFuzzer's verdict; the rest is in the log.
    sed -n '/panicked at/,/^stack backtrace:/p' "$log" | grep -v '^stack backtrace:' | head -n 20 >&2
    grep -m1 '^SUMMARY: ' "$log" >&2 || true
    crash=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -n1)
    echo "fuzz: $target FAILED; input: ${crash:-(none written)}; log: $log" >&2
    if [[ -n "$crash" ]]; then
      echo "fuzz: reproduce: (cd fuzz && RUSTC_BOOTSTRAP=1 cargo fuzz run ${build_flags[*]} $target $crash)" >&2
    fi
    failed+=("$target")
  fi
done

if ((${#failed[@]} > 0)); then
  echo "fuzz: crashed: ${failed[*]}" >&2
  exit 1
fi
