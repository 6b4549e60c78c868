#!/usr/bin/env bash
# llama-cpp-python's OpenAI-compatible server (PyPI `llama-cpp-python[server]`, pinned), the
# real model server of tests/api_llama_server: installed into a venv of its own in the cache
# folder every checkout shares (~/.cache/preflight/llama-server-VERSION), so a clone reuses it.
# PyPI has only its source: pip builds llama.cpp with cmake (Debian's cmake and build-essential,
# scripts/setup.sh), ~6 CPU-minutes here; pip keeps the built wheel in its own cache too.
# Only the shared libraries the Python package loads are built (no llava/mtmd, tools, tests).
# Idempotent: a venv whose marker says the version is kept as it is.
#
#   scripts/lib/llama-server.sh        installs when missing; prints the venv's python
set -euo pipefail
version=0.3.36
cache="${XDG_CACHE_HOME:-$HOME/.cache}/preflight"
venv="$cache/llama-server-$version"
marker="$venv/.preflight-installed"
say() { echo "llama-server: $*" >&2; }

if [[ -f "$marker" && -x "$venv/bin/python" ]]; then
  say "llama-cpp-python $version present ($venv)"
else
  say "installing llama-cpp-python[server] $version into $venv (builds llama.cpp: a few minutes)"
  rm -rf "$venv"
  mkdir -p "$cache"
  python3 -m venv "$venv"
  CMAKE_ARGS="-DLLAVA_BUILD=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TOOLS=OFF -DLLAMA_BUILD_SERVER=OFF" \
    CMAKE_BUILD_PARALLEL_LEVEL="$(nproc)" \
    "$venv/bin/pip" install --quiet --disable-pip-version-check "llama-cpp-python[server]==$version" >&2
  "$venv/bin/python" -c "import llama_cpp.server.app" >&2
  echo "$version" >"$marker"
  say "installed in ${SECONDS} s"
fi
echo "$venv/bin/python"
