#!/usr/bin/env bash
# Runs "$@" beside a notification server: dunst, started once for the whole run on the D-Bus
# session and X display the caller gives it (scripts/e2e.sh: xvfb-run, then dbus-run-session),
# and stopped after. tests/e2e/notice.test.mjs reads what it showed and clicks it (dunstctl).
# Its notifications never expire (timeout 0): a test sees each until it is acted on or closed.
# They are drawn below the windows the tests photograph (at most 1440×800 at the display's
# origin, on 1600×1000): at most two at a time, in the bottom right corner.
set -euo pipefail

: "${DBUS_SESSION_BUS_ADDRESS:?with-dunst.sh runs under a D-Bus session (dbus-run-session)}"
: "${DISPLAY:?with-dunst.sh runs on an X display (xvfb-run)}"
dir=$(mktemp -d)
cat >"$dir/dunstrc" <<'CONFIG'
[global]
    history_length = 50
    origin = bottom-right
    offset = 10x10
    width = 300
    height = 80
    notification_limit = 2
[urgency_low]
    timeout = 0
[urgency_normal]
    timeout = 0
[urgency_critical]
    timeout = 0
CONFIG
dunst -config "$dir/dunstrc" >"$dir/dunst.log" 2>&1 &
dunst=$!
trap 'kill "$dunst" 2>/dev/null || true; wait "$dunst" 2>/dev/null || true; rm -rf "$dir"' EXIT

# Ready once it owns the name (asked without activating a second server for it).
owned() {
  dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
    org.freedesktop.DBus.NameHasOwner string:org.freedesktop.Notifications 2>/dev/null | grep -q 'boolean true'
}
for _ in $(seq 200); do
  owned && break
  kill -0 "$dunst" 2>/dev/null || { cat "$dir/dunst.log" >&2; echo "with-dunst: dunst did not start" >&2; exit 1; }
  sleep 0.05
done
owned || { cat "$dir/dunst.log" >&2; echo "with-dunst: dunst did not take the bus name" >&2; exit 1; }
"$@"
