//! Commit names as callers pass them: untrusted strings, checked before they reach git, so a
//! caller's string can never be read as an option, a revision expression or a path.

use crate::error::CheckpointError;

/// A checkpoint's commit: 40 hexadecimal digits, lower case.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct CommitId(String);

impl CommitId {
    /// `text` as a commit name, or `NotFound` when it is not 40 hexadecimal digits.
    pub(crate) fn parse(text: &str) -> Result<CommitId, CheckpointError> {
        if text.len() == 40 && text.bytes().all(|b| b.is_ascii_hexdigit()) {
            Ok(CommitId(text.to_ascii_lowercase()))
        } else {
            Err(CheckpointError::NotFound { commit: text.chars().take(80).collect() })
        }
    }

    pub(crate) fn as_str(&self) -> &str {
        &self.0
    }

    /// The ref that keeps this checkpoint from garbage collection.
    pub(crate) fn ref_name(&self) -> String {
        format!("refs/checkpoints/{}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_forty_hex_digits_are_commit_names() {
        let cases = [
            ("0123456789abcdef0123456789ABCDEF01234567", true),
            ("0123456789abcdef0123456789abcdef0123456", false),
            ("0123456789abcdef0123456789abcdef012345678", false),
            ("HEAD", false),
            ("--output=/tmp/x", false),
            ("0123456789abcdef0123456789abcdef0123456^", false),
            ("g123456789abcdef0123456789abcdef01234567", false),
            ("", false),
        ];
        for (text, valid) in cases {
            let parsed = CommitId::parse(text);
            assert_eq!(parsed.is_ok(), valid, "{text:?}");
            if let Ok(commit) = parsed {
                assert_eq!(commit.as_str(), text.to_ascii_lowercase());
            } else {
                assert!(matches!(parsed, Err(CheckpointError::NotFound { .. })));
            }
        }
    }
}
