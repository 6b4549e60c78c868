//! [`LlamaModels`]: the engine's [`LocalModels`] on llama.cpp. Resolves `config.toml`'s
//! `model` against the models folder when the engine opens (a missing file is reported
//! then) and loads each file once, at its first generation: the executor and the planner
//! (and engines reopened after a settings change) share one copy in memory while any uses it.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, Weak};

use preflight_llm::{LocalModels, Provider, ProviderSettings, SetupError};

use crate::catalog::{self, ModelChoice};
use crate::model::{EmbeddedModel, DEFAULT_MAX_TOKENS};
use crate::provider::{EmbeddedProvider, ModelHandle};
use crate::threads::Threads;

pub struct LlamaModels {
    dir: PathBuf,
    threads: Threads,
    loaded: Arc<Loaded>,
}

/// The models in memory, by file, while any provider holds them.
#[derive(Default)]
struct Loaded(Mutex<Vec<(PathBuf, Weak<EmbeddedModel>)>>);

impl Loaded {
    fn get_or_load(&self, path: &Path, name: &str) -> Result<Arc<EmbeddedModel>, SetupError> {
        let mut loaded = self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        loaded.retain(|(_, model)| model.strong_count() > 0);
        if let Some(model) =
            loaded.iter().find(|(at, _)| at == path).and_then(|(_, model)| model.upgrade())
        {
            return Ok(model);
        }
        let started = std::time::Instant::now();
        let model = Arc::new(EmbeddedModel::load(path, name)?);
        tracing::info!(model = model.name(), path = %path.display(), ms = started.elapsed().as_millis() as u64, "loaded the embedded model");
        loaded.push((path.to_owned(), Arc::downgrade(&model)));
        Ok(model)
    }
}

impl LlamaModels {
    /// Models from `dir` (`$PREFLIGHT_MODELS_DIR`), threads chosen per generation.
    pub fn new(dir: impl Into<PathBuf>) -> LlamaModels {
        LlamaModels { dir: dir.into(), threads: Threads::Adaptive, loaded: Arc::default() }
    }

    pub fn with_threads(self, threads: Threads) -> LlamaModels {
        LlamaModels { threads, ..self }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The model `name` names (see [`ModelChoice`]), loaded now or shared.
    pub fn load(&self, name: &str) -> Result<Arc<EmbeddedModel>, SetupError> {
        let (path, display) = self.resolve(name)?;
        self.loaded.get_or_load(&path, &display)
    }

    /// The file `name` names and the model's display name; an error saying how to install
    /// it when the file is not there.
    fn resolve(&self, name: &str) -> Result<(PathBuf, String), SetupError> {
        let choice = ModelChoice::parse(name, &self.dir);
        let path = choice.path(&self.dir);
        if !path.is_file() {
            return Err(SetupError::EmbeddedModel { detail: not_installed(&choice, &path) });
        }
        Ok((path, choice.display_name()))
    }
}

fn not_installed(choice: &ModelChoice, path: &Path) -> String {
    match choice {
        ModelChoice::Catalog(model) => format!(
            "{} is not installed (looked for {}); install it in Settings → Models, or run `preflight model fetch{}` to download it",
            model.name,
            path.display(),
            if model.id == catalog::DEFAULT_MODEL { String::new() } else { format!(" --model {}", model.id) }
        ),
        ModelChoice::File(_) => format!(
            "no model file at {}; `model` in config.toml names one of {} or a .gguf file in the models folder",
            path.display(),
            catalog::ids()
        ),
    }
}

impl LocalModels for LlamaModels {
    /// Checks that the model's file is there (a missing one is a clear error now); the
    /// model itself is loaded by the first generation.
    fn open(&self, settings: &ProviderSettings) -> Result<Arc<dyn Provider>, SetupError> {
        let (path, name) = self.resolve(&settings.model)?;
        let loaded = Arc::clone(&self.loaded);
        let load_name = name.clone();
        let handle =
            ModelHandle::lazy(name, Box::new(move || loaded.get_or_load(&path, &load_name)));
        let max_tokens = settings.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS);
        Ok(Arc::new(EmbeddedProvider::with_handle(handle, max_tokens, self.threads)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_model_says_how_to_get_it() {
        let dir = tempfile::tempdir().unwrap();
        let models = LlamaModels::new(dir.path());
        let cases = [
            ("", "run `preflight model fetch` to download it"),
            ("gemma3", "run `preflight model fetch --model gemma3`"),
            ("mine.gguf", "names one of smollm2, gemma3 or a .gguf file"),
        ];
        for (name, expected) in cases {
            let Err(error) = models.load(name) else { panic!("{name:?} loaded") };
            assert!(error.to_string().contains(expected), "{name:?}: {error}");
            assert!(error.to_string().starts_with("the embedded model cannot start: "), "{error}");
        }
    }
}
