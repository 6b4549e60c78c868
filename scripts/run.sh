#!/usr/bin/env bash
# THE run command: set-up, then Preflight in release mode.
#
#   scripts/run.sh                  the desktop app (set-up --desktop, build ui/, run the window)
#   scripts/run.sh chat [--workspace DIR]  the chat in this terminal (no display needed)
#   scripts/run.sh serve [--addr …] the headless HTTP + SSE API (no display needed)
#   scripts/run.sh <command> …      any other `preflight` command (e.g. parse-planner-output)
#
# The desktop app needs a display (X11 or Wayland); without one it says so and stops before
# building. A pre-set CARGO_TARGET_DIR is respected.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"

# The engine spawns the MCP filesystem server from here (see DESIGN.md §4).
export PREFLIGHT_FS_SERVER="${PREFLIGHT_FS_SERVER:-$repo/runtime/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js}"

if (($# > 0)); then
  bash scripts/setup.sh
  # --bin, not -p: the whole workspace's feature set, the one scripts/package.sh builds.
  exec cargo run --release --locked --bin preflight -- "$@"
fi

if [[ -z "${DISPLAY:-}" && -z "${WAYLAND_DISPLAY:-}" ]]; then
  cat >&2 <<'MSG'
run: no display (neither DISPLAY nor WAYLAND_DISPLAY is set), so the desktop window cannot open.
     On this machine chat in the terminal instead:   scripts/run.sh chat --workspace DIR
     or use the headless API:                        scripts/run.sh serve
     or run the window in a virtual display:        xvfb-run -a scripts/run.sh
MSG
  exit 2
fi

bash scripts/setup.sh --desktop
source scripts/lib/build-ui.sh
build_ui
exec cargo run --release --locked --bin preflight-desktop
