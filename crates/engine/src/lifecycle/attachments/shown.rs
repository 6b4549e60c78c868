//! Images read back for a front end to show (DESIGN §15): a chat's image attachment by its
//! name (the conversation's thumbnails: the user's images and those tools returned) and an
//! image file the user picked or dropped (its chip in the message box, before sending).
//!
//! **Invariant:** read-only, and only images: a name is one plain file name in the chat's
//! own attachments folder (never a link, never a way out of it), and the bytes answered are
//! a PNG, JPEG, GIF or WebP of at most 20 MiB, told by the bytes themselves.

use std::io::Read;
use std::path::{Component, Path};

use preflight_protocol::chat::{human_size, image_media_type, MAX_IMAGE_BYTES};
use preflight_protocol::error_code::ErrorCode;
use preflight_protocol::ids::ChatId;

use super::{attachments_dir, source_path};
use crate::lifecycle::engine::Engine;
use crate::lifecycle::error::ApiError;

impl Engine {
    /// The bytes of the chat's image attachment `name` (a copy in its attachments folder).
    /// `ERR_NOT_FOUND` for no such chat or copy; `ERR_BAD_REQUEST` for a name that is not
    /// one plain file name, or a copy that is not an image a model is shown. Blocking.
    pub fn attachment_image(&self, chat_id: &ChatId, name: &str) -> Result<Vec<u8>, ApiError> {
        self.require_chat(chat_id)?;
        if !is_plain_name(name) {
            return Err(ApiError::bad_request(format!(
                "{name:?} is not the name of a chat's attachment"
            )));
        }
        let path = attachments_dir(self.home(), chat_id).join(name);
        let metadata = std::fs::symlink_metadata(&path).map_err(|error| match error.kind() {
            std::io::ErrorKind::NotFound => {
                ApiError::new(ErrorCode::NotFound, format!("the chat has no attachment {name:?}"))
            }
            _ => ApiError::internal(format!("reading the attachment {name:?}: {error}")),
        })?;
        if !metadata.is_file() {
            return Err(ApiError::bad_request(format!("the attachment {name:?} is not a file")));
        }
        read_image(&path, metadata.len(), name)
    }
}

/// The bytes of the image file at `path` (absolute): a file the user picked or dropped, read
/// for its chip by the rules an attachment is checked by (a regular file, not the kernel's),
/// and only when it is an image a model is shown. Blocking.
pub fn image_file(path: &str) -> Result<Vec<u8>, ApiError> {
    if !Path::new(path).is_absolute() {
        return Err(ApiError::bad_request(format!("{path:?}: give an absolute path")));
    }
    let source = source_path(path, None)?;
    let size = std::fs::metadata(&source)
        .map_err(|error| ApiError::bad_request(format!("{path:?}: {error}")))?
        .len();
    read_image(&source, size, path)
}

/// Whether `name` is one file name: no folder, no `.` or `..`, nothing the OS reads as more.
fn is_plain_name(name: &str) -> bool {
    let mut components = Path::new(name).components();
    let single = matches!(components.next(), Some(Component::Normal(part)) if part == name);
    single && components.next().is_none() && !name.contains(['/', '\\', '\0'])
}

/// Reads at most 20 MiB of `path` (of `size` bytes as its metadata said) and answers them
/// when they are an image; `what` names the file in a refusal.
fn read_image(path: &Path, size: u64, what: &str) -> Result<Vec<u8>, ApiError> {
    let too_big = |size: u64| {
        ApiError::bad_request(format!(
            "{what:?} is {}: images of at most {} are shown",
            human_size(size),
            human_size(MAX_IMAGE_BYTES)
        ))
    };
    if size > MAX_IMAGE_BYTES {
        return Err(too_big(size));
    }
    let file = std::fs::File::open(path)
        .map_err(|error| ApiError::bad_request(format!("{what:?}: {error}")))?;
    let mut bytes = Vec::with_capacity(size as usize);
    file.take(MAX_IMAGE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|error| ApiError::internal(format!("reading {what:?}: {error}")))?;
    if bytes.len() as u64 > MAX_IMAGE_BYTES {
        return Err(too_big(bytes.len() as u64));
    }
    if image_media_type(&bytes).is_none() {
        return Err(ApiError::bad_request(format!(
            "{what:?} is not a PNG, JPEG, GIF or WebP image"
        )));
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR";

    #[test]
    fn only_one_plain_file_name_names_an_attachment() {
        for name in ["shot.png", "pasted-2.png", "a b.jpg", ".hidden.png"] {
            assert!(is_plain_name(name), "{name}");
        }
        for name in ["", ".", "..", "../x.png", "a/b.png", "/etc/passwd", "a\\b.png", "x\0.png"] {
            assert!(!is_plain_name(name), "{name:?}");
        }
    }

    #[test]
    fn an_image_file_is_read_and_anything_else_refused_by_its_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let image = dir.path().join("shot.dat");
        std::fs::write(&image, PNG).unwrap();
        assert_eq!(image_file(&image.to_string_lossy()).unwrap(), PNG);
        let text = dir.path().join("notes.png");
        std::fs::write(&text, "not an image").unwrap();
        let refused = image_file(&text.to_string_lossy()).unwrap_err();
        assert!(refused.message.contains("is not a PNG, JPEG, GIF or WebP image"), "{refused}");
        assert!(image_file("shot.png").unwrap_err().message.contains("absolute path"));
        assert!(image_file("/proc/self/environ").is_err(), "the kernel's files are never read");
        let big = dir.path().join("big.png");
        let file = std::fs::File::create(&big).unwrap();
        file.set_len(MAX_IMAGE_BYTES + 1).unwrap();
        let refused = image_file(&big.to_string_lossy()).unwrap_err();
        assert!(refused.message.contains("images of at most 21.0 MB are shown"), "{refused}");
    }

    #[tokio::test]
    async fn a_chat_answers_its_own_image_copies_by_name_and_nothing_else() {
        use crate::config::KeyLookup;
        use crate::lifecycle::engine::EngineOptions;
        use preflight_mcp::McpOptions;

        let home = tempfile::tempdir().unwrap();
        let options = EngineOptions {
            home: home.path().to_owned(),
            mcp: McpOptions::new(home.path(), home.path().join("no-filesystem-server")),
            keys: KeyLookup::new(Vec::new(), |_| None),
            local_models: None,
            program: "preflight test".to_owned(),
            home_lock: None,
        };
        let engine = Engine::open(options).await.unwrap();
        let chat = engine.create_chat(Default::default()).unwrap();
        let dir = attachments_dir(home.path(), &chat.id);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("shot.png"), PNG).unwrap();
        std::fs::write(dir.join("notes.txt"), "text").unwrap();
        std::fs::write(home.path().join("secret.png"), PNG).unwrap();
        std::os::unix::fs::symlink(home.path().join("secret.png"), dir.join("link.png")).unwrap();

        assert_eq!(engine.attachment_image(&chat.id, "shot.png").unwrap(), PNG);
        let code = |name: &str| engine.attachment_image(&chat.id, name).unwrap_err().code;
        assert_eq!(code("missing.png"), ErrorCode::NotFound);
        assert_eq!(code("notes.txt"), ErrorCode::BadRequest, "not an image");
        assert_eq!(code("link.png"), ErrorCode::BadRequest, "a link is never followed");
        assert_eq!(code("../../secret.png"), ErrorCode::BadRequest, "no way out of the folder");
        let other = engine.attachment_image(&"no-such-chat".into(), "shot.png").unwrap_err();
        assert_eq!(other.code, ErrorCode::NotFound);
    }
}
