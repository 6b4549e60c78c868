//! A server's resource attached to a message (`@server:uri`, DESIGN §17): each content it
//! read is written into the chat's attachments folder beside the message's files, under a
//! name unique in the chat, exactly as a pasted image is; an image is marked so.

use std::collections::HashSet;
use std::path::Path;

use preflight_protocol::chat::Attachment;

use super::{image_type_of, unique_name, Copies, MAX_ATTACHMENTS};
use crate::lifecycle::error::ApiError;

/// One content of a resource, ready to keep: its file name, what it came from (the
/// `@server:uri` the user typed) and its bytes.
pub struct ResourceFile {
    pub name: String,
    pub source: String,
    pub bytes: Vec<u8>,
}

/// Writes `files` into `dir` beside the copies already made for the same message; `taken`
/// holds the names the chat's attachments used before this message.
pub fn write_resources(
    copies: &mut Copies,
    files: &[ResourceFile],
    dir: &Path,
    taken: &[Attachment],
) -> Result<(), ApiError> {
    let count = copies.attachments.len() + files.len();
    if count > MAX_ATTACHMENTS {
        return Err(ApiError::bad_request(format!(
            "a message may carry at most {MAX_ATTACHMENTS} files and resources; this one has {count}"
        )));
    }
    if files.is_empty() {
        return Ok(());
    }
    std::fs::create_dir_all(dir)
        .map_err(|error| ApiError::internal(format!("cannot create {}: {error}", dir.display())))?;
    let mut names: HashSet<String> =
        taken.iter().chain(&copies.attachments).map(|a| a.name.clone()).collect();
    for file in files {
        let name = unique_name(Path::new(&file.name), &mut names);
        let target = dir.join(&name);
        preflight_files::write_new(&target, &file.bytes, preflight_files::Access::Default)
            .map_err(|error| ApiError::internal(format!("keeping {}: {error}", file.source)))?;
        copies.paths.push(target.clone());
        let size = file.bytes.len() as u64;
        copies.attachments.push(Attachment {
            name,
            size,
            source: file.source.clone(),
            workspace_path: None,
            media_type: image_type_of(&target, size),
        });
    }
    Ok(())
}
