//! [`ApiKey`]: a provider's key, which never shows in a `Debug` or an error.

use std::fmt;

/// An API key. Its `Debug` shows no part of it, and it has no `Display`: the only way to
/// the text is [`ApiKey::expose`], called where a request header is built.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    pub fn new(key: impl Into<String>) -> ApiKey {
        ApiKey(key.into())
    }

    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey(<redacted>)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_never_show_in_debug_output() {
        let key = ApiKey::new("sk-secret-123");
        let settings = format!("{:?}", Some(key.clone()));
        assert!(!settings.contains("secret"), "{settings}");
        assert_eq!(key.expose(), "sk-secret-123");
    }
}
