//! Images in the model's view (DESIGN §15): the images of a chat's messages — a user's
//! attached or pasted ones, those a tool returned — are kept as files in the chat's
//! attachments folder and listed on their message (`Attachment::media_type`); the history's
//! builder shows them to a vision model by loading them here ([`ImageLoader`]), and a round's
//! recorder keeps a tool's images there ([`keep_tool_images`]).
//!
//! **Invariant:** a missing or unreadable copy never fails a turn: the model reads a one-line
//! note in its place. `ModelMessage::from_stored` stays pure; only this file reads the copies.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use base64::Engine as _;
use preflight_llm::ModelMessage;
use preflight_protocol::chat::{
    image_extension, image_media_type, Attachment, ImagePart, Message, MessageBody, MAX_IMAGE_BYTES,
};
use preflight_protocol::ids::MessageId;

/// Shows the images of stored messages to the model, each copy read once per turn.
pub struct ImageLoader {
    /// The chat's attachments folder; `None` for a model that is not shown images.
    dir: Option<PathBuf>,
    /// By attachment name: the image, or why it cannot be shown.
    loaded: HashMap<String, Result<ImagePart, String>>,
}

impl ImageLoader {
    /// Loads images from the chat's attachments folder `dir`.
    pub fn new(dir: PathBuf) -> ImageLoader {
        ImageLoader { dir: Some(dir), loaded: HashMap::new() }
    }

    /// For a model that is not shown images: messages as `from_stored` makes them (their
    /// images still named in their text).
    pub fn blind() -> ImageLoader {
        ImageLoader { dir: None, loaded: HashMap::new() }
    }

    /// `dir` when `sees_images`, else blind.
    pub fn for_model(dir: PathBuf, sees_images: bool) -> ImageLoader {
        if sees_images {
            ImageLoader::new(dir)
        } else {
            ImageLoader::blind()
        }
    }

    /// The model's view of `message`, with the images it lists (see [`ImageLoader::show`]).
    pub fn view(&mut self, message: &Message) -> ModelMessage {
        let mut view = ModelMessage::from_stored(message);
        self.show(message, &mut view);
        view
    }

    /// Adds to `view`, the model's view of stored `message`, the images `message` lists; a
    /// copy that cannot be read is a note in the text instead.
    pub fn show(&mut self, message: &Message, view: &mut ModelMessage) {
        let attachments = match &message.body {
            MessageBody::User { attachments, .. } | MessageBody::Tool { attachments, .. } => {
                attachments
            }
            MessageBody::Assistant { .. } | MessageBody::Compaction { .. } => return,
        };
        let Some(dir) = self.dir.clone() else { return };
        for attachment in attachments.iter().filter(|a| a.media_type.is_some()) {
            let loaded = self
                .loaded
                .entry(attachment.name.clone())
                .or_insert_with(|| load(&dir, &attachment.name));
            match (loaded.clone(), view.images_mut()) {
                (Ok(image), Some(images)) => images.push(image),
                (Err(why), _) => push_note(view, &attachment.name, &why),
                (Ok(_), None) => {}
            }
        }
    }
}

/// Appends to the message's text why an image of it is not shown.
fn push_note(view: &mut ModelMessage, name: &str, why: &str) {
    if let ModelMessage::User { content, .. } | ModelMessage::Tool { content, .. } = view {
        content.push_str(&format!("\n[image {name} could not be shown: {why}]"));
    }
}

/// The image at `dir/name`, or why it cannot be shown. Blocking, and brief: one file of at
/// most 20 MiB.
fn load(dir: &Path, name: &str) -> Result<ImagePart, String> {
    let cap = MAX_IMAGE_BYTES as usize + 1;
    let read =
        preflight_files::read_regular_capped(dir, Path::new(name), cap).map_err(|error| {
            tracing::warn!(%error, "an image of the chat cannot be read");
            match error.source.kind() {
                std::io::ErrorKind::NotFound => "its copy is gone".to_owned(),
                _ => "its copy cannot be read".to_owned(),
            }
        })?;
    if read.truncated {
        return Err("it is over 20 MiB".to_owned());
    }
    let media_type = image_media_type(&read.bytes).ok_or("it is no longer an image")?;
    Ok(ImagePart::new(media_type, base64::engine::general_purpose::STANDARD.encode(&read.bytes)))
}

/// Keeps the images a tool returned in the chat's attachments folder `dir`, as
/// `<message>-<n>.<ext>` (the tool message's id makes the name unique in the chat), and
/// lists them for the message. An image that cannot be written is left out (the model was
/// shown it this turn; later turns read the message's text, which describes it).
pub fn keep_tool_images(
    dir: &Path,
    message: &MessageId,
    tool: &str,
    images: &[ImagePart],
) -> Vec<Attachment> {
    if images.is_empty() {
        return Vec::new();
    }
    if let Err(error) = std::fs::create_dir_all(dir) {
        tracing::warn!(%error, "the chat's attachments folder cannot be made");
        return Vec::new();
    }
    let kept = images.iter().enumerate().filter_map(|(n, image)| {
        let bytes = base64::engine::general_purpose::STANDARD.decode(image.data.as_bytes()).ok()?;
        let name = format!("{message}-{}.{}", n + 1, image_extension(&image.media_type));
        let access = preflight_files::Access::Default;
        let written = preflight_files::write_new(&dir.join(&name), &bytes, access);
        if let Err(error) = written {
            tracing::warn!(%error, "a tool's image cannot be kept");
            return None;
        }
        Some(Attachment {
            name,
            size: bytes.len() as u64,
            source: format!("tool {tool}"),
            workspace_path: None,
            media_type: Some(image.media_type.clone()),
        })
    });
    kept.collect()
}

#[cfg(test)]
mod tests;
