//! A tiny pure-Python wheel made on the spot, so that tests install packages with real pip
//! from a local folder (`PIP_NO_INDEX=1`, `PIP_FIND_LINKS=dir`) and never the network.

use std::io;
use std::path::{Path, PathBuf};

/// Writes `{name}-{version}-py3-none-any.whl` into `dir`: the package `name` whose
/// `__init__.py` sets `VERSION`, with METADATA, WHEEL and RECORD (a wheel is a zip of
/// these), zipped by the system Python.
pub fn build_wheel(dir: &Path, name: &str, version: &str) -> io::Result<PathBuf> {
    std::fs::create_dir_all(dir)?;
    let script = r#"
import base64, hashlib, sys, zipfile
out, name, version = sys.argv[1], sys.argv[2], sys.argv[3]
info = f"{name}-{version}.dist-info"
files = {
    f"{name}/__init__.py": f"VERSION = {version!r}\n",
    f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n",
    f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: preflight-test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
}
def digest(text):
    raw = hashlib.sha256(text.encode()).digest()
    return "sha256=" + base64.urlsafe_b64encode(raw).rstrip(b"=").decode()
record = "".join(f"{path},{digest(text)},{len(text.encode())}\n" for path, text in files.items())
files[f"{info}/RECORD"] = record + f"{info}/RECORD,,\n"
with zipfile.ZipFile(out, "w") as wheel:
    for path, text in files.items():
        wheel.writestr(path, text)
"#;
    let wheel = dir.join(format!("{name}-{version}-py3-none-any.whl"));
    let status = std::process::Command::new("/usr/bin/python3")
        .args(["-I", "-c", script])
        .arg(&wheel)
        .args([name, version])
        .status()?;
    if !status.success() {
        return Err(io::Error::other(format!("building the wheel {} failed", wheel.display())));
    }
    Ok(wheel)
}
