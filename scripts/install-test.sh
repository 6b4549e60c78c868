#!/usr/bin/env bash
# Installs Preflight's .deb as a user would and checks it (as root, like CI, on Debian 12 with
# what `scripts/setup.sh --desktop` installed; with sudo otherwise):
#   1. scripts/package.sh --debug packs the debug build (no release build: CI's time), and a
#      second package of the same build with a higher version, for the upgrade;
#   2. `apt-get install ./preflight_<version>_amd64.deb`, its dependencies from Debian;
#   3. as a new user (an account made for the test: a fresh home, no PREFLIGHT_* variable, the
#      working folder its home, nothing from the source tree), tests/install/installed.mjs:
#      the window started from the .desktop entry's Exec under Xvfb reaches Settings; then
#      `preflight serve` from PATH plans a chat against the scripted provider with the
#      bundled filesystem server; `preflight chat` shows it in a terminal (tmux), waiting;
#   4. the newer package over it: the chat is there with every message; a copy of the data
#      folder whose database claims a newer schema is refused with a clear message;
#   5. `apt-get remove`: the programs are gone, the user's data folder is as it was; `purge`
#      (the clean-up, also on failure) leaves it too.
# Prints the package's size, the install and upgrade times and the first-start times.
#
#   scripts/install-test.sh          package.sh builds first (a no-op when the build is current)
#   scripts/install-test.sh --release  the same on the release package (what users install)
#   PACKAGE_SKIP_BUILD=1 scripts/install-test.sh   package what is built (scripts/test.sh)
# A `preflight` package already installed is refused: this test removes what it installs.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
say() { echo "install-test: $*" >&2; }
die() { echo "install-test: error: $*" >&2; exit 1; }
profile=(--debug)
case "${1:-}" in
  "") ;;
  --release) profile=() ;;
  -h | --help) sed -n '2,21p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *) die "unknown argument: $1 (try --help)" ;;
esac

if ((EUID == 0)); then
  as_root=()
elif command -v sudo >/dev/null 2>&1; then
  as_root=(sudo)
else
  die "needs root (or sudo) to install a package"
fi
export DEBIAN_FRONTEND=noninteractive
package=preflight
user=preflight-install-test
target_dir=${CARGO_TARGET_DIR:-$repo/target}
tauri_driver=$(PATH="$HOME/.cargo/bin:$PATH" command -v tauri-driver) ||
  die "tauri-driver is missing: run scripts/setup.sh --desktop"
[[ -x "$target_dir/debug/scripted-provider" ]] || die "$target_dir/debug/scripted-provider is not built"

status() { dpkg-query -W -f='${db:Status-Abbrev}' "$package" 2>/dev/null || true; }
[[ "$(status)" != ii* ]] ||
  die "a $package package is installed; this test installs and removes its own: 'apt-get purge $package' first"

# The test's folder: readable by the new user (its home is in it), removed at the end.
work=$(mktemp -d)
chmod 755 "$work"
home="$work/home"
cleanup() {
  local code=$?
  [[ "$(status)" == "" ]] || "${as_root[@]}" apt-get purge -y -q "$package" >/dev/null 2>&1 || true
  id "$user" >/dev/null 2>&1 && "${as_root[@]}" userdel "$user" 2>/dev/null
  ((code == 0)) || say "failed; logs: $work/*.log"
  ((code != 0)) || "${as_root[@]}" rm -rf "$work"
}
trap cleanup EXIT

# seconds_since START_NS: the time since START_NS (date +%s%N) in seconds, one decimal.
seconds_since() { echo "$(( ($(date +%s%N) - $1) / 100000000 ))" | sed 's/.$/.&/; s/^\./0./'; }

# --- 1. the packages --------------------------------------------------------------------------
started=$(date +%s%N)
older=$(PACKAGE_OUT="$work/older" bash scripts/package.sh "${profile[@]}")
version=$(dpkg-deb -f "$older" Version)
newer_version=$(echo "$version" | awk -F. '{ printf "%d.%d.%d", $1, $2, $3 + 1 }')
newer=$(PACKAGE_SKIP_BUILD=1 PACKAGE_OUT="$work/newer" bash scripts/package.sh "${profile[@]}" --version "$newer_version")
say "packaged $version and $newer_version in $(seconds_since "$started") s"
dpkg-deb -c "$older" >"$work/contents.txt"
grep -q 'usr/lib/Preflight/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js$' "$work/contents.txt" ||
  die "the package lacks the filesystem server"

# --- 2. install ------------------------------------------------------------------------------
started=$(date +%s%N)
"${as_root[@]}" apt-get install -y -q "$older" >"$work/apt.log" 2>&1 || { cat "$work/apt.log" >&2; die "apt-get install failed"; }
install_s=$(seconds_since "$started")
say "installed $version in $install_s s"
for program in preflight preflight-desktop preflight-sandbox; do
  [[ "$(command -v "$program")" == "/usr/bin/$program" ]] || die "$program is not /usr/bin/$program on PATH"
done
desktop_file=$(dpkg -L "$package" | grep '^/usr/share/applications/.*\.desktop$') || die "no .desktop entry installed"

# --- 3. a new user: the window, then serve ---------------------------------------------------
id "$user" >/dev/null 2>&1 && "${as_root[@]}" userdel "$user"
"${as_root[@]}" useradd --home-dir "$home" --create-home --user-group --shell /bin/sh "$user"
mkdir -p "$work/bin" && install -m 755 "$tauri_driver" "$work/bin/tauri-driver"
workspace="$home/shop"
"${as_root[@]}" setpriv --reuid="$user" --regid="$user" --init-groups -- sh -c \
  "mkdir -p '$workspace' && printf '# Shop\nOrders live in orders.csv.\n' > '$workspace/README.md'"
run_as=$(node -e 'console.log(JSON.stringify(process.argv.slice(1)))' -- \
  "${as_root[@]}" setpriv --reuid="$user" --regid="$user" --init-groups -- \
  env -i HOME="$home" USER="$user" LOGNAME="$user" PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 \
  RUST_LOG=info)
export RUN_AS=$run_as USER_HOME=$home INSTALL_WORK=$work TAURI_DRIVER="$work/bin/tauri-driver"
export SCRIPTED_PROVIDER_BIN="$target_dir/debug/scripted-provider"
export USER_UID=$(id -u "$user") USER_GID=$(id -g "$user")
installed=(node "$repo/tests/install/installed.mjs")

say "the window from $desktop_file (Xvfb)"
# -ac: the new user's programs reach the display without xvfb-run's (root's) cookie.
xvfb-run -a -s "-ac -screen 0 1280x900x24" "${installed[@]}" window "$desktop_file" | tee "$work/window.out"
say "preflight serve plans a chat"
"${installed[@]}" plan "$workspace" | tee "$work/plan.out"
read -r chat messages < <(sed -n 's/^chat //p' "$work/plan.out")
say "preflight chat shows that chat in a terminal (tmux, 80x24), waiting for approval"
tmux_as_user=("${as_root[@]}" setpriv --reuid="$user" --regid="$user" --init-groups --
  env -i HOME="$home" USER="$user" PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 TERM=xterm
  tmux -u -L install -f /dev/null)
"${tmux_as_user[@]}" new-session -d -s t -x 80 -y 24 "preflight chat $chat"
screen=""
for _ in $(seq 150); do
  screen=$("${tmux_as_user[@]}" capture-pane -p -t t 2>/dev/null || true)
  grep -q "Approve" <<<"$screen" && grep -q "Preflight · Installed" <<<"$screen" && break
  sleep 0.2
done
"${tmux_as_user[@]}" send-keys -t t C-c 2>/dev/null || true
sleep 0.5
"${tmux_as_user[@]}" kill-server 2>/dev/null || true
grep -q "Approve" <<<"$screen" || { printf '%s\n' "$screen" >&2; die "preflight chat did not show the planned chat"; }

# --- 4. upgrade, a newer schema --------------------------------------------------------------
started=$(date +%s%N)
"${as_root[@]}" apt-get install -y -q "$newer" >"$work/apt.log" 2>&1 || { cat "$work/apt.log" >&2; die "the upgrade failed"; }
upgrade_s=$(seconds_since "$started")
[[ "$(dpkg-query -W -f='${Version}' "$package")" == "$newer_version" ]] || die "the upgrade did not install $newer_version"
say "upgraded to $newer_version in $upgrade_s s"
"${installed[@]}" check "$chat" "$messages" | tee "$work/check.out"

data="$home/.local/share/preflight"
newer_schema="$home/newer-schema"
"${as_root[@]}" setpriv --reuid="$user" --regid="$user" --init-groups -- sh -c \
  "mkdir -p '$newer_schema' && cp '$data/preflight.db' '$newer_schema/' && \
   python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute(\"PRAGMA user_version = 9999\"); c.commit()' '$newer_schema/preflight.db'"
refused=0
(cd "$home" && "${as_root[@]}" setpriv --reuid="$user" --regid="$user" --init-groups -- \
  env -i HOME="$home" PATH=/usr/bin:/bin PREFLIGHT_HOME="$newer_schema" \
  timeout 30 preflight serve >/dev/null 2>"$work/newer-schema.log") || refused=$?
((refused != 0 && refused != 124)) && grep -q "newer" "$work/newer-schema.log" ||
  { cat "$work/newer-schema.log" >&2; die "a database of a newer schema was not refused clearly"; }
say "a newer schema is refused: $(grep -o 'schema version.*' "$work/newer-schema.log" | head -1)"

# --- 5. remove keeps the data folder ---------------------------------------------------------
# The data folder's every entry (path, type, size, mode) and every file's checksum.
fingerprint() { (cd "$data" && find . -printf '%p %y %s %m\n' | sort && find . -type f -exec sha256sum {} + | sort); }
before=$(fingerprint)
"${as_root[@]}" apt-get remove -y -q "$package" >"$work/apt.log" 2>&1 || { cat "$work/apt.log" >&2; die "apt-get remove failed"; }
[[ ! -e /usr/bin/preflight && ! -e /usr/lib/Preflight ]] || die "apt-get remove left the programs"
[[ "$(fingerprint)" == "$before" ]] || die "apt-get remove changed the data folder $data"
"${as_root[@]}" apt-get purge -y -q "$package" >"$work/apt.log" 2>&1 || true
[[ "$(fingerprint)" == "$before" ]] || die "apt-get purge changed the data folder $data"
say "remove and purge left the data folder as it was ($(echo "$before" | grep -c ' f ') files)"

# --- figures ---------------------------------------------------------------------------------
size=$(stat -c %s "$older")
figure() { sed -n "s/^figure $1 //p" "$work"/*.out | head -1; }
say "figures: package $((size / 1024 / 1024)) MiB ($size bytes, $(($(dpkg-deb -f "$older" Installed-Size) / 1024)) MiB installed);" \
  "install ${install_s} s; upgrade ${upgrade_s} s;" \
  "first start: window to Settings $(figure window_first_start_ms) ms (window interactive at $(figure window_interactive_ms) ms)," \
  "preflight serve $(figure serve_first_start_ms) ms"
