//! An image pasted or dropped into the message box (`PastedImage`): read from its base64,
//! checked to be an image a model takes (by its bytes, whatever the sender called it) of at
//! most 20 MiB, and named. Its parent writes it beside the message's copied files.

use std::path::Path;

use base64::Engine as _;
use preflight_protocol::chat::{
    base64_decoded_len, human_size, image_extension, image_media_type, PastedImage, MAX_IMAGE_BYTES,
};

use crate::lifecycle::error::ApiError;

/// The image's bytes and media type, or why it cannot be attached (`number` counts from 1,
/// for the message).
pub(super) fn decode(
    image: &PastedImage,
    number: usize,
) -> Result<(Vec<u8>, &'static str), ApiError> {
    let size = base64_decoded_len(&image.data) as u64;
    if size > MAX_IMAGE_BYTES {
        return Err(ApiError::bad_request(format!(
            "pasted image {number} is {}; images of at most 20 MiB can be sent",
            human_size(size)
        )));
    }
    let bytes =
        base64::engine::general_purpose::STANDARD.decode(image.data.trim()).map_err(|error| {
            ApiError::bad_request(format!("pasted image {number} is not base64: {error}"))
        })?;
    let media_type = image_media_type(&bytes).ok_or_else(|| {
        ApiError::bad_request(format!(
            "pasted image {number} is not a PNG, JPEG, GIF or WebP image (it says {:?})",
            image.media_type
        ))
    })?;
    Ok((bytes, media_type))
}

/// The name it is kept under before it is made unique: the last part of the name it came
/// with (never a path), else `pasted.<ext>`.
pub(super) fn name_of(image: &PastedImage, media_type: &str) -> String {
    let given = image.name.as_deref().map(|name| Path::new(name.trim()));
    let last = given.and_then(Path::file_name).map(|name| name.to_string_lossy().into_owned());
    last.filter(|name| !name.is_empty())
        .unwrap_or_else(|| format!("pasted.{}", image_extension(media_type)))
}
