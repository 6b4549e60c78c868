//! Adopting an unrecorded `.sandbox/venv` (issue 49): a venv made the way an earlier Preflight
//! made it (`/usr/bin/python3 -m venv`) is adoptable; each thing a repository could plant in
//! one to run with pip's network, outside the jail or in place of a system program is refused,
//! and a refused adoption records nothing. One real venv is made, then copied for each case.

use anyhow::Result;
use preflight_sandbox::adopt::{adopt, examine, Verdict};
use preflight_sandbox::venv::{venv_dir, Python, Records};
use preflight_sandbox::SandboxError;
use std::os::unix::fs::{symlink, PermissionsExt};
use std::path::Path;
use std::process::Command;

/// Something planted in a copy of an earlier Preflight's venv (`venv`), or `None`: untouched.
type Plant = fn(&Path) -> std::io::Result<()>;

fn site(venv: &Path) -> std::path::PathBuf {
    let lib = venv.join("lib");
    let python = std::fs::read_dir(&lib).unwrap().flatten().next().unwrap().path();
    python.join("site-packages")
}

fn executable(path: &Path, text: &str) -> std::io::Result<()> {
    std::fs::write(path, text)?;
    std::fs::set_permissions(path, PermissionsExt::from_mode(0o755))
}

fn launcher(venv: &Path, name: &str) -> std::io::Result<()> {
    let text = format!("#!{}/bin/python\nprint('hi')\n", venv.display());
    executable(&venv.join("bin").join(name), &text)
}

fn untouched(_: &Path) -> std::io::Result<()> {
    Ok(())
}

fn a_package_and_its_console_script(v: &Path) -> std::io::Result<()> {
    std::fs::create_dir(site(v).join("tinylib"))?;
    std::fs::write(site(v).join("tinylib/__init__.py"), "X = 1\n")?;
    std::fs::create_dir(site(v).join("tinylib-1.0.dist-info"))?;
    launcher(v, "preflight-tinytool")
}

fn python_a_script(v: &Path) -> std::io::Result<()> {
    std::fs::remove_file(v.join("bin/python3"))?;
    executable(&v.join("bin/python3"), "#!/bin/sh\necho faked\n")
}

fn python_another_program(v: &Path) -> std::io::Result<()> {
    std::fs::remove_file(v.join("bin/python3"))?;
    symlink("/bin/sh", v.join("bin/python3"))
}

fn rewritten_pip(v: &Path) -> std::io::Result<()> {
    let init = site(v).join("pip/__init__.py");
    let text = std::fs::read_to_string(&init)? + "\nimport os\n";
    std::fs::write(init, text)
}

fn config_replaced(v: &Path, old: &str, new: &str) -> std::io::Result<()> {
    let config = std::fs::read_to_string(v.join("pyvenv.cfg"))?;
    assert!(config.contains(old), "{config}");
    std::fs::write(v.join("pyvenv.cfg"), config.replace(old, new))
}

fn a_fifo(v: &Path) -> std::io::Result<()> {
    let status = Command::new("mkfifo").arg(v.join("include/pipe")).status()?;
    assert!(status.success());
    Ok(())
}

/// What each case plants and whether the venv stays adoptable (a word of the refusal).
fn cases() -> Vec<(&'static str, Plant, Option<&'static str>)> {
    vec![
        ("as made", untouched, None),
        ("a package and its console script", a_package_and_its_console_script, None),
        ("bin/python3 a script", python_a_script, Some("not a link")),
        ("bin/python3 another program", python_another_program, Some("not the interpreter")),
        ("a link out", |v| symlink("/etc", site(v).join("etc")), Some("symbolic link")),
        ("a launcher named ls", |v| launcher(v, "ls"), Some("in place of the system's ls")),
        (
            "a program that is no launcher",
            |v| executable(&v.join("bin/preflight-tool"), "#!/bin/sh\necho hi\n"),
            Some("does not run this venv's python"),
        ),
        ("a .pth file", |v| std::fs::write(site(v).join("evil.pth"), "import os\n"), Some(".pth")),
        (
            "sitecustomize",
            |v| std::fs::write(site(v).join("sitecustomize.py"), "x = 1\n"),
            Some("sitecustomize"),
        ),
        (
            "a module pip imports when present",
            |v| std::fs::write(site(v).join("_manylinux.py"), "x = 1\n"),
            Some("pip's network"),
        ),
        ("a rewritten pip", rewritten_pip, Some("differs from the pip")),
        (
            "system site-packages",
            |v| {
                config_replaced(
                    v,
                    "include-system-site-packages = false",
                    "include-system-site-packages = true",
                )
            },
            Some("pyvenv.cfg"),
        ),
        (
            "a home in the workspace",
            |v| config_replaced(v, "home = /usr/bin", &format!("home = {}", v.display())),
            Some("pyvenv.cfg"),
        ),
        (
            "a hard link",
            |v| std::fs::hard_link(v.join("pyvenv.cfg"), v.join("include/cfg")),
            Some("hard link"),
        ),
        ("a FIFO", a_fifo, Some("FIFO")),
    ]
}

#[tokio::test(flavor = "multi_thread")]
async fn only_an_earlier_preflights_venv_is_adoptable_and_only_adoption_records_it() -> Result<()> {
    let python = Python::resolve(None);
    let made = tempfile::tempdir()?;
    let original = venv_dir(made.path());
    std::fs::create_dir(made.path().join(".sandbox"))?;
    let created = Command::new(&python.interpreter).args(["-m", "venv"]).arg(&original).status()?;
    assert!(created.success(), "python3 -m venv");
    let workspace = made.path().canonicalize()?;
    assert_eq!(examine(&original, &workspace, &python).await, Verdict::Adoptable);
    for (name, plant, refused) in cases() {
        let workspace = tempfile::tempdir()?;
        let ws = workspace.path().canonicalize()?;
        let copied =
            Command::new("cp").arg("-a").arg(made.path().join(".sandbox")).arg(&ws).status()?;
        assert!(copied.success());
        let venv = venv_dir(&ws);
        // The launchers name the venv's own path, as pip wrote them where it was made.
        rewrite_shebangs(&venv, &original)?;
        plant(&venv)?;
        let records = Records { dir: ws.join("records-outside") };
        assert!(!records.is_ours(&venv));
        // `adopt` examines first (`examine`, the verdict a refusal's words come from).
        let adopted = adopt(&venv, &ws, &python, &records).await;
        match (refused, adopted) {
            (None, Ok(())) => {
                assert!(records.is_ours(&venv), "{name}: recorded as a venv the sandbox made")
            }
            (Some(word), Err(SandboxError::VenvNotAdoptable { reason, .. })) => {
                assert!(reason.contains(word), "{name}: {reason}");
                assert!(!records.dir.exists(), "{name}: a refused adoption records nothing");
            }
            (_, other) => panic!("{name}: {other:?}"),
        }
    }
    Ok(())
}

/// pip's launchers begin `#!{where the venv was made}/bin/python3`: moved with the copy.
fn rewrite_shebangs(venv: &Path, original: &Path) -> std::io::Result<()> {
    for entry in std::fs::read_dir(venv.join("bin"))?.flatten() {
        let path = entry.path();
        if entry.file_type()?.is_file() {
            let text = std::fs::read_to_string(&path)?;
            let old = format!("#!{}/", original.display());
            if text.starts_with(&old) {
                let new = text.replacen(&old, &format!("#!{}/", venv.display()), 1);
                std::fs::write(&path, new)?;
            }
        }
    }
    Ok(())
}
