//! Attaching files to a message: each file the user names is checked (a regular file of at
//! most [`MAX_ATTACHMENT_BYTES`], at most [`MAX_ATTACHMENTS`] per message) and copied into
//! the chat's attachments folder before the message is stored, under a name unique in the
//! chat; each image pasted into the message box (`pasted.rs`) is written there the same way.
//! A file whose first bytes make it an image a model takes is marked so (`media_type`): a
//! vision model is shown it (DESIGN §15). The planner and the executor read the copy with the `read_attachment` tool, so a
//! file outside the workspace is readable without widening any MCP server's roots, and the
//! planner stays read-only.
//!
//! **Invariant:** a refused send leaves no copy behind ([`Copies`] removes them unless the
//! message was stored), and a copy is published by rename, never half-written.

use std::collections::HashSet;
use std::io::Read;
use std::path::{Path, PathBuf};

use preflight_protocol::chat::{
    human_size, image_media_type, Attachment, Message, MessageBody, PastedImage, MAX_IMAGE_BYTES,
};
use preflight_protocol::ids::ChatId;

use crate::lifecycle::error::ApiError;

/// Files one message may carry.
pub const MAX_ATTACHMENTS: usize = 10;
/// The largest file that may be attached (25 MB).
pub const MAX_ATTACHMENT_BYTES: u64 = 25_000_000;

/// `$PREFLIGHT_HOME/attachments/<chat>`: the copies of the chat's attachments.
pub fn attachments_dir(home: &Path, chat_id: &ChatId) -> PathBuf {
    home.join("attachments").join(chat_id.as_str())
}

/// Every attachment of the chat's stored messages: the user's, and the images tools
/// returned (which take their names in the same folder).
pub fn chat_attachments(messages: &[Message]) -> Vec<Attachment> {
    messages
        .iter()
        .flat_map(|message| match &message.body {
            MessageBody::User { attachments, .. } | MessageBody::Tool { attachments, .. } => {
                attachments.clone()
            }
            _ => Vec::new(),
        })
        .collect()
}

/// A file the window is about to attach (picked or dropped), checked by the rules a send
/// applies, so the message box can show its chip, or why it cannot be attached.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct PickedFile {
    pub path: String,
    pub name: String,
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub size: u64,
    /// Why it cannot be attached; none when it can.
    pub error: Option<String>,
    /// Set when it is an image a model is shown (`image/png`, …; at most 20 MiB), as the
    /// copy's `media_type` will be: the message box shows its thumbnail, and says before
    /// sending when the chat's model cannot see images.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub media_type: Option<String>,
}

/// [`PickedFile`] for an absolute path.
pub fn check_file(path: &str) -> PickedFile {
    let name = Path::new(path).file_name().map(|n| n.to_string_lossy().into_owned());
    let name = name.unwrap_or_else(|| path.to_owned());
    match source_path(path, None) {
        Ok(source) => {
            // The chip names the file that is sent, not a link's harmless name.
            let real = source.file_name().map(|n| n.to_string_lossy().into_owned());
            let name = real.unwrap_or(name);
            let size = std::fs::metadata(&source).map(|m| m.len()).unwrap_or_default();
            let media_type = image_type_of(&source, size);
            PickedFile { path: path.to_owned(), name, size, error: None, media_type }
        }
        Err(error) => PickedFile {
            path: path.to_owned(),
            name,
            size: 0,
            error: Some(error.message),
            media_type: None,
        },
    }
}

/// The copies made for one message; removed on drop unless [`Copies::keep`] was called.
pub struct Copies {
    paths: Vec<PathBuf>,
    pub attachments: Vec<Attachment>,
}

impl Copies {
    /// No files, no copies.
    pub fn none() -> Copies {
        Copies { paths: Vec::new(), attachments: Vec::new() }
    }

    pub fn keep(mut self) -> Vec<Attachment> {
        self.paths.clear();
        std::mem::take(&mut self.attachments)
    }
}

impl Drop for Copies {
    fn drop(&mut self) {
        for path in &self.paths {
            let _ = std::fs::remove_file(path);
        }
    }
}

/// Checks and copies `files` (absolute paths, or relative to the workspace) into `dir`.
/// `taken` holds the names the chat's attachments already use.
pub fn copy_attachments(
    files: &[String],
    workspace: Option<&Path>,
    dir: &Path,
    taken: &[Attachment],
) -> Result<Copies, ApiError> {
    if files.len() > MAX_ATTACHMENTS {
        return Err(ApiError::bad_request(format!(
            "a message may carry at most {MAX_ATTACHMENTS} files; this one has {}",
            files.len()
        )));
    }
    let mut names: HashSet<String> = taken.iter().map(|a| a.name.clone()).collect();
    let mut copies = Copies::none();
    if files.is_empty() {
        return Ok(copies);
    }
    std::fs::create_dir_all(dir)
        .map_err(|error| ApiError::internal(format!("cannot create {}: {error}", dir.display())))?;
    let workspace = workspace.and_then(|folder| std::fs::canonicalize(folder).ok());
    for file in files {
        let source = source_path(file, workspace.as_deref())?;
        let name = unique_name(&source, &mut names);
        let target = dir.join(&name);
        let size = copy_capped(&source, &target, file)?;
        copies.paths.push(target);
        let workspace_path = workspace.as_deref().and_then(|folder| {
            source.strip_prefix(folder).ok().map(|path| path.to_string_lossy().into_owned())
        });
        let source = source.to_string_lossy().into_owned();
        let media_type = image_type_of(&dir.join(&name), size);
        copies.attachments.push(Attachment { name, size, source, workspace_path, media_type });
    }
    Ok(copies)
}

/// The media type of the copy at `path` of `size` bytes when it is an image a model is
/// shown (at most 20 MiB; a larger one is attached as a file only).
fn image_type_of(path: &Path, size: u64) -> Option<String> {
    if size > MAX_IMAGE_BYTES {
        return None;
    }
    let mut head = [0u8; 16];
    let read = std::fs::File::open(path).and_then(|mut file| file.read(&mut head)).ok()?;
    image_media_type(&head[..read]).map(str::to_owned)
}

/// Writes the pasted `images` into `dir` beside the files copied for the same message
/// (`copies`), under names unique in the chat (`taken`: its attachments before this
/// message), exactly as those were; one that cannot be attached refuses the message.
pub fn write_pasted(
    copies: &mut Copies,
    images: &[PastedImage],
    dir: &Path,
    taken: &[Attachment],
) -> Result<(), ApiError> {
    let count = copies.attachments.len() + images.len();
    if count > MAX_ATTACHMENTS {
        return Err(ApiError::bad_request(format!(
            "a message may carry at most {MAX_ATTACHMENTS} files and images; this one has {count}"
        )));
    }
    let decoded: Vec<_> = images
        .iter()
        .enumerate()
        .map(|(i, image)| pasted::decode(image, i + 1))
        .collect::<Result<_, _>>()?;
    if decoded.is_empty() {
        return Ok(());
    }
    std::fs::create_dir_all(dir)
        .map_err(|error| ApiError::internal(format!("cannot create {}: {error}", dir.display())))?;
    let mut names: HashSet<String> =
        taken.iter().chain(&copies.attachments).map(|a| a.name.clone()).collect();
    for (image, (bytes, media_type)) in images.iter().zip(decoded) {
        let name = unique_name(Path::new(&pasted::name_of(image, media_type)), &mut names);
        let target = dir.join(&name);
        preflight_files::write_new(&target, &bytes, preflight_files::Access::Default)
            .map_err(|error| ApiError::internal(format!("keeping a pasted image: {error}")))?;
        copies.paths.push(target);
        copies.attachments.push(Attachment {
            name,
            size: bytes.len() as u64,
            source: "pasted".to_owned(),
            workspace_path: None,
            media_type: Some(media_type.to_owned()),
        });
    }
    Ok(())
}

/// Folders of the kernel's files, which are never attached (`/proc/self/environ` looks like
/// an empty regular file and holds this process's environment).
const KERNEL_FOLDERS: [&str; 3] = ["/proc", "/sys", "/dev"];

/// `path` with `.` and `..` applied, without looking at the disk.
fn lexical(path: &Path) -> PathBuf {
    let mut normal = PathBuf::new();
    for component in path.components() {
        match component {
            std::path::Component::ParentDir => {
                normal.pop();
            }
            std::path::Component::CurDir => {}
            other => normal.push(other),
        }
    }
    normal
}

/// The file `file` names, made absolute and canonical (so a workspace path is recognised):
/// a regular file, not the kernel's, and, when named in the workspace, inside it.
fn source_path(file: &str, workspace: Option<&Path>) -> Result<PathBuf, ApiError> {
    let given = Path::new(file);
    let path = match (given.is_absolute(), workspace) {
        (true, _) => given.to_path_buf(),
        (false, Some(folder)) => folder.join(given),
        (false, None) => {
            return Err(ApiError::bad_request(format!(
                "attachment {file:?}: give an absolute path (this chat has no workspace)"
            )))
        }
    };
    // A relative name climbing out (`../..`) is refused before anything is read.
    if let Some(folder) =
        workspace.filter(|folder| !given.is_absolute() && !lexical(&path).starts_with(folder))
    {
        return Err(ApiError::bad_request(format!(
            "attachment {file:?} leads out of the workspace {}: attach that file itself",
            folder.display()
        )));
    }
    let canonical = std::fs::canonicalize(&path)
        .map_err(|error| ApiError::bad_request(format!("attachment {file:?}: {error}")))?;
    if KERNEL_FOLDERS.iter().any(|folder| canonical.starts_with(folder)) {
        return Err(ApiError::bad_request(format!(
            "attachment {file:?} is {}, a file of the system (/proc, /sys, /dev), not a document",
            canonical.display()
        )));
    }
    // A name in the workspace is a file of the workspace: a link there (a repository may
    // hold one) does not lead to a file of the user's elsewhere.
    let named_inside = |folder: &Path| !given.is_absolute() || lexical(&path).starts_with(folder);
    if let Some(folder) = workspace.filter(|folder| named_inside(folder)) {
        if !canonical.starts_with(folder) {
            return Err(ApiError::bad_request(format!(
                "attachment {file:?} leads out of the workspace (to {}): attach that file itself",
                canonical.display()
            )));
        }
    }
    let metadata = std::fs::metadata(&canonical)
        .map_err(|error| ApiError::bad_request(format!("attachment {file:?}: {error}")))?;
    if !metadata.is_file() {
        return Err(ApiError::bad_request(format!("attachment {file:?} is not a regular file")));
    }
    if metadata.len() > MAX_ATTACHMENT_BYTES {
        return Err(too_big(file, metadata.len()));
    }
    Ok(canonical)
}

fn too_big(file: &str, size: u64) -> ApiError {
    ApiError::bad_request(format!(
        "attachment {file:?} is {}; files of at most {} can be attached",
        human_size(size),
        human_size(MAX_ATTACHMENT_BYTES)
    ))
}

/// The source's file name, with `-2`, `-3`… before the extension while it is taken.
fn unique_name(source: &Path, names: &mut HashSet<String>) -> String {
    let original = source.file_name().map(|n| n.to_string_lossy().into_owned());
    let original = original.filter(|n| !n.is_empty()).unwrap_or_else(|| "file".to_owned());
    let (stem, extension) = match original.rsplit_once('.') {
        Some((stem, extension)) if !stem.is_empty() => (stem.to_owned(), format!(".{extension}")),
        _ => (original.clone(), String::new()),
    };
    let mut name = original;
    let mut n = 2;
    while names.contains(&name) {
        name = format!("{stem}-{n}{extension}");
        n += 1;
    }
    names.insert(name.clone());
    name
}

/// Copies at most the cap (a file that grew past it is refused), to a temporary name
/// published by rename. Returns the bytes copied.
fn copy_capped(source: &Path, target: &Path, file: &str) -> Result<u64, ApiError> {
    let failed =
        |error: std::io::Error| ApiError::bad_request(format!("attachment {file:?}: {error}"));
    let reader = std::fs::File::open(source).map_err(failed)?;
    let temp = preflight_files::temp_path_for(target);
    let copied = (|| {
        let mut writer = std::fs::File::create(&temp)?;
        let copied = std::io::copy(&mut reader.take(MAX_ATTACHMENT_BYTES + 1), &mut writer)?;
        writer.sync_all()?;
        Ok::<u64, std::io::Error>(copied)
    })();
    let copied = match copied {
        Ok(copied) if copied <= MAX_ATTACHMENT_BYTES => copied,
        Ok(copied) => {
            let _ = std::fs::remove_file(&temp);
            return Err(too_big(file, copied));
        }
        Err(error) => {
            let _ = std::fs::remove_file(&temp);
            return Err(ApiError::internal(format!("copying attachment {file:?}: {error}")));
        }
    };
    preflight_files::persist(&temp, target).map_err(|error| {
        let _ = std::fs::remove_file(&temp);
        ApiError::internal(format!("copying attachment {file:?}: {error}"))
    })?;
    Ok(copied)
}

mod pasted;
pub(crate) mod resources;
pub(crate) mod shown;
#[cfg(test)]
mod tests;
