//! Remote servers of `mcp.json`: `{"url": "https://…/mcp", "headers": {…}}`, in the format
//! other clients use (`"type": "http"` or `"streamable-http"`; `"sse"` for the older
//! HTTP+SSE transport), plus Preflight's optional `"oauth"` for a client registered with the
//! server's authorization server beforehand (`clientId`, `clientSecret`, `scopes`).
//!
//! Header values and the client secret may name variables of Preflight's own environment
//! as `${env:NAME}`, so a token need not sit in the file; they are filled in when the
//! server is started ([`Remote::resolved_headers`]), and a variable that is not set is an
//! error naming it. Nothing here does I/O but reading those variables.

/// How a remote server is spoken to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RemoteKind {
    /// Streamable HTTP (MCP 2025-03-26 and later): one endpoint, POST and GET.
    StreamableHttp,
    /// The HTTP+SSE transport of MCP 2024-11-05: a GET event stream naming a POST endpoint.
    Sse,
}

/// A client registered beforehand with the server's authorization server.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PreRegistered {
    pub client_id: String,
    /// May be `${env:NAME}`; `None`: a public client.
    pub client_secret: Option<String>,
}

/// A remote entry as configured (`${env:…}` not yet filled in).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Remote {
    pub url: String,
    pub kind: RemoteKind,
    /// Whether the entry said its `"type"` (else HTTP+SSE is tried when Streamable HTTP is
    /// refused).
    pub typed: bool,
    /// In file order.
    pub headers: Vec<(String, String)>,
    pub client: Option<PreRegistered>,
    /// Scopes to ask for when the server names none (`WWW-Authenticate` wins).
    pub scopes: Vec<String>,
}

/// The `"type"` values accepted for a remote entry (other clients write each of them).
pub(super) fn remote_kind(kind: Option<&str>) -> Result<Option<RemoteKind>, String> {
    match kind {
        None | Some("stdio") => Ok(None),
        Some("http" | "streamable-http" | "streamableHttp" | "streamable_http") => {
            Ok(Some(RemoteKind::StreamableHttp))
        }
        Some("sse") => Ok(Some(RemoteKind::Sse)),
        Some(other) => {
            Err(format!("`type` is `{other}`; use `stdio`, `http` (Streamable HTTP) or `sse`"))
        }
    }
}

/// Checks a configured URL: absolute http(s), with a host; plain `http` only on loopback
/// would be too strict for company networks, so it is allowed, but never with userinfo
/// (a password in the URL would be logged and shown).
pub(super) fn check_url(url: &str) -> Result<(), String> {
    let parsed = url::Url::parse(url).map_err(|error| format!("`url` is not a URL ({error})"))?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(format!(
            "`url` must start with https:// or http://, not `{}:`",
            parsed.scheme()
        ));
    }
    if parsed.host_str().is_none_or(str::is_empty) {
        return Err("`url` has no host".into());
    }
    if !parsed.username().is_empty() || parsed.password().is_some() {
        return Err("`url` must not hold a user name or password; put a token in `headers`".into());
    }
    Ok(())
}

/// Checks a header name and that its value is a valid HTTP header value once filled in
/// with *some* text (the variables are only read at start).
pub(super) fn check_header(name: &str, value: &str) -> Result<(), String> {
    http::HeaderName::from_bytes(name.as_bytes())
        .map_err(|_| format!("header `{name}` is not a valid HTTP header name"))?;
    if value.contains(['\r', '\n']) {
        return Err(format!("header `{name}` has a line break in its value"));
    }
    for reference in references(value) {
        let reference = reference?;
        if reference.is_empty() {
            return Err(format!("header `{name}` has an empty `${{env:}}`"));
        }
    }
    Ok(())
}

impl Remote {
    /// The headers with every `${env:NAME}` filled in from `lookup` (the process
    /// environment in the host); a variable that is not set is an error naming it.
    pub(crate) fn resolved_headers(
        &self,
        lookup: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Vec<(String, String)>, String> {
        let mut resolved = Vec::with_capacity(self.headers.len());
        for (name, value) in &self.headers {
            let filled = fill(value, lookup).map_err(|variable| {
                format!("header `{name}` uses ${{env:{variable}}}, which is not set")
            })?;
            resolved.push((name.clone(), filled));
        }
        Ok(resolved)
    }

    /// The pre-registered client's secret with `${env:NAME}` filled in.
    pub(crate) fn resolved_secret(
        &self,
        lookup: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Option<String>, String> {
        let Some(secret) = self.client.as_ref().and_then(|c| c.client_secret.as_deref()) else {
            return Ok(None);
        };
        fill(secret, lookup).map(Some).map_err(|variable| {
            format!("`clientSecret` uses ${{env:{variable}}}, which is not set")
        })
    }
}

/// `text` with each `${env:NAME}` replaced; `Err(NAME)` for the first one not set.
fn fill(text: &str, lookup: &dyn Fn(&str) -> Option<String>) -> Result<String, String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("${env:") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 6..];
        let Some(end) = after.find('}') else {
            out.push_str(&rest[start..]);
            return Ok(out);
        };
        let name = &after[..end];
        out.push_str(&lookup(name).ok_or_else(|| name.to_owned())?);
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// The variable names `${env:…}` in `text` refers to; an unclosed one is an error.
fn references(text: &str) -> impl Iterator<Item = Result<&str, String>> {
    let mut rest = text;
    std::iter::from_fn(move || {
        let start = rest.find("${env:")?;
        let after = &rest[start + 6..];
        match after.find('}') {
            Some(end) => {
                rest = &after[end + 1..];
                Some(Ok(&after[..end]))
            }
            None => {
                rest = "";
                Some(Err("an `${env:` is not closed with `}`".to_owned()))
            }
        }
    })
}
