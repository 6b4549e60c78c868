//! The query string of a request, decoded (`%XX` and `+`), for the routes that take one:
//! a bad escape or text that is not UTF-8 is `ERR_BAD_REQUEST`, never a guess.

use preflight_engine::lifecycle::ApiError;

/// A query string's `name=value` pairs in order; a name given twice keeps its first value.
pub struct QueryParams(Vec<(String, String)>);

impl QueryParams {
    pub fn parse(raw: Option<&str>) -> Result<QueryParams, ApiError> {
        let pairs = raw.unwrap_or("").split('&').filter(|pair| !pair.is_empty());
        let decoded = pairs.map(|pair| {
            let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
            Ok((decode(name)?, decode(value)?))
        });
        Ok(QueryParams(decoded.collect::<Result<_, ApiError>>()?))
    }

    /// The value of `name`, if given.
    pub fn text(&self, name: &str) -> Option<&str> {
        self.0.iter().find(|(key, _)| key == name).map(|(_, value)| value.as_str())
    }

    /// The value of `name` as a whole number, if given.
    pub fn number(&self, name: &str) -> Result<Option<u32>, ApiError> {
        let Some(value) = self.text(name) else { return Ok(None) };
        value.parse::<u32>().map(Some).map_err(|_| {
            ApiError::bad_request(format!("`{name}` must be a whole number, not {value:?}"))
        })
    }
}

fn decode(text: &str) -> Result<String, ApiError> {
    let bad = || ApiError::bad_request(format!("the query string holds a bad escape: {text:?}"));
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while at < bytes.len() {
        match bytes[at] {
            b'+' => out.push(b' '),
            b'%' => {
                let hex = text.get(at + 1..at + 3).ok_or_else(bad)?;
                out.push(u8::from_str_radix(hex, 16).map_err(|_| bad())?);
                at += 2;
            }
            byte => out.push(byte),
        }
        at += 1;
    }
    String::from_utf8(out).map_err(|_| ApiError::bad_request("the query string is not UTF-8"))
}

#[cfg(test)]
mod tests {
    use super::QueryParams;

    #[test]
    fn values_are_decoded_and_the_first_of_a_name_wins() {
        let query = "q=%D0%BE%D1%82%D1%87%D1%91%D1%82+csv&limit=5&q=second&flag";
        let params = QueryParams::parse(Some(query)).unwrap();
        assert_eq!(params.text("q"), Some("отчёт csv"));
        assert_eq!(params.number("limit").unwrap(), Some(5));
        assert_eq!(params.text("flag"), Some(""));
        assert_eq!(params.text("cursor"), None);
        assert!(params.number("flag").is_err() && params.number("q").is_err());
        for bad in ["q=%", "q=%zz", "q=%4", "q=%FF"] {
            assert!(QueryParams::parse(Some(bad)).is_err(), "{bad}");
        }
        assert!(QueryParams::parse(None).unwrap().text("q").is_none());
    }
}
