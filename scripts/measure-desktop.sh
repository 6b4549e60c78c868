#!/usr/bin/env bash
# The desktop app's figures: cold start to an interactive window, idle PSS of the app's own
# processes (the main process and WebKit's helpers), frame times while 500 tokens/s stream
# in, frame times while the sidebar scrolls through 10,000 chats. See tests/e2e/measure.mjs
# for how each is measured; PARTS=start,frames,scroll picks them (default start,frames).
#
#   scripts/measure-desktop.sh            the debug build the tests use
#   PROFILE=release scripts/measure-desktop.sh   a release build (what scripts/run.sh runs)
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
profile="${PROFILE:-debug}"

bash scripts/setup.sh --desktop
(cd ui && npm run --silent build >&2)
if [[ "$profile" == release ]]; then
  cargo build --locked --release -p preflight-desktop
  cargo build --locked -p preflight-testkit --bins
else
  cargo build --locked -p preflight-desktop -p preflight-testkit --bins
fi
# The scroll figure's seeder writes through the engine's store (the crate's `store-child` feature).
cargo build --locked -p preflight-testkit --features store-child --bin seed-chats

export PATH="$HOME/.cargo/bin:$PATH"
export PREFLIGHT_DESKTOP_BIN="${CARGO_TARGET_DIR:-$repo/target}/$profile/preflight-desktop"
export PREFLIGHT_FS_SERVER="${PREFLIGHT_FS_SERVER:-$repo/runtime/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js}"
xvfb-run -a -s "-screen 0 1280x900x24" node tests/e2e/measure.mjs
