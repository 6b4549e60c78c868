# Sourced (never run) by the scripts that build the workspace in the dev profile: test.sh,
# e2e.sh, schemathesis.sh, package.sh --debug. One package selection, one feature set and one
# compiler set-up for all of them, so that each finds the others' build current: a call that
# differed in any of the three would resolve features anew or fingerprint the workspace's
# crates anew and compile them (and, for another feature set, llama.cpp) again.
#
#   build_ui         ui/dist, only when ui/'s sources changed (scripts/lib/build-ui.sh)
#   dev_cargo_flags  the whole workspace with the engine's `ts` feature (the generated UI types)
#   clippy in the build: cargo runs the workspace's own crates (never the dependencies) through
#     clippy-driver, which compiles them as rustc does and lints them on the way, warnings as
#     errors. One compile gives the artifacts and the lint verdict, where `cargo clippy` beside
#     `cargo build` would check every crate a second time (about 10 minutes cold on 2 cores).
#     `cargo clippy --workspace --all-targets -- -D warnings` reports the same lints.

dev_cargo_flags=(--locked --workspace --features preflight-engine/ts)

clippy_driver="$(rustc --print sysroot)/bin/clippy-driver"
if [[ ! -x "$clippy_driver" ]]; then
  echo "error: clippy is not installed ($clippy_driver): rustup component add clippy" >&2
  exit 1
fi
export RUSTC_WORKSPACE_WRAPPER="$clippy_driver"
# clippy-driver's arguments, as `cargo clippy -- -D warnings` passes them.
export CLIPPY_ARGS="-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__"
unset clippy_driver


source "$(dirname "${BASH_SOURCE[0]}")/build-ui.sh"
