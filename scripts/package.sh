#!/usr/bin/env bash
# Builds Preflight's Debian package with the Tauri bundler (the npm `@tauri-apps/cli` pinned in
# tools/package.json, which `scripts/setup.sh --desktop` installs with `npm ci`) and writes it
# to $PACKAGE_OUT (default target/package/) as preflight_<version>_<arch>.deb; prints its path.
#
#   scripts/package.sh                  set up, build the UI and the release binaries, package
#   scripts/package.sh --debug          package the debug build (the one scripts/test.sh
#                                       compiled; its `cargo build` is then a no-op)
#   scripts/package.sh --version X.Y.Z  the package's version (default: the workspace's)
#   PACKAGE_SKIP_BUILD=1                package what is built: no set-up, no build
#
# Install it with `sudo apt-get install ./target/package/preflight_<version>_amd64.deb`.
# The package holds /usr/bin/preflight-desktop (the window, started by the .desktop entry),
# /usr/bin/preflight (the command line), /usr/bin/preflight-sandbox (the code sandbox), the
# filesystem MCP server with its npm dependencies in /usr/lib/Preflight/node_modules (runtime/'s
# pinned packages, as a bundle resource; crates/engine/src/bundled.rs finds it there), the icons
# and the .desktop entry. Its Debian dependencies are in tauri.conf.json > bundle > linux > deb.
#
# Nothing is compiled by the bundler: `tauri bundle` packs the binaries cargo built. The release
# build is the plain `cargo build --release --bin …` of the three programs (the whole
# workspace's feature set, so `cargo build --release --bin preflight` after it is a no-op);
# --debug packs scripts/test.sh's build, with its flags (scripts/lib/dev-build.sh), so nothing
# is rebuilt. The bundler reads
# src-tauri/tauri.conf.json (a link to the root config) with paths relative to src-tauri/; the
# paths that depend on this build (binaries, resources, the UI, the icons) go in a generated
# `--config` merged over it. Binaries are packed as cargo wrote them (--no-binary-patching: the
# bundle-type marker is only for Tauri's updater, which Preflight does not use), from copies:
# the bundler never writes in cargo's target folder.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
say() { echo "package: $*" >&2; }
die() { echo "package: error: $*" >&2; exit 1; }

profile=release
version=
while (($#)); do
  case "$1" in
    --debug) profile=debug ;;
    --version) (($# >= 2)) || die "--version needs a value"; version=$2; shift ;;
    -h | --help) sed -n '2,25p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument: $1 (try --help)" ;;
  esac
  shift
done

target_dir=${CARGO_TARGET_DIR:-$repo/target}
target_dir=$(cd "$(dirname "$target_dir")" && pwd)/$(basename "$target_dir")
bin_dir="$target_dir/$profile"
out_dir=${PACKAGE_OUT:-$target_dir/package}
tauri="$repo/tools/node_modules/.bin/tauri"
fs_modules="$repo/runtime/node_modules"
programs=(preflight-desktop preflight preflight-sandbox)

if [[ "${PACKAGE_SKIP_BUILD:-0}" != 1 ]]; then
  bash scripts/setup.sh --desktop
  if [[ $profile == release ]]; then
    say "building the UI and the release binaries (a first release build takes long: LTO)"
    # No clippy wrapper here (scripts/lib/dev-build.sh is the dev profile's): the plain build.
    source scripts/lib/build-ui.sh
    build_ui
    cargo build --release --locked "${programs[@]/#/--bin=}"
  else
    # scripts/test.sh's build exactly (all targets: see scripts/e2e.sh), so it is a no-op.
    source scripts/lib/dev-build.sh
    build_ui
    cargo build "${dev_cargo_flags[@]}" --all-targets
  fi
fi

[[ -x "$tauri" ]] || die "the Tauri bundler is missing ($tauri): run scripts/setup.sh --desktop"
for program in "${programs[@]}"; do
  [[ -x "$bin_dir/$program" ]] || die "$bin_dir/$program is not built (scripts/package.sh without PACKAGE_SKIP_BUILD builds it)"
done
[[ -f "$fs_modules/@modelcontextprotocol/server-filesystem/dist/index.js" ]] ||
  die "the filesystem MCP server is not in $fs_modules: run scripts/setup.sh"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The build-dependent part of the bundler's configuration, as absolute paths (node quotes JSON).
node - "$repo" "$work/target/$profile" "$fs_modules" "$version" >"$work/package.json" <<'JS'
const [repo, bin, modules, version] = process.argv.slice(2);
const path = require("node:path");
const base = require(path.join(repo, "tauri.conf.json"));
const fromRoot = (file) => path.resolve(repo, file);
const config = {
  build: { frontendDist: fromRoot(base.build.frontendDist) },
  bundle: {
    icon: base.bundle.icon.map(fromRoot),
    resources: { [`${modules}/`]: "node_modules/" },
    linux: {
      deb: {
        files: {
          "/usr/bin/preflight": path.join(bin, "preflight"),
          "/usr/bin/preflight-sandbox": path.join(bin, "preflight-sandbox"),
        },
      },
    },
  },
};
if (version) config.version = version;
console.log(JSON.stringify(config, null, 2));
JS

# The bundler reads the main binary from <target>/<profile>/ and, done, writes it back there
# (even with --no-binary-patching), which fails while the binary runs (an e2e test) and would
# touch cargo's output: it gets a target folder of its own, with copies of the binaries.
stage="$work/target"
mkdir -p "$stage/$profile"
cp "$bin_dir"/{preflight-desktop,preflight,preflight-sandbox} "$stage/$profile/"
bundle_dir="$stage/$profile/bundle/deb"
say "bundling the $profile build${version:+ as version $version}"
bundle_flags=(--bundles deb --no-binary-patching --ci --config "$work/package.json")
[[ $profile == debug ]] && bundle_flags+=(--debug)
(cd src-tauri && CARGO_TARGET_DIR="$stage" "$tauri" bundle "${bundle_flags[@]}" >&2)

built=("$bundle_dir"/*.deb)
[[ -f "${built[0]}" && ${#built[@]} == 1 ]] || die "expected one .deb in $bundle_dir, found: ${built[*]}"
# Debian's file name: package_version_architecture.deb.
name="$(dpkg-deb -f "${built[0]}" Package)_$(dpkg-deb -f "${built[0]}" Version)_$(dpkg-deb -f "${built[0]}" Architecture).deb"
mkdir -p "$out_dir"
cp "${built[0]}" "$out_dir/$name"
size=$(stat -c %s "$out_dir/$name")
installed_kib=$(dpkg-deb -f "$out_dir/$name" Installed-Size)
say "$out_dir/$name: $((size / 1024 / 1024)) MiB ($size bytes), $((installed_kib / 1024)) MiB installed"
echo "$out_dir/$name"
