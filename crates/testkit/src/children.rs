//! Finding the child programs of the crash and lock tests (`src/bin/*-child.rs`) from any
//! test: cargo is asked to build the one named (a no-op when it is fresh, a rebuild when
//! its sources or the crates it uses changed) and the executable's path is read from
//! cargo's JSON report. Nothing is guessed from the test binary's own location, which
//! differs with `CARGO_TARGET_DIR`, a separate build folder, or `--release`.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::{Mutex, PoisonError};

/// Each child program and the feature of this crate it needs.
const CHILDREN: &[(&str, &str)] = &[
    ("dwp-crash-child", "dwp-children"),
    ("dwp-lock-child", "dwp-children"),
    ("store-crash-child", "store-child"),
];

/// The path of the child program `name`, built first if needed (once per test process).
/// Panics, with cargo's output, when it cannot be built: the test cannot run without it.
pub fn child_binary(name: &str) -> PathBuf {
    static BUILT: Mutex<BTreeMap<String, PathBuf>> = Mutex::new(BTreeMap::new());
    let mut built = BUILT.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(path) = built.get(name) {
        return path.clone();
    }
    let path = build(name);
    built.insert(name.to_owned(), path.clone());
    path
}

fn build(name: &str) -> PathBuf {
    let feature = CHILDREN
        .iter()
        .find(|(child, _)| *child == name)
        .map(|(_, feature)| *feature)
        .unwrap_or_else(|| panic!("{name} is not one of the child programs of preflight-testkit"));
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = Command::new(cargo);
    command
        .args(["build", "--package", "preflight-testkit", "--bin", name, "--features", feature])
        .arg("--message-format=json-render-diagnostics")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if !cfg!(debug_assertions) {
        command.arg("--release");
    }
    let output = command.output().unwrap_or_else(|error| panic!("running cargo: {error}"));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let found = stdout.lines().find_map(|line| executable(line, name));
    match (output.status.success(), found) {
        (true, Some(path)) => path,
        _ => panic!(
            "cargo could not build the child program {name}:\n{}",
            String::from_utf8_lossy(&output.stderr)
        ),
    }
}

/// The executable of `name` when `line` is cargo's report of building it.
fn executable(line: &str, name: &str) -> Option<PathBuf> {
    let message: serde_json::Value = serde_json::from_str(line).ok()?;
    let is_it = message["reason"] == "compiler-artifact" && message["target"]["name"] == name;
    is_it.then(|| message["executable"].as_str().map(PathBuf::from)).flatten()
}
