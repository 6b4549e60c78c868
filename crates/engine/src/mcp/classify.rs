//! What kind of server an `mcp.json` entry runs (DESIGN §4): the profiles treat a class,
//! never a server name.
//!
//! A server is classified by what it runs: the first word of its command line (the command,
//! then each argument in order) that carries a known signature decides. Every launcher puts
//! the package or script before that program's own arguments (`npx -y PKG DIR`,
//! `node …/PKG/dist/index.js DIR`, `mcp-server-filesystem DIR`), so a root folder that
//! happens to be called `context7-mcp` cannot change the class. Only when nothing in the
//! command line is recognised does the entry's name decide (`filesystem`, `context7`,
//! `code-sandbox`/`sandbox`); anything else is `Other`.

use serde::Serialize;

/// The server classes of DESIGN §4's profile table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ServerClass {
    /// `@modelcontextprotocol/server-filesystem`, rooted at the chat's workspace.
    Filesystem,
    /// `@upstash/context7-mcp`: library documentation.
    Context7,
    /// Preflight's own sandbox server, working in `{workspace}/.sandbox`.
    CodeSandbox,
    Other,
}

/// Signatures, lower case, looked for inside each word of the command line.
const SIGNATURES: &[(&str, ServerClass)] = &[
    ("@modelcontextprotocol/server-filesystem", ServerClass::Filesystem),
    ("mcp-server-filesystem", ServerClass::Filesystem),
    ("@upstash/context7-mcp", ServerClass::Context7),
    ("context7-mcp", ServerClass::Context7),
    ("preflight-sandbox", ServerClass::CodeSandbox),
    ("code-sandbox-mcp", ServerClass::CodeSandbox),
];

/// The class of the entry `name` running `command args…`.
pub fn classify(name: &str, command: &str, args: &[String]) -> ServerClass {
    let words = std::iter::once(command).chain(args.iter().map(String::as_str));
    for word in words {
        let word = word.to_ascii_lowercase();
        // Windows-style separators in a copied config still name the same package.
        let word = word.replace('\\', "/");
        if let Some((_, class)) = SIGNATURES.iter().find(|(sig, _)| word.contains(sig)) {
            return *class;
        }
    }
    class_by_name(name)
}

fn class_by_name(name: &str) -> ServerClass {
    match name.to_ascii_lowercase().as_str() {
        "filesystem" => ServerClass::Filesystem,
        "context7" => ServerClass::Context7,
        "code-sandbox" | "code_sandbox" | "sandbox" => ServerClass::CodeSandbox,
        _ => ServerClass::Other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn classifies_by_what_runs_then_by_name() {
        use ServerClass::*;
        let fs_js =
            "/opt/p/runtime/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js";
        let table: &[(&str, &str, &[&str], ServerClass)] = &[
            ("filesystem", "node", &[fs_js, "${workspace}"], Filesystem),
            ("files", "node", &[fs_js, "${workspace}"], Filesystem),
            ("fs", "npx", &["-y", "@modelcontextprotocol/server-filesystem", "/w"], Filesystem),
            ("fs", "/usr/local/bin/mcp-server-filesystem", &["/w"], Filesystem),
            ("fs", "NPX.CMD", &["-y", "@ModelContextProtocol/Server-Filesystem"], Filesystem),
            ("fs", "node", &["C:\\x\\@modelcontextprotocol\\server-filesystem\\i.js"], Filesystem),
            ("docs", "npx", &["-y", "@upstash/context7-mcp@latest"], Context7),
            ("c7", "context7-mcp", &[], Context7),
            ("box", "preflight-sandbox", &["${workspace}"], CodeSandbox),
            // The package decides, not a folder argument after it.
            (
                "fs",
                "npx",
                &["@modelcontextprotocol/server-filesystem", "/x/context7-mcp"],
                Filesystem,
            ),
            ("docs", "npx", &["@upstash/context7-mcp", "--dir", "/x/server-filesystem"], Context7),
            // Nothing recognised: the name decides.
            ("filesystem", "/opt/my-fs-server", &[], Filesystem),
            ("Context7", "python3", &["c7.py"], Context7),
            ("sandbox", "python3", &["box.py"], CodeSandbox),
            ("code-sandbox", "python3", &["box.py"], CodeSandbox),
            ("github", "npx", &["-y", "@modelcontextprotocol/server-github"], Other),
            ("git", "uvx", &["mcp-server-git"], Other),
            // What runs wins over the name.
            ("filesystem", "npx", &["-y", "@upstash/context7-mcp"], Context7),
            ("context7", "node", &[fs_js], Filesystem),
        ];
        for (name, command, list, want) in table {
            assert_eq!(classify(name, command, &args(list)), *want, "{name}: {command} {list:?}");
        }
    }
}
