#!/usr/bin/env bash
# Fuzzes the headless API from its own OpenAPI document: starts the scripted provider
# (crates/testkit, so turns complete) and a real `preflight serve` on a temp PREFLIGHT_HOME,
# runs `schemathesis run URL/v1/openapi.json` with the bearer token and a bounded number of
# examples, then stops both. Checks: every answer in its documented status and shape, no 5xx,
# and (scripts/schemathesis/preflight_hooks.py) a refused request changes nothing.
#
#   scripts/schemathesis.sh            builds preflight and scripted-provider first (a no-op
#                                      when built); SCHEMATHESIS_SKIP_BUILD=1 skips that
#   SCHEMATHESIS_EXAMPLES=N            examples per operation (default 50: about 35 s here)
#   SCHEMATHESIS_SEED=N                the seed (default 1: a CI run is reproducible)
#
# schemathesis is installed, pinned, into .venv-tools/ (git-ignored) when that venv does not
# already have that version; Debian's python3 needs python3-venv (scripts/setup.sh).
# /v1/chats/{id}/events is left out: its stream never ends (tests/api_*.rs read it).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
version=4.32.5
venv="$repo/.venv-tools"
target="${CARGO_TARGET_DIR:-$repo/target}/debug"
say() { echo "schemathesis: $*" >&2; }

if ! "$venv/bin/schemathesis" --version 2>/dev/null | grep -qx "schemathesis, version $version"; then
  say "installing schemathesis $version into $venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$version"
fi

if [[ "${SCHEMATHESIS_SKIP_BUILD:-0}" != 1 ]]; then
  # scripts/test.sh's build (selection, features, clippy in it), so neither rebuilds the other.
  source "$repo/scripts/lib/dev-build.sh"
  cargo build "${dev_cargo_flags[@]}" --bin preflight --bin scripted-provider
fi

work=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# Starts a program that prints `listening on URL` first; sets $url to URL.
start() {
  local out="$1"
  shift
  "$@" >"$out" 2>>"$work/stderr" &
  pids+=($!)
  for _ in $(seq 100); do
    url=$(sed -n 's/^listening on //p' "$out")
    [[ -n "$url" ]] && return 0
    kill -0 "${pids[-1]}" 2>/dev/null || break
    sleep 0.1
  done
  say "$1 did not start:"; cat "$work/stderr" >&2; exit 1
}

start "$work/provider.out" "$target/scripted-provider" "$repo/scripts/schemathesis/provider.json"
mkdir "$work/home"
printf '[provider]\nkind = "openai"\nbase_url = "%s/v1"\nmodel = "scripted"\n' "$url" \
  >"$work/home/config.toml"
export PREFLIGHT_HOME="$work/home" RUST_LOG=warn
start "$work/serve.out" "$target/preflight" serve --addr 127.0.0.1:0
token=$(cat "$work/home/api-token")

say "fuzzing $url"
status=0
# From the temp folder: schemathesis keeps a cache of its findings in ./.schemathesis.
cd "$work"
PREFLIGHT_API="$url" PREFLIGHT_TOKEN="$token" \
  PYTHONPATH="$repo/scripts/schemathesis" SCHEMATHESIS_HOOKS=preflight_hooks \
  "$venv/bin/schemathesis" --config-file "$repo/scripts/schemathesis/schemathesis.toml" \
  run "$url/v1/openapi.json" \
  --header "Authorization: Bearer $token" \
  --max-examples "${SCHEMATHESIS_EXAMPLES:-50}" \
  --seed "${SCHEMATHESIS_SEED:-1}" \
  --exclude-path '/v1/chats/{id}/events' \
  --workers 1 \
  --request-timeout 10 \
  --generation-database none \
  --no-color || status=$?
if ((status != 0)); then
  say "failed; the server's stderr:"
  tail -n 40 "$work/stderr" >&2
fi
exit "$status"
