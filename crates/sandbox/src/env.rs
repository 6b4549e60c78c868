//! The environment a run sees: a short allowlist, never the server's own (provider keys stay out).

use std::path::Path;

/// Builds a run's environment from the server's: `PATH` with the venv's `bin` first, `HOME`,
/// `LANG`, `TERM`, `VIRTUAL_ENV` and the `PIP_*` variables (pip's configuration). Nothing else.
pub fn allowlisted(
    server_env: impl IntoIterator<Item = (String, String)>,
    venv: &Path,
) -> Vec<(String, String)> {
    let mut env = Vec::new();
    let mut path = None;
    for (key, value) in server_env {
        match key.as_str() {
            "PATH" => path = Some(value),
            "HOME" | "LANG" | "TERM" => env.push((key, value)),
            _ if key.starts_with("PIP_") => env.push((key, value)),
            _ => {}
        }
    }
    let system = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
    let path = path.filter(|p| !p.is_empty()).unwrap_or_else(|| system.to_string());
    env.push(("PATH".into(), format!("{}:{path}", venv.join("bin").display())));
    env.push(("VIRTUAL_ENV".into(), venv.display().to_string()));
    env.sort();
    env
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
        let env = allowlisted(server, Path::new("/w/.sandbox/venv"));
        let keys: Vec<&str> = env.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["HOME", "LANG", "PATH", "PIP_INDEX_URL", "TERM", "VIRTUAL_ENV"]);
        assert!(env.contains(&("PATH".into(), "/w/.sandbox/venv/bin:/usr/bin".into())));
        assert!(env.contains(&("VIRTUAL_ENV".into(), "/w/.sandbox/venv".into())));
    }
}
