#!/usr/bin/env bash
# THE run command: set-up, then Preflight in release mode; arguments go to the program
# (e.g. `scripts/run.sh serve`, `scripts/run.sh parse-planner-output < reply.txt`).
# A pre-set CARGO_TARGET_DIR is respected.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"

bash scripts/setup.sh

# The engine spawns the MCP filesystem server from here (see DESIGN.md §4).
export PREFLIGHT_FS_SERVER="${PREFLIGHT_FS_SERVER:-$repo/runtime/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js}"

# For now the command line (headless). With the desktop issue this switches to the window:
# `setup.sh --desktop`, `npm run build` in ui/, then
# `cargo run --release --locked -p preflight-desktop` when no arguments are given.
exec cargo run --release --locked -p preflight -- "$@"
