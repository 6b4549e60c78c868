//! Plan folder names: `PLAN_<slug>` from the plan's title (made unique on disk by
//! `disk/materialize.rs`).

/// A slug is at most this many characters, so folder names stay readable in a tree.
pub(crate) const MAX_SLUG_CHARS: usize = 48;

/// Lower-case ASCII letters and digits joined by single `_`: "Add payment webhook
/// handling!" → `add_payment_webhook_handling`. Letters outside ASCII are dropped after
/// removing accents where that leaves ASCII (é → e); a title with nothing left gives `plan`.
pub(crate) fn slug(title: &str) -> String {
    let mut slug = String::new();
    for c in title.chars().flat_map(fold_accent).flat_map(char::to_lowercase) {
        if c.is_ascii_alphanumeric() {
            if slug.len() >= MAX_SLUG_CHARS {
                break;
            }
            slug.push(c);
        } else if !slug.is_empty() && !slug.ends_with('_') {
            slug.push('_');
        }
    }
    let slug = slug.trim_end_matches('_');
    if slug.is_empty() {
        "plan".to_owned()
    } else {
        slug.to_owned()
    }
}

/// Common Latin letters with diacritics (the seed's own Polish among them) to ASCII.
fn fold_accent(c: char) -> Option<char> {
    const FROM: &str =
        "ąćęłńóśźżáàâäãåčďéèêëěíìîïňöôõřšťúùûüůýÿžçñĄĆĘŁŃÓŚŹŻÁÀÂÄÃÅČĎÉÈÊËĚÍÌÎÏŇÖÔÕŘŠŤÚÙÛÜŮÝŸŽÇÑ";
    const TO: &str =
        "acelnoszzaaaaaacdeeeeeiiiinooorstuuuuuyyzcnACELNOSZZAAAAAACDEEEEEIIIINOOORSTUUUUUYYZCN";
    match FROM.chars().position(|from| from == c) {
        Some(index) => TO.chars().nth(index),
        None => Some(c),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_from_titles() {
        let table = [
            ("Add payment webhook handling", "add_payment_webhook_handling"),
            ("  Fix: the `parser`!! (v2) ", "fix_the_parser_v2"),
            ("Zażółć gęślą jaźń", "zazolc_gesla_jazn"),
            ("Сборка проекта", "plan"),
            ("", "plan"),
            ("---", "plan"),
        ];
        for (title, expected) in table {
            assert_eq!(slug(title), expected, "{title:?}");
        }
        let long = slug(&"word ".repeat(40));
        assert!(long.len() <= MAX_SLUG_CHARS && !long.ends_with('_'), "{long}");
    }
}
