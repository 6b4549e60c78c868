# adopt.rs: run by the allowed interpreter with -I from /, it reads a venv's site-packages as data (never
# imports from it) and says, as one JSON line, whether the code Python's start and pip's run
# would take from it is the code the interpreter's own bundled wheels hold.
import ast, glob, json, marshal, os, sys, sysconfig, zipfile

PIP_RUN = ("pip", "_distutils_hack", "pkg_resources")

def refuse(why):
    print(json.dumps({"adoptable": False, "reason": why}))
    sys.exit(0)

def bundled_wheels():
    folders = [sysconfig.get_config_var("WHEEL_PKG_DIR") or ""]
    try:
        import ensurepip
        folders.append(os.path.join(os.path.dirname(ensurepip.__file__), "_bundled"))
    except ImportError:
        pass
    found = {}
    for folder in folders:
        for path in sorted(glob.glob(os.path.join(folder, "*.whl"))):
            name = os.path.basename(path).split("-")[0].lower()
            if name in ("pip", "setuptools"):
                found.setdefault(name, path)
    return found

def wheel_files():
    files = {}
    for path in bundled_wheels().values():
        with zipfile.ZipFile(path) as wheel:
            for info in wheel.infolist():
                if not info.is_dir():
                    files[info.filename] = wheel.read(info)
    if not any(name.startswith("pip/") for name in files):
        refuse("this Python has no bundled pip wheel to compare the venv's pip with")
    return files

def names_pip_imports(files, own):
    names = {"sitecustomize", "usercustomize"}
    for name, data in files.items():
        if not name.endswith(".py") or name.split("/")[0] not in PIP_RUN:
            continue
        try:
            tree = ast.parse(data)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
    return names - set(sys.stdlib_module_names) - own

def importable_name(entry, is_dir):
    if is_dir:
        return entry if entry.isidentifier() else None
    stem = entry.split(".")[0]
    if entry.endswith((".py", ".pyc", ".so")) and stem.isidentifier():
        return stem
    return None

def check_cached(relative, data, files):
    folder, leaf = relative.rsplit("/__pycache__/", 1)
    stem = leaf.split(".")[0]
    source = files.get(f"{folder}/{stem}.py")
    if source is None or leaf.split(".")[1] != sys.implementation.cache_tag:
        return False
    optimize = {"pyc": 0, "opt-1": 1, "opt-2": 2}.get(leaf.split(".", 2)[2].removesuffix(".pyc") or "pyc", 0)
    if not leaf.endswith(".pyc") or len(data) < 16:
        return False
    try:
        cached = marshal.loads(data[16:])
        fresh = compile(source, relative, "exec", dont_inherit=True, optimize=optimize)
    except Exception:
        return False
    return cached == fresh

def check_package(site, top, files):
    for folder, dirs, leaves in os.walk(os.path.join(site, top)):
        dirs.sort()
        for leaf in sorted(leaves):
            path = os.path.join(folder, leaf)
            relative = os.path.relpath(path, site)
            with open(path, "rb") as handle:
                data = handle.read()
            if "/__pycache__/" in relative:
                if not check_cached(relative, data, files):
                    refuse(f"{relative} is not what the bundled wheel's source compiles to")
            elif files.get(relative) != data:
                refuse(f"{relative} differs from the {top} that comes with this Python")

def main(site):
    files = wheel_files()
    own = {name.split("/")[0] for name in files}
    suspicious = names_pip_imports(files, own)
    packages = 0
    for entry in sorted(os.listdir(site)):
        path = os.path.join(site, entry)
        is_dir = os.path.isdir(path)
        if entry.endswith(".pth"):
            with open(path, "rb") as handle:
                if files.get(entry) != handle.read():
                    refuse(f"{entry} is a .pth file that is not the bundled setuptools' own: its lines run at every start of Python")
            continue
        name = importable_name(entry, is_dir)
        if name in own:
            check_package(site, entry, files) if is_dir else refuse(f"{entry} is not the bundled package of that name")
        elif name in suspicious:
            refuse(f"{entry} is a module pip's own code imports when it is there: it would run with pip's network")
        elif entry.endswith(".dist-info"):
            packages += 1
    print(json.dumps({"adoptable": True, "packages": packages}))

main(sys.argv[1])
