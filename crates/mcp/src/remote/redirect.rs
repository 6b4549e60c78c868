//! Where a remote MCP server's requests may be redirected: within the origin of the address
//! in `mcp.json` only (the Streamable HTTP client and the legacy SSE client both ask here).

/// The most redirects followed for one request.
const MAX_REDIRECTS: usize = 5;

/// Whether a request that started at `first` may follow a redirect to `next` after `hops`
/// redirects: only within the same origin (scheme, host, port). A redirect elsewhere would
/// carry the entry's own headers (`X-Api-Key: ${env:…}`), the session id and the tokens to a
/// host they were never meant for, so it is refused, saying where it pointed.
pub(crate) fn verdict(first: &url::Url, next: &url::Url, hops: usize) -> Result<(), String> {
    if hops > MAX_REDIRECTS {
        return Err(format!("more than {MAX_REDIRECTS} redirects"));
    }
    if next.origin() != first.origin() {
        return Err(format!(
            "refused a redirect from {} to another origin ({}): the server's headers and \
             tokens go only to the address in mcp.json",
            first.origin().ascii_serialization(),
            next.origin().ascii_serialization()
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_same_origin_redirects_are_followed() {
        let first = url::Url::parse("https://mcp.example.com/mcp").unwrap();
        let same = url::Url::parse("https://mcp.example.com/v2/mcp?x=1").unwrap();
        assert_eq!(verdict(&first, &same, 1), Ok(()));
        for elsewhere in [
            "https://evil.example.net/mcp",
            "http://mcp.example.com/mcp",
            "https://mcp.example.com:8443/mcp",
        ] {
            let next = url::Url::parse(elsewhere).unwrap();
            let why = verdict(&first, &next, 1).unwrap_err();
            assert!(why.contains("another origin"), "{elsewhere}: {why}");
        }
        assert!(verdict(&first, &same, MAX_REDIRECTS + 1).unwrap_err().contains("redirects"));
    }
}
