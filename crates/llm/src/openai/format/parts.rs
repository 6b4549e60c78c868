//! Images in the chat-completions format (DESIGN §15): a user message with images sends its
//! `content` as parts, the text first, then each image as a `data:` URL; a tool's images go
//! in a user message of their own right after the round's tool results, since the API's tool
//! role takes text only. Without images a message stays a plain string, byte for byte.

use std::borrow::Cow;

use preflight_protocol::chat::ImagePart;
use serde::{Serialize, Serializer};

use crate::types::{ModelMessage, ModelRequest};

/// A user message's `content`: a string, or parts when it carries images.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub(super) enum UserContent<'a> {
    Text(Cow<'a, str>),
    Parts(Vec<Part<'a>>),
}

impl<'a> UserContent<'a> {
    /// `text`, and after it `images` when there are any.
    pub(super) fn new(text: Cow<'a, str>, images: &'a [ImagePart]) -> UserContent<'a> {
        if images.is_empty() {
            return UserContent::Text(text);
        }
        let mut parts = vec![Part::Text { text }];
        parts.extend(images.iter().map(Part::image));
        UserContent::Parts(parts)
    }
}

#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(super) enum Part<'a> {
    Text { text: Cow<'a, str> },
    ImageUrl { image_url: ImageUrl<'a> },
}

impl<'a> Part<'a> {
    fn image(image: &'a ImagePart) -> Part<'a> {
        Part::ImageUrl { image_url: ImageUrl { url: DataUrl(image) } }
    }
}

#[derive(Debug, Serialize)]
pub(super) struct ImageUrl<'a> {
    url: DataUrl<'a>,
}

/// `data:<media type>;base64,<data>`, written straight into the body: an image of megabytes
/// is not copied into a URL string first.
#[derive(Debug)]
struct DataUrl<'a>(&'a ImagePart);

impl Serialize for DataUrl<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let image = self.0;
        serializer.collect_str(&format_args!("data:{};base64,{}", image.media_type, image.data))
    }
}

/// The first index of the run of tool results that ends at `end`.
fn run_start(messages: &[ModelMessage], end: usize) -> usize {
    let before = messages[..end].iter().rev();
    end - before.take_while(|m| matches!(m, ModelMessage::Tool { .. })).count()
}

/// Whether `index` is the last tool result of its round and some result of the round has
/// images: the round's images message follows it.
pub(super) fn images_follow(request: &ModelRequest, index: usize) -> bool {
    let messages = &request.messages;
    let is_tool = |at: usize| matches!(messages.get(at), Some(ModelMessage::Tool { .. }));
    is_tool(index)
        && !is_tool(index + 1)
        && messages[run_start(messages, index)..=index].iter().any(|m| !m.images().is_empty())
}

/// The user message of the images of the round's tool results ending at `end`, each tool's
/// introduced by which call returned them; it carries the request's tail when it is last.
pub(super) fn tool_images(request: &ModelRequest, end: usize) -> Vec<Part<'_>> {
    let mut parts = Vec::new();
    for message in &request.messages[run_start(&request.messages, end)..=end] {
        let ModelMessage::Tool { call_id, name, images, .. } = message else { continue };
        if images.is_empty() {
            continue;
        }
        let text = format!("The image(s) {name} returned (call {call_id}):");
        parts.push(Part::Text { text: Cow::Owned(text) });
        parts.extend(images.iter().map(Part::image));
    }
    if let Some(tail) = request.joined_tail().filter(|_| end + 1 == request.messages.len()) {
        parts.push(Part::Text { text: Cow::Borrowed(tail) });
    }
    parts
}
