# Sourced (never run) by the scripts that build the desktop shell: dev-build.sh (test.sh,
# e2e.sh, package.sh --debug), package.sh's release build and run.sh.

# build_ui: ui/dist from ui/'s sources, unless the last build was of exactly these sources.
# The desktop shell embeds ui/dist when it compiles and recompiles when its files change, so
# rewriting the same UI would recompile the shell (and relink what embeds it) for nothing.
# The stamp (a SHA-256 over every file of ui/ but node_modules and dist) lives in target/.
build_ui() {
  local repo_dir target_dir sum stamp
  repo_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
  target_dir=${CARGO_TARGET_DIR:-$repo_dir/target}
  stamp="$target_dir/ui-dist.sha256"
  sum=$(cd "$repo_dir" && find ui \( -path ui/node_modules -o -path ui/dist \) -prune -o -type f -print0 |
    LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum | cut -d' ' -f1)
  if [[ -f "$repo_dir/ui/dist/index.html" && -f "$stamp" && "$(cat "$stamp")" == "$sum" ]]; then
    echo "ui/dist is current (sources unchanged)" >&2
    return
  fi
  (cd "$repo_dir/ui" && npm run --silent build >&2)
  mkdir -p "$target_dir"
  echo "$sum" >"$stamp"
}
