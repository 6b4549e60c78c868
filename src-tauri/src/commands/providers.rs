//! A model per chat (DESIGN §15): the models a chat may choose (the chat header's picker) and
//! Settings' list of named providers (`[providers.NAME]`), each save or removal followed by
//! re-opening the engine, which reads `config.toml` only when it opens.

use preflight_engine::lifecycle::{
    read_named_providers, remove_named_provider as remove, save_named_provider as save,
    system_key_stores, ApiError, ModelList, NamedProviderSave, NamedProviderView,
};
use tauri::State;

use super::app::blocking;
use crate::shell::Shell;

type Answer<T> = Result<T, ApiError>;

/// Every model a chat may choose, each provider's server asked for its list at once; a
/// provider that did not answer carries its error.
#[tauri::command(rename_all = "snake_case")]
pub async fn list_models(shell: State<'_, Shell>) -> Answer<ModelList> {
    Ok(shell.engine()?.list_models().await)
}

/// The providers `config.toml` names beside `[provider]`.
#[tauri::command(rename_all = "snake_case")]
pub async fn named_providers(shell: State<'_, Shell>) -> Answer<Vec<NamedProviderView>> {
    let home = shell.home.clone();
    blocking(move || read_named_providers(&home, &system_key_stores())).await
}

/// Adds or changes one provider (its key to the OS key store), then re-opens the engine on it.
#[tauri::command(rename_all = "snake_case")]
pub async fn save_named_provider(
    shell: State<'_, Shell>,
    provider: NamedProviderSave,
) -> Answer<Vec<NamedProviderView>> {
    let home = shell.home.clone();
    let saved = blocking(move || save(&home, &provider, &system_key_stores())).await?;
    shell.reopen().await?;
    Ok(saved)
}

/// Removes one provider, then re-opens the engine without it.
#[tauri::command(rename_all = "snake_case")]
pub async fn remove_named_provider(
    shell: State<'_, Shell>,
    name: String,
) -> Answer<Vec<NamedProviderView>> {
    let home = shell.home.clone();
    let left = blocking(move || remove(&home, &name, &system_key_stores())).await?;
    shell.reopen().await?;
    Ok(left)
}
