//! Images a vision model is shown (DESIGN §15): what one is in a model request
//! ([`ImagePart`]), how a file is told to be one (by its first bytes, never its name), and an
//! image the window pastes into a message ([`PastedImage`]). Pure.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

/// The largest image a model is shown (20 MiB, DESIGN §15): providers refuse more.
pub const MAX_IMAGE_BYTES: u64 = 20 * 1024 * 1024;

/// The formats both provider APIs take, each with the first bytes that mark it.
const FORMATS: [(&str, &[u8]); 4] = [
    ("image/png", b"\x89PNG\r\n\x1a\n"),
    ("image/jpeg", b"\xff\xd8\xff"),
    ("image/gif", b"GIF8"),
    ("image/webp", b"RIFF"),
];

/// The media type of an image in a format models take (PNG, JPEG, GIF, WebP), read from
/// its first bytes; `None` for anything else. A name's extension says nothing: a `.png` of
/// text is not an image, and the provider would refuse it.
pub fn image_media_type(bytes: &[u8]) -> Option<&'static str> {
    let (media_type, magic) = FORMATS.iter().find(|(_, magic)| bytes.starts_with(magic))?;
    // RIFF holds WAV and AVI too: WebP names itself at bytes 8..12.
    let webp = *media_type != "image/webp" || bytes.get(8..12) == Some(b"WEBP".as_slice());
    (webp && bytes.len() > magic.len()).then_some(*media_type)
}

/// One image in a model request: its media type and its bytes as base64, shared by every
/// clone of the request (a history is cloned per call; an image may be megabytes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImagePart {
    pub media_type: String,
    pub data: Arc<str>,
}

impl ImagePart {
    pub fn new(media_type: impl Into<String>, base64: impl Into<Arc<str>>) -> ImagePart {
        ImagePart { media_type: media_type.into(), data: base64.into() }
    }

    /// The image's size once decoded.
    pub fn decoded_len(&self) -> usize {
        base64_decoded_len(&self.data)
    }
}

/// The size of base64 `data` once decoded (padding counted out).
pub fn base64_decoded_len(data: &str) -> usize {
    let padding = data.bytes().rev().take_while(|b| *b == b'=').count();
    (data.len() / 4 * 3).saturating_sub(padding)
}

/// An image pasted or dropped into the message box, sent with the message as base64
/// (`POST /v1/chats/{id}/messages` `images`). It is kept like an attached file: written to
/// the chat's attachments folder, under `name` (or `pasted.<ext>`) made unique in the chat.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct PastedImage {
    /// A file name for it; without one it is `pasted.png` (or `.jpg`, `.gif`, `.webp`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub name: Option<String>,
    /// What the sender says it is; the bytes decide (PNG, JPEG, GIF or WebP).
    pub media_type: String,
    /// The image's bytes, base64 (standard alphabet, padded); at most 20 MiB decoded.
    pub data: String,
}

/// The file extension of an image's media type, for a pasted image's name.
pub fn image_extension(media_type: &str) -> &'static str {
    match media_type {
        "image/jpeg" => "jpg",
        "image/gif" => "gif",
        "image/webp" => "webp",
        _ => "png",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn images_are_told_by_their_first_bytes() {
        let cases: [(&[u8], Option<&str>); 8] = [
            (b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR", Some("image/png")),
            (b"\xff\xd8\xff\xe0\0\x10JFIF", Some("image/jpeg")),
            (b"GIF89a\x01\0\x01\0", Some("image/gif")),
            (b"RIFF\x24\0\0\0WEBPVP8 ", Some("image/webp")),
            (b"RIFF\x24\0\0\0WAVEfmt ", None),
            (b"\x89PNG\r\n\x1a\n", None),
            (b"just text that claims to be a .png", None),
            (b"", None),
        ];
        for (bytes, expected) in cases {
            assert_eq!(image_media_type(bytes), expected, "{bytes:?}");
        }
    }

    #[test]
    fn decoded_sizes_count_the_padding_out() {
        let sizes: Vec<usize> = ["", "QQ==", "QUI=", "QUJD", "QUJDRA=="]
            .iter()
            .map(|d| base64_decoded_len(d))
            .collect();
        assert_eq!(sizes, [0, 1, 2, 3, 4]);
        assert_eq!(ImagePart::new("image/png", "QUJD").decoded_len(), 3);
    }
}
