//! `preflight chat [--workspace DIR] [--no-bell] [CHAT_ID]` (or `--help`), parsed and checked
//! before anything opens.

use std::path::PathBuf;

use crate::error::TuiError;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChatArgs {
    /// The folder a new chat works in.
    pub workspace: Option<PathBuf>,
    /// The chat to open; a new one when absent.
    pub chat_id: Option<String>,
    /// `--help` or `-h`: print the usage and the keys, and open nothing.
    pub help: bool,
    /// Ring the bell (and send OSC 9) when a chat needs the user; off with `--no-bell`.
    pub bell: bool,
}

impl ChatArgs {
    pub fn parse(args: &[String]) -> Result<ChatArgs, TuiError> {
        let mut parsed = ChatArgs { workspace: None, chat_id: None, help: false, bell: true };
        let mut rest = args.iter();
        while let Some(arg) = rest.next() {
            match arg.as_str() {
                "--help" | "-h" => parsed.help = true,
                "--no-bell" => parsed.bell = false,
                "--workspace" => {
                    let dir = rest.next().ok_or_else(|| usage("--workspace needs a folder"))?;
                    parsed.workspace = Some(PathBuf::from(dir));
                }
                flag if flag.starts_with('-') => {
                    return Err(usage(&format!("unknown option {flag}")))
                }
                id if parsed.chat_id.is_none() => parsed.chat_id = Some(id.to_owned()),
                extra => return Err(usage(&format!("one chat at a time: {extra}?"))),
            }
        }
        if parsed.help {
            return Ok(parsed);
        }
        if parsed.workspace.is_some() && parsed.chat_id.is_some() {
            return Err(usage("--workspace is for a new chat; an existing chat keeps its own"));
        }
        if let Some(dir) = &parsed.workspace {
            if !dir.is_dir() {
                return Err(TuiError::NotAFolder(dir.clone()));
            }
        }
        Ok(parsed)
    }
}

fn usage(why: &str) -> TuiError {
    TuiError::Usage(why.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<ChatArgs, String> {
        let args: Vec<String> = args.iter().map(|arg| arg.to_string()).collect();
        ChatArgs::parse(&args).map_err(|error| error.to_string())
    }

    #[test]
    fn arguments_are_checked_before_anything_opens() {
        let here = std::env::temp_dir();
        let here = here.to_str().unwrap();
        let plain = ChatArgs { workspace: None, chat_id: None, help: false, bell: true };
        assert_eq!(parse(&[]), Ok(plain.clone()));
        assert_eq!(parse(&["--no-bell"]), Ok(ChatArgs { bell: false, ..plain }));
        assert!(parse(&["--help"]).unwrap().help && parse(&["-h", "abc"]).unwrap().help);
        assert_eq!(parse(&["abc"]).unwrap().chat_id.as_deref(), Some("abc"));
        assert_eq!(parse(&["--workspace", here]).unwrap().workspace, Some(here.into()));
        let refused: &[(&[&str], &str)] = &[
            (&["--workspace"], "needs a folder"),
            (&["--workspace", "/no/such/folder"], "not an existing folder"),
            (&["--verbose"], "unknown option"),
            (&["a", "b"], "one chat at a time"),
            (&["--workspace", here, "abc"], "is for a new chat"),
        ];
        for (args, words) in refused {
            let error = parse(args).unwrap_err();
            assert!(error.contains(words), "{args:?}: {error}");
        }
    }
}
