//! The environment a run sees: a short allowlist, never the server's own (provider keys stay
//! out), and pip's settings only for pip.

use std::path::{Path, PathBuf};

/// Builds a run's environment from the server's: `PATH` with the venv's `bin` first (when
/// there is a venv of ours), `HOME`,
/// `LANG`, `TERM`, `VIRTUAL_ENV`, and for pip's own runs (`pip`) the `PIP_*` variables (its
/// index, find-links, proxies, perhaps credentials). Nothing else.
pub fn allowlisted(
    server_env: impl IntoIterator<Item = (String, String)>,
    venv: Option<&Path>,
    pip: bool,
) -> Vec<(String, String)> {
    let mut env = Vec::new();
    let mut path = None;
    for (key, value) in server_env {
        match key.as_str() {
            "PATH" => path = Some(value),
            "HOME" | "LANG" | "TERM" => env.push((key, value)),
            _ if pip && key.starts_with("PIP_") => env.push((key, value)),
            _ => {}
        }
    }
    let system = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
    let path = path.filter(|p| !p.is_empty()).unwrap_or_else(|| system.to_string());
    match venv {
        Some(venv) => {
            env.push(("PATH".into(), format!("{}:{path}", venv.join("bin").display())));
            env.push(("VIRTUAL_ENV".into(), venv.display().to_string()));
        }
        None => env.push(("PATH".into(), path)),
    }
    env.sort();
    env
}

/// The local folders among pip's `PIP_FIND_LINKS` (absolute paths, space-separated), which
/// an install must see; URLs are pip's to fetch over the network.
pub fn local_find_links(env: &[(String, String)]) -> Vec<PathBuf> {
    let links = env.iter().find(|(key, _)| key == "PIP_FIND_LINKS").map(|(_, v)| v.as_str());
    let local = |link: &str| link.strip_prefix("file://").unwrap_or(link).to_owned();
    links
        .unwrap_or_default()
        .split_whitespace()
        .map(local)
        .filter(|link| link.starts_with('/'))
        .map(PathBuf::from)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_allowlist_passes() {
        let server: Vec<(String, String)> = [
            ("PATH", "/usr/bin"),
            ("HOME", "/home/u"),
            ("LANG", "C.UTF-8"),
            ("TERM", "xterm"),
            ("PIP_INDEX_URL", "https://mirror"),
            ("OPENAI_API_KEY", "sk-secret"),
            ("ANTHROPIC_API_KEY", "sk-ant"),
            ("PREFLIGHT_HOME", "/data"),
            ("SSH_AUTH_SOCK", "/run/agent"),
            ("LD_PRELOAD", "/evil.so"),
        ]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        let env = allowlisted(server.clone(), Some(Path::new("/w/.sandbox/venv")), true);
        let keys: Vec<&str> = env.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["HOME", "LANG", "PATH", "PIP_INDEX_URL", "TERM", "VIRTUAL_ENV"]);
        let command = allowlisted(server.clone(), Some(Path::new("/w/.sandbox/venv")), false);
        let keys: Vec<&str> = command.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["HOME", "LANG", "PATH", "TERM", "VIRTUAL_ENV"]);
        let without = allowlisted(server, None, false);
        assert!(without.contains(&("PATH".into(), "/usr/bin".into())), "{without:?}");
        assert!(env.contains(&("PATH".into(), "/w/.sandbox/venv/bin:/usr/bin".into())));
        assert!(env.contains(&("VIRTUAL_ENV".into(), "/w/.sandbox/venv".into())));
    }
}
