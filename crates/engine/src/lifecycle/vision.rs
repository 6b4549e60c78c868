//! Whether a model is shown a message's images (DESIGN §15): the one check a message with
//! images passes before anything of it is stored or copied for good.

use preflight_llm::Provider;

use crate::lifecycle::error::ApiError;

/// Refuses `images` (how many the message carries) to `provider` when its model cannot see
/// them: `ERR_BAD_REQUEST` naming the model. The caller stores nothing then.
pub(crate) fn refuse_unseen_images(provider: &dyn Provider, images: usize) -> Result<(), ApiError> {
    if images == 0 || provider.sees_images() {
        return Ok(());
    }
    Err(ApiError::bad_request(format!(
        "this message carries {images} image(s), and the model {} cannot see images (the \
         embedded model never does; a provider with `vision = false` in config.toml does not): \
         send it without them, or choose a model that sees images",
        provider.model()
    )))
}

#[cfg(test)]
mod tests {
    use super::*;
    use preflight_llm::{LlmError, ModelRequest, ResponseStream};
    use tokio_util::sync::CancellationToken;

    struct Model(bool);

    #[async_trait::async_trait]
    impl Provider for Model {
        fn model(&self) -> &str {
            "tiny-7b"
        }
        fn sees_images(&self) -> bool {
            self.0
        }
        async fn stream(
            &self,
            _: &ModelRequest,
            _: &CancellationToken,
        ) -> Result<ResponseStream, LlmError> {
            Err(LlmError::Cancelled)
        }
    }

    #[test]
    fn images_are_refused_only_to_a_model_that_cannot_see_them() {
        assert!(refuse_unseen_images(&Model(true), 2).is_ok());
        assert!(refuse_unseen_images(&Model(false), 0).is_ok(), "no image, nothing to see");
        let refused = refuse_unseen_images(&Model(false), 1).unwrap_err();
        assert_eq!(refused.code, "ERR_BAD_REQUEST");
        assert!(refused.message.contains("the model tiny-7b cannot see images"), "{refused}");
    }
}
