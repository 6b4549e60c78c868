//! What kind of server an `mcp.json` entry runs (DESIGN §4): the profiles treat a class,
//! never a server name.
//!
//! A server is classified by the program or package that runs, and by nothing else
//! ([`program_of`]): the package argument of a package runner (`npx -y PKG DIR`,
//! `uvx --from PKG CMD`), the script of an interpreter (`node …/PKG/dist/index.js DIR`,
//! `python -m MODULE`), else the command itself (`mcp-server-filesystem DIR`). Later
//! arguments (a `--repository ~/src/context7-mcp`) and the entry's name never count: a user's
//! `context7` entry running something else is `Other`, so a writer is never offered as a
//! reader while planning.

use serde::Serialize;

/// The server classes of DESIGN §4's profile table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
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

/// Signatures, lower case, looked for inside the program or package that runs.
const SIGNATURES: &[(&str, ServerClass)] = &[
    ("@modelcontextprotocol/server-filesystem", ServerClass::Filesystem),
    ("mcp-server-filesystem", ServerClass::Filesystem),
    ("@upstash/context7-mcp", ServerClass::Context7),
    ("context7-mcp", ServerClass::Context7),
    ("preflight-sandbox", ServerClass::CodeSandbox),
    ("code-sandbox-mcp", ServerClass::CodeSandbox),
];

/// Package runners: their first argument that is not an option (or the value of
/// `--package`/`-p`/`--from`) is the package that runs.
const RUNNERS: &[&str] = &["npx", "bunx", "pnpx", "uvx", "pipx"];
/// Interpreters: their first argument that is not an option (or the module of `-m`) is
/// the script that runs.
const INTERPRETERS: &[&str] = &["node", "nodejs", "bun", "deno", "python", "python3"];

/// The class of the entry `name` running `command args…`; `name` is not looked at (it is
/// there so that no caller thinks it could be).
pub fn classify(_name: &str, command: &str, args: &[String]) -> ServerClass {
    let program = program_of(command, args).to_ascii_lowercase();
    // Windows-style separators in a copied config still name the same package.
    let program = program.replace('\\', "/");
    SIGNATURES
        .iter()
        .find(|(signature, _)| program.contains(signature))
        .map_or(ServerClass::Other, |(_, class)| *class)
}

/// The program or package `command args…` runs: what classification looks at, and what
/// the host logs for each server.
pub fn program_of<'a>(command: &'a str, args: &'a [String]) -> &'a str {
    let base = command.rsplit(['/', '\\']).next().unwrap_or(command).to_ascii_lowercase();
    let base = base.trim_end_matches(".exe").trim_end_matches(".cmd");
    let found = if RUNNERS.contains(&base) {
        first_operand(args, &["run"], &["--package", "-p", "--from"])
    } else if INTERPRETERS.contains(&base) {
        first_operand(args, &["run"], &["-m"])
    } else {
        None
    };
    found.unwrap_or(command)
}

/// The first argument that is not an option, skipping a leading subcommand of `skip`; an
/// option of `takes_value` gives its value instead (`--from PKG`, `--package=PKG`).
fn first_operand<'a>(args: &'a [String], skip: &[&str], takes_value: &[&str]) -> Option<&'a str> {
    let mut args = args.iter().map(String::as_str).peekable();
    if args.peek().is_some_and(|first| skip.contains(first)) {
        args.next();
    }
    while let Some(arg) = args.next() {
        if let Some((option, value)) = arg.split_once('=') {
            if takes_value.contains(&option) {
                return Some(value);
            }
        }
        if takes_value.contains(&arg) {
            return args.next();
        }
        if !arg.starts_with('-') {
            return Some(arg);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn classifies_by_what_runs_only() {
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
            // Nothing recognised: the name does not decide either.
            ("filesystem", "/opt/my-fs-server", &[], Other),
            ("Context7", "python3", &["c7.py"], Other),
            ("sandbox", "python3", &["box.py"], Other),
            ("code-sandbox", "python3", &["box.py"], Other),
            ("docs", "python3", &["-m", "context7_mcp"], Other),
            ("docs", "npx", &["-p", "@upstash/context7-mcp", "c7"], Context7),
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
