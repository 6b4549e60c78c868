//! The files a fork takes along: a checkpoint's files written into the folder the user chose
//! (the fork's own workspace), and the copies of the attachments of the messages it holds.
//! Both block: call them off the async threads.
//!
//! **Invariant:** the original's workspace is never written: the checkpoint's files come
//! from its shadow repository (`ShadowRepo::copy_out`), into a folder that was absent or
//! empty and lies outside that workspace. A fork that is not stored takes its folder's
//! content back (the folder too, when the fork made it).

use std::fs;
use std::path::{Path, PathBuf};

use preflight_agent::checkpoints::open_shadow;
use preflight_checkpoints::CheckpointError;
use preflight_protocol::chat::Message;
use preflight_protocol::ids::ChatId;

use crate::lifecycle::attachments::{attachments_dir, chat_attachments};
use crate::lifecycle::chat_input::checked_workspace;
use crate::lifecycle::error::{ApiError, ErrorCode};

/// A folder the fork wrote a checkpoint's files into.
#[derive(Debug)]
pub(super) struct WorkspaceCopy {
    /// As a chat's workspace is written (absolute, normalised).
    pub folder: String,
    pub files: usize,
    /// The fork made the folder (it was absent), so taking the copy back removes it.
    made: bool,
    /// What the copy wrote, relative to the folder.
    written: Vec<String>,
}

impl WorkspaceCopy {
    /// Takes the copy back: the folder as it was before (absent, or empty). In a folder that
    /// was there before, only what the copy wrote goes.
    pub(super) fn remove(&self) {
        let folder = Path::new(&self.folder);
        if self.made {
            let _ = fs::remove_dir_all(folder);
            return;
        }
        let mut parents = Vec::new();
        for file in &self.written {
            let path = folder.join(file);
            let _ = fs::remove_file(&path);
            parents.extend(
                path.ancestors().skip(1).take_while(|p| *p != folder).map(Path::to_path_buf),
            );
        }
        parents.sort_by(|a, b| {
            b.components().count().cmp(&a.components().count()).then_with(|| a.cmp(b))
        });
        parents.dedup();
        for parent in parents {
            let _ = fs::remove_dir(parent);
        }
    }
}

/// What the copy is made from: the original chat, its workspace and the checkpoint's commit.
pub(super) struct CopyFrom {
    pub home: PathBuf,
    pub chat_id: ChatId,
    pub workspace: PathBuf,
    pub commit: String,
}

/// Writes the checkpoint's files into `folder`: an absolute path to a folder that is empty or
/// absent (its parent exists), which may be a chat's workspace. Refusals are 400.
///
/// The files are written into a new folder beside it that only this fork knows, which then
/// takes the chosen folder's place in one rename: two forks into one folder, or a file put
/// there meanwhile, make the second refuse (the rename finds the folder not empty), and a
/// failure part way never touches the chosen folder.
pub(super) fn copy_checkpoint(from: &CopyFrom, folder: &str) -> Result<WorkspaceCopy, ApiError> {
    let path = Path::new(folder.trim());
    if !path.is_absolute() {
        return Err(ApiError::bad_request(format!("workspace {folder:?} is not an absolute path")));
    }
    if overlaps(path, &from.workspace) {
        return Err(ApiError::new(
            ErrorCode::ForkFolder,
            format!(
                "{folder:?} is inside the original's workspace (or holds it): a fork's copy goes \
             into a folder of its own"
            ),
        ));
    }
    let made = match fs::symlink_metadata(path) {
        Ok(meta) if meta.is_dir() => false,
        Ok(_) => {
            return Err(ApiError::new(ErrorCode::ForkFolder, format!("{folder:?} is not a folder")))
        }
        Err(_) => true,
    };
    if !made && fs::read_dir(path).map_or(true, |mut entries| entries.next().is_some()) {
        return Err(not_empty(folder));
    }
    let staging = staging_folder(path)?;
    let written = open_shadow(&from.home, &from.chat_id, &from.workspace)
        .and_then(|repo| repo.copy_out(&from.commit, &staging));
    let written = match written {
        Ok(written) => written,
        Err(error) => {
            let _ = fs::remove_dir_all(&staging);
            return Err(copy_error(&error));
        }
    };
    if fs::rename(&staging, path).is_err() {
        let _ = fs::remove_dir_all(&staging);
        return Err(not_empty(folder));
    }
    let files = written.len();
    let mut copy = WorkspaceCopy { folder: path.display().to_string(), files, made, written };
    match checked_workspace(folder, &from.home) {
        Ok(checked) => {
            copy.folder = checked;
            Ok(copy)
        }
        Err(error) => {
            copy.remove();
            Err(error)
        }
    }
}

fn not_empty(folder: &str) -> ApiError {
    ApiError::new(
        ErrorCode::ForkFolder,
        format!("the folder {folder:?} is not empty: choose an empty folder, or a new one"),
    )
}

/// A new folder beside `path`, made here (so no one else writes into it).
fn staging_folder(path: &Path) -> Result<PathBuf, ApiError> {
    let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
        return Err(ApiError::bad_request(format!("{path:?} cannot hold a chat's files")));
    };
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| since.subsec_nanos());
    let unique = format!(".{}.fork-{}-{nanos}", name.to_string_lossy(), std::process::id());
    let staging = parent.join(unique);
    fs::create_dir(&staging).map_err(|error| {
        ApiError::bad_request(format!("cannot make a folder in {parent:?}: {error}"))
    })?;
    Ok(staging)
}

/// Whether `folder` (which may not exist yet) lies in `workspace` or holds it, compared as
/// real paths.
fn overlaps(folder: &Path, workspace: &Path) -> bool {
    let real = |path: &Path| match (path.canonicalize(), path.parent(), path.file_name()) {
        (Ok(real), _, _) => real,
        (Err(_), Some(parent), Some(name)) => {
            parent.canonicalize().map_or_else(|_| path.to_path_buf(), |p| p.join(name))
        }
        _ => path.to_path_buf(),
    };
    let (folder, workspace) = (real(folder), real(workspace));
    folder.starts_with(&workspace) || workspace.starts_with(&folder)
}

/// A refused copy (the folder is inside the workspace, a path is not plain) is the request's
/// fault; anything else is `ERR_CHECKPOINT`.
fn copy_error(error: &CheckpointError) -> ApiError {
    match error {
        CheckpointError::Refused { .. } => ApiError::bad_request(error.to_string()),
        _ => ApiError::new(ErrorCode::Checkpoint, error.to_string()),
    }
}

/// Copies the attachments of `messages` from the original's folder to the fork's, so that
/// they still open there. A copy the original no longer has is skipped (it would not open in
/// the original either).
pub(super) fn copy_attachments(
    home: &Path,
    from: &ChatId,
    to: &ChatId,
    messages: &[Message],
) -> Result<(), ApiError> {
    let attachments = chat_attachments(messages);
    if attachments.is_empty() {
        return Ok(());
    }
    let (source, target) = (attachments_dir(home, from), attachments_dir(home, to));
    preflight_files::create_private_dir(&target).map_err(copy_failed)?;
    for attachment in attachments {
        // A copy's name is a plain file name in the chat's folder; anything else is skipped.
        let name = Path::new(&attachment.name);
        let original = source.join(name);
        if name.file_name() == Some(name.as_os_str()) && original.is_file() {
            fs::copy(&original, target.join(name)).map_err(copy_failed)?;
        }
    }
    Ok(())
}

fn copy_failed(error: impl std::fmt::Display) -> ApiError {
    ApiError::internal(format!("copying the attachments to the fork: {error}"))
}
