//! The terminal's words in English and Russian, chosen as the window chooses: the user's
//! locale (`LC_ALL`, then `LC_MESSAGES`, then `LANG`; `ru*` is Russian, anything else English).
//! Words with a number carry a `{n}`-style slot filled by [`fill`].

mod en;
mod ru;
mod words;
mod worktree;

pub use en::EN;
pub use ru::RU;
pub use words::{fill, Words};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Language {
    English,
    Russian,
}

impl Language {
    /// The language of the locale variables, read through `var` (the process's environment).
    pub fn from_locale(var: impl Fn(&str) -> Option<String>) -> Language {
        let tag = ["LC_ALL", "LC_MESSAGES", "LANG"]
            .into_iter()
            .filter_map(&var)
            .find(|value| !value.is_empty())
            .unwrap_or_default();
        if tag.to_lowercase().starts_with("ru") {
            Language::Russian
        } else {
            Language::English
        }
    }

    pub fn words(self) -> &'static Words {
        match self {
            Language::English => &EN,
            Language::Russian => &RU,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_locale_variables_choose_the_language_in_posix_order() {
        let cases: &[(&[(&str, &str)], Language)] = &[
            (&[], Language::English),
            (&[("LANG", "ru_RU.UTF-8")], Language::Russian),
            (&[("LANG", "en_US.UTF-8")], Language::English),
            (&[("LC_ALL", "ru_RU.UTF-8"), ("LANG", "en_US.UTF-8")], Language::Russian),
            (&[("LC_ALL", ""), ("LC_MESSAGES", "en_GB"), ("LANG", "ru_RU")], Language::English),
            (&[("LANG", "C.UTF-8")], Language::English),
        ];
        for (vars, expected) in cases {
            let var = |name: &str| {
                vars.iter().find(|(key, _)| *key == name).map(|(_, value)| value.to_string())
            };
            assert_eq!(Language::from_locale(var), *expected, "{vars:?}");
        }
    }

    #[test]
    fn fill_replaces_every_named_slot() {
        assert_eq!(fill(EN.tasks_done, &[("done", &1), ("total", &3)]), "1 of 3 done");
        assert_eq!(fill(RU.tasks_done, &[("done", &1), ("total", &3)]), "1 из 3 готово");
    }
}
