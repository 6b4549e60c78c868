//! Writes `config.toml`: the settings screen's edit of `[provider]` and `[plan_mode]` laid
//! over the file as it is, checked by [`Config::parse`] before anything is written, then
//! put in place atomically with fsync (`preflight_files`).
//!
//! Keys and sections the edit does not touch (`[planner]`, `max_tokens`, timeouts, …) are
//! kept; comments are not (the file is rewritten from its parsed table).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use preflight_llm::ProviderKind;

use crate::config::error::ConfigError;
use crate::config::parse::line_of;
use crate::config::settings::{Config, PlanModeDefaults, CONFIG_FILE};

/// What the settings screen sets. An empty `base_url` or `model` removes the key (the
/// kind's default URL; no model, which only the embedded kind accepts).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigEdit {
    pub kind: ProviderKind,
    pub base_url: String,
    pub model: String,
    pub plan_mode: PlanModeDefaults,
}

/// A new `config.toml`, checked and ready to write, with the file it replaces so that a
/// later failure can put that back.
#[derive(Debug)]
pub struct PendingConfig {
    path: PathBuf,
    text: String,
    config: Config,
    /// The file's bytes before, or `None` when there was none.
    previous: Option<Vec<u8>>,
}

impl PendingConfig {
    /// Reads `{home}/config.toml` (none is an empty file), applies `edit` and parses the
    /// result as [`Config::load`] would. Writes nothing.
    pub fn prepare(home: &Path, edit: &ConfigEdit) -> Result<PendingConfig, ConfigError> {
        PendingConfig::prepare_with(home, |table| edit.apply(table))
    }

    /// [`PendingConfig::prepare`] with any change of the file's table: e.g. a
    /// [`ProviderSectionEdit`] of `[providers.NAME]`.
    pub fn prepare_with(
        home: &Path,
        change: impl FnOnce(&mut toml::Table),
    ) -> Result<PendingConfig, ConfigError> {
        let path = home.join(CONFIG_FILE);
        let previous = match std::fs::read(&path) {
            Ok(bytes) => Some(bytes),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => None,
            Err(error) => return Err(ConfigError::Read { path, source: Arc::new(error) }),
        };
        let mut table = match &previous {
            Some(bytes) => parse_table(&path, &String::from_utf8_lossy(bytes))?,
            None => toml::Table::new(),
        };
        change(&mut table);
        let text = toml::to_string(&table).map_err(|error| ConfigError::Syntax {
            path: path.clone(),
            line: 1,
            problem: format!("cannot be written back as TOML: {error}"),
        })?;
        let config = Config::parse(&text, &path)?;
        Ok(PendingConfig { path, text, config, previous })
    }

    /// The configuration the new file holds.
    pub fn config(&self) -> &Config {
        &self.config
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Replaces the file (creating its folder when needed).
    pub fn write(&self) -> Result<(), ConfigError> {
        if let Some(home) = self.path.parent() {
            std::fs::create_dir_all(home).map_err(|error| {
                write_error(&self.path, preflight_files::FileError::new(home, error))
            })?;
        }
        preflight_files::write_atomic(&self.path, self.text.as_bytes())
            .map_err(|error| write_error(&self.path, error))
    }

    /// Puts the file that was there before `write` back (or removes the new one when there
    /// was none).
    pub fn restore(&self) -> Result<(), ConfigError> {
        let restored = match &self.previous {
            Some(bytes) => preflight_files::write_atomic(&self.path, bytes),
            None => remove(&self.path),
        };
        restored.map_err(|error| write_error(&self.path, error))
    }
}

/// The existing file as a table: it must be TOML, though not necessarily a valid config
/// (the edit may be what mends it).
fn parse_table(path: &Path, text: &str) -> Result<toml::Table, ConfigError> {
    text.parse::<toml::Table>().map_err(|error| ConfigError::Syntax {
        path: path.to_owned(),
        line: error.span().map_or(1, |span| line_of(text, span.start)),
        problem: error.message().trim().to_owned(),
    })
}

impl ConfigEdit {
    /// `[provider]` and `[plan_mode]` set from the edit, the rest as it was.
    fn apply(&self, table: &mut toml::Table) {
        let provider = section(table, "provider");
        provider.insert("kind".into(), self.kind.as_str().into());
        set_or_remove(provider, "base_url", self.base_url.trim());
        set_or_remove(provider, "model", self.model.trim());
        let plan_mode = section(table, "plan_mode");
        plan_mode.insert("enabled".into(), self.plan_mode.enabled.into());
        plan_mode.insert("auto_approve".into(), self.plan_mode.auto_approve.into());
    }
}

/// A `[providers.NAME]` section as Settings' list of providers writes it: the section is
/// replaced whole (keys the list does not show, such as timeouts, are kept), or removed.
#[derive(Debug, Clone, PartialEq)]
pub struct ProviderSectionEdit {
    pub name: String,
    /// `None` removes the section.
    pub section: Option<ProviderSection>,
}

/// What the list sets of a provider. Empty strings remove their key.
#[derive(Debug, Clone, PartialEq)]
pub struct ProviderSection {
    pub kind: ProviderKind,
    pub base_url: String,
    pub model: String,
    pub price_input_per_mtok: Option<f64>,
    pub price_output_per_mtok: Option<f64>,
    pub vision: Option<bool>,
}

impl ProviderSectionEdit {
    pub fn apply(&self, table: &mut toml::Table) {
        let providers = section(table, "providers");
        let Some(edit) = &self.section else {
            providers.remove(&self.name);
            if providers.is_empty() {
                table.remove("providers");
            }
            return;
        };
        let named = section(providers, &self.name);
        named.insert("kind".into(), edit.kind.as_str().into());
        set_or_remove(named, "base_url", edit.base_url.trim());
        set_or_remove(named, "model", edit.model.trim());
        let prices = [
            ("price_input_per_mtok", edit.price_input_per_mtok),
            ("price_output_per_mtok", edit.price_output_per_mtok),
        ];
        for (key, price) in prices {
            match price {
                Some(price) => named.insert(key.into(), price.into()),
                None => named.remove(key),
            };
        }
        match edit.vision {
            Some(vision) => named.insert("vision".into(), vision.into()),
            None => named.remove("vision"),
        };
    }
}

fn section<'t>(table: &'t mut toml::Table, name: &str) -> &'t mut toml::Table {
    let entry = table.entry(name).or_insert_with(|| toml::Table::new().into());
    if !entry.is_table() {
        *entry = toml::Table::new().into();
    }
    entry.as_table_mut().expect("made a table above")
}

fn set_or_remove(table: &mut toml::Table, key: &str, value: &str) {
    if value.is_empty() {
        table.remove(key);
    } else {
        table.insert(key.into(), value.into());
    }
}

fn remove(path: &Path) -> Result<(), preflight_files::FileError> {
    if let Err(error) = std::fs::remove_file(path) {
        if error.kind() != std::io::ErrorKind::NotFound {
            return Err(preflight_files::FileError::new(path, error));
        }
    }
    path.parent().map_or(Ok(()), preflight_files::sync_dir)
}

fn write_error(path: &Path, error: preflight_files::FileError) -> ConfigError {
    ConfigError::Write { path: path.to_owned(), source: Arc::new(error) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edit(model: &str) -> ConfigEdit {
        ConfigEdit {
            kind: ProviderKind::OpenAi,
            base_url: "http://127.0.0.1:11434/v1".into(),
            model: model.into(),
            plan_mode: PlanModeDefaults::default(),
        }
    }

    #[test]
    fn prepare_writes_nothing_write_replaces_and_restore_puts_the_old_file_back() {
        let home = tempfile::tempdir().unwrap();
        let path = home.path().join(CONFIG_FILE);
        let original = "# mine\n[provider]\nkind = \"anthropic\"\nmodel = \"claude\"\n";
        std::fs::write(&path, original).unwrap();
        let pending = PendingConfig::prepare(home.path(), &edit("small")).unwrap();
        assert_eq!(pending.config().provider.model, "small");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), original, "prepare writes nothing");
        pending.write().unwrap();
        assert_eq!(Config::load(home.path()).unwrap(), *pending.config());
        pending.restore().unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), original);

        let fresh = tempfile::tempdir().unwrap();
        let pending = PendingConfig::prepare(fresh.path(), &edit("m")).unwrap();
        pending.write().unwrap();
        pending.restore().unwrap();
        assert!(!fresh.path().join(CONFIG_FILE).exists(), "there was no file before");
    }

    #[test]
    fn a_file_that_is_not_toml_or_an_edit_that_does_not_parse_is_refused() {
        let home = tempfile::tempdir().unwrap();
        std::fs::write(home.path().join(CONFIG_FILE), "[provider]\n\nkind = = 1\n").unwrap();
        let error = PendingConfig::prepare(home.path(), &edit("m")).unwrap_err();
        assert!(matches!(error, ConfigError::Syntax { line: 3, .. }), "{error:?}");

        let empty = tempfile::tempdir().unwrap();
        let error = PendingConfig::prepare(empty.path(), &edit(" ")).unwrap_err();
        assert_eq!(error.key(), Some("provider.model"), "{error:?}");
    }
}
