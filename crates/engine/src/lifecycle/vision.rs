//! Whether a model is shown a message's images (DESIGN §15): the one check a message with
//! images passes before anything of it is stored or copied for good.

use crate::lifecycle::error::ApiError;

/// Refuses `images` (how many the message carries) to `model` when it cannot see them
/// (`sees`): `ERR_BAD_REQUEST` naming the model. The caller stores nothing then.
pub(crate) fn refuse_unseen_images(sees: bool, model: &str, images: usize) -> Result<(), ApiError> {
    if images == 0 || sees {
        return Ok(());
    }
    Err(ApiError::bad_request(format!(
        "this message carries {images} image(s), and the model {} cannot see images (the \
         embedded model never does; a provider with `vision = false` in config.toml does not): \
         send it without them, or choose a model that sees images",
        model
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn images_are_refused_only_to_a_model_that_cannot_see_them() {
        assert!(refuse_unseen_images(true, "tiny-7b", 2).is_ok());
        assert!(refuse_unseen_images(false, "tiny-7b", 0).is_ok(), "no image, nothing to see");
        let refused = refuse_unseen_images(false, "tiny-7b", 1).unwrap_err();
        assert_eq!(refused.code, "ERR_BAD_REQUEST");
        assert!(refused.message.contains("the model tiny-7b cannot see images"), "{refused}");
    }
}
