//! Paths a planner names, made plain and relative to the workspace (DESIGN §14). Lexical
//! only: nothing here looks at the disk.

/// Why a path the planner named was not kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum PathRefusal {
    ClimbsOut,
    Outside,
    NamesNoFile,
    ControlCharacters,
}

impl PathRefusal {
    pub(super) fn reason(self) -> &'static str {
        match self {
            PathRefusal::ClimbsOut => "`..` climbs out of the workspace",
            PathRefusal::Outside => "outside the workspace",
            PathRefusal::NamesNoFile => "names no file",
            PathRefusal::ControlCharacters => "holds control characters",
        }
    }
}

/// `./src//a/../b.rs` → `src/b.rs`; `\` read as `/`. An absolute path stays absolute (only
/// the workspace can tell whether it lies inside); a home path (`~/…`) is outside.
pub(super) fn plain_path(raw: &str) -> Result<String, PathRefusal> {
    if raw.chars().any(char::is_control) {
        return Err(PathRefusal::ControlCharacters);
    }
    let unified = raw.trim().replace('\\', "/");
    if unified.starts_with('~') {
        return Err(PathRefusal::Outside);
    }
    let (root, rest) = split_root(&unified);
    let mut parts: Vec<&str> = Vec::new();
    for segment in rest.split('/') {
        match segment {
            "" | "." => {}
            ".." if parts.pop().is_none() => return Err(PathRefusal::ClimbsOut),
            ".." => {}
            name => parts.push(name),
        }
    }
    if parts.is_empty() {
        return Err(PathRefusal::NamesNoFile);
    }
    Ok(format!("{root}{}", parts.join("/")))
}

pub(super) fn is_absolute(path: &str) -> bool {
    !split_root(path).0.is_empty()
}

/// An absolute plain path made relative to `workspace`, when it lies inside it.
pub(super) fn inside_workspace(path: &str, workspace: &str) -> Result<String, PathRefusal> {
    let workspace = plain_path(workspace).unwrap_or_else(|_| workspace.to_string());
    match path.strip_prefix(workspace.trim_end_matches('/')) {
        Some("") | Some("/") => Err(PathRefusal::NamesNoFile),
        Some(rest) if rest.starts_with('/') => Ok(rest.trim_start_matches('/').to_string()),
        _ => Err(PathRefusal::Outside),
    }
}

/// `("/", rest)` for `/rest`, `("C:/", rest)` for `C:/rest`, `("", path)` for a relative path.
fn split_root(path: &str) -> (&str, &str) {
    let bytes = path.as_bytes();
    let drive = bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':';
    if drive && (bytes.len() == 2 || bytes[2] == b'/') {
        let end = bytes.len().min(3);
        return (&path[..end], &path[end..]);
    }
    match path.strip_prefix('/') {
        Some(rest) => (&path[..1], rest),
        None => ("", path),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_made_plain() {
        let cases: [(&str, Result<&str, PathRefusal>); 12] = [
            ("src/main.rs", Ok("src/main.rs")),
            ("./src//planner/../lib.rs", Ok("src/lib.rs")),
            ("src\\ui\\App.tsx", Ok("src/ui/App.tsx")),
            ("src/", Ok("src")),
            ("/home/me/ws/a.rs", Ok("/home/me/ws/a.rs")),
            ("/home/me/ws/../../etc/passwd", Ok("/home/etc/passwd")),
            ("C:\\ws\\a.rs", Ok("C:/ws/a.rs")),
            ("../secrets.txt", Err(PathRefusal::ClimbsOut)),
            ("src/../../x", Err(PathRefusal::ClimbsOut)),
            ("~/.ssh/id_rsa", Err(PathRefusal::Outside)),
            ("./", Err(PathRefusal::NamesNoFile)),
            ("a\nb", Err(PathRefusal::ControlCharacters)),
        ];
        for (raw, expected) in cases {
            assert_eq!(plain_path(raw).as_deref().map_err(|e| *e), expected, "{raw:?}");
        }
    }

    #[test]
    fn absolute_paths_are_kept_only_inside_the_workspace() {
        let cases: [(&str, &str, Result<&str, PathRefusal>); 5] = [
            ("/home/me/ws/src/a.rs", "/home/me/ws", Ok("src/a.rs")),
            ("/home/me/ws/src/a.rs", "/home/me/ws/", Ok("src/a.rs")),
            ("/home/me/wsx/a.rs", "/home/me/ws", Err(PathRefusal::Outside)),
            ("/etc/passwd", "/home/me/ws", Err(PathRefusal::Outside)),
            ("/home/me/ws", "/home/me/ws", Err(PathRefusal::NamesNoFile)),
        ];
        for (path, workspace, expected) in cases {
            let got = inside_workspace(path, workspace);
            assert_eq!(got.as_deref().map_err(|e| *e), expected, "{path} in {workspace}");
        }
    }
}
