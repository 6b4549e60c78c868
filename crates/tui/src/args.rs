//! `preflight chat [--workspace DIR [--worktree | --no-worktree]] [--no-bell] [CHAT_ID]` (or
//! `--help`), parsed and checked before anything opens.

use std::path::{Path, PathBuf};

use crate::error::TuiError;
use crate::locale::{fill, Language, Words};

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
    /// `--worktree` (true) or `--no-worktree` (false): whether a new chat works in a git
    /// worktree of its own (DESIGN §18); absent: `[workspace] worktrees` decides.
    pub worktree: Option<bool>,
}

impl ChatArgs {
    /// The arguments, refused in the language of the user's locale where they are wrong.
    pub fn parse(args: &[String]) -> Result<ChatArgs, TuiError> {
        let words = Language::from_locale(|name| std::env::var(name).ok()).words();
        ChatArgs::parse_in(args, words)
    }

    /// The arguments, refused in `words` where they are wrong.
    pub fn parse_in(args: &[String], words: &Words) -> Result<ChatArgs, TuiError> {
        let mut parsed =
            ChatArgs { workspace: None, chat_id: None, help: false, bell: true, worktree: None };
        let mut rest = args.iter();
        while let Some(arg) = rest.next() {
            match arg.as_str() {
                "--help" | "-h" => parsed.help = true,
                "--no-bell" => parsed.bell = false,
                "--worktree" => parsed.worktree = Some(true),
                "--no-worktree" => parsed.worktree = Some(false),
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
        if parsed.worktree == Some(true) {
            check_worktree(&parsed, words)?;
        }
        Ok(parsed)
    }
}

/// `--worktree` wants a new chat whose folder is a git repository (the engine's own test: the
/// folder holds `.git`), said before anything starts.
fn check_worktree(parsed: &ChatArgs, words: &Words) -> Result<(), TuiError> {
    let words = words.worktree;
    let refused = |text: String| Err(TuiError::Refused(text));
    match &parsed.workspace {
        _ if parsed.chat_id.is_some() => refused(words.for_a_new_chat.to_owned()),
        None => refused(words.needs_workspace.to_owned()),
        Some(dir) if !Path::new(dir).join(".git").exists() => {
            refused(fill(words.not_a_repository, &[("dir", &dir.display())]))
        }
        Some(_) => Ok(()),
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
        ChatArgs::parse_in(&args, Language::English.words()).map_err(|error| error.to_string())
    }

    #[test]
    fn arguments_are_checked_before_anything_opens() {
        let here = std::env::temp_dir();
        let here = here.to_str().unwrap();
        let plain =
            ChatArgs { workspace: None, chat_id: None, help: false, bell: true, worktree: None };
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

    #[test]
    fn a_worktree_is_asked_for_a_new_chat_in_a_git_repository_and_refused_in_words() {
        let (plain, repository) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        std::fs::create_dir(repository.path().join(".git")).unwrap();
        let (plain, repository) =
            (plain.path().to_str().unwrap(), repository.path().to_str().unwrap());
        let asked = parse(&["--workspace", repository, "--worktree"]).unwrap();
        assert_eq!(asked.worktree, Some(true));
        assert_eq!(parse(&["--workspace", plain, "--no-worktree"]).unwrap().worktree, Some(false));
        let english: &[(&[&str], &str)] = &[
            (&["--worktree"], "--worktree needs --workspace DIR"),
            (&["--worktree", "abc"], "--worktree is for a new chat"),
            (&["--workspace", plain, "--worktree"], "is not a git repository"),
        ];
        for (args, words) in english {
            let error = parse(args).unwrap_err();
            assert!(error.contains(words), "{args:?}: {error}");
        }
        let args = ["--worktree".to_owned(), "--workspace".to_owned(), plain.to_owned()];
        let russian = ChatArgs::parse_in(&args, Language::Russian.words()).unwrap_err();
        assert!(russian.to_string().contains("не git-репозиторий"), "{russian}");
    }
}
