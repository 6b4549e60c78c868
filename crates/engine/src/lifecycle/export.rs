//! Export and import of chats (DESIGN §15): a chat written out as JSON (to import again, here
//! or on another machine; `export/format.rs` describes it) or as Markdown (for people), and a
//! JSON export read back as a new chat.
//!
//! Both directions stream: an export reads the messages a page at a time, in one read
//! transaction on a connection of its own (a consistent chat, and the engine's own
//! connection is never held while a slow reader takes the file), and writes each as it is
//! read; an import parses as it reads, under a size cap, then stores the chat in one
//! transaction. The functions over a [`Store`] are what `preflight export` and `preflight
//! import` call without an engine; [`Engine`]'s methods are what the window and the HTTP
//! routes call. All of them block: call them off the async threads.

mod format;
mod import;
mod json;
mod markdown;
mod markdown_parts;
mod markdown_text;
mod reading;
mod references;
#[cfg(test)]
mod tests;

use std::fs::File;
use std::io::{BufWriter, Read, Write};
use std::path::Path;

use preflight_dwp::now_rfc3339;
use preflight_protocol::ids::ChatId;
use preflight_store::Store;

pub use format::{ChatExport, ExportFormat, ExportedChat, ExportedState, FORMAT, MAX_IMPORT_BYTES};
pub use import::import_chat;

use crate::lifecycle::engine::Engine;
use crate::lifecycle::error::ApiError;
use crate::lifecycle::view::ChatView;

/// Writes the chat's export in `format` to `out`, read in one transaction of `store`.
pub fn export_chat(
    store: &Store,
    chat_id: &ChatId,
    format: ExportFormat,
    out: &mut dyn Write,
) -> Result<(), ApiError> {
    let now = now_rfc3339();
    let written = store.read(|tx| {
        Ok(match format {
            ExportFormat::Json => json::write_json(tx, chat_id, &now, out),
            ExportFormat::Markdown => markdown::write_markdown(tx, chat_id, &now, out),
        })
    })?;
    Ok(written?)
}

/// [`export_chat`] into the file `path`, which appears whole or not at all: the export is
/// written beside it under a temporary name and renamed over it once complete.
pub fn export_chat_to_file(
    store: &Store,
    chat_id: &ChatId,
    format: ExportFormat,
    path: &Path,
) -> Result<(), ApiError> {
    let temp = preflight_files::temp_path_for(path);
    let failed = |error: std::io::Error| {
        ApiError::bad_request(format!("cannot write {}: {error}", path.display()))
    };
    let file = File::create_new(&temp).map_err(failed)?;
    let mut out = BufWriter::new(file);
    let written = export_chat(store, chat_id, format, &mut out)
        .and_then(|()| out.into_inner().map(drop).map_err(|error| failed(error.into_error())));
    if let Err(error) = written {
        let _ = std::fs::remove_file(&temp);
        return Err(error);
    }
    preflight_files::persist(&temp, path)
        .map_err(|error| ApiError::bad_request(format!("cannot write {}: {error}", path.display())))
}

impl Engine {
    /// The chat's export in `format`, written to `out` (`GET /v1/chats/{id}/export`). Reads
    /// on a connection of its own, so the chat's turns go on meanwhile. Blocking.
    pub fn export_chat(
        &self,
        chat_id: &ChatId,
        format: ExportFormat,
        out: &mut dyn Write,
    ) -> Result<(), ApiError> {
        export_chat(&self.export_reader(chat_id)?, chat_id, format, out)
    }

    /// The chat's export in `format` into the file `path` (the window's Export, to the file
    /// the user chose): complete, or not there. Blocking.
    pub fn export_chat_to_file(
        &self,
        chat_id: &ChatId,
        format: ExportFormat,
        path: &Path,
    ) -> Result<(), ApiError> {
        export_chat_to_file(&self.export_reader(chat_id)?, chat_id, format, path)
    }

    /// A JSON export read from `input` as a new chat (`POST /v1/chats/import`), as the chat
    /// view shows it. Blocking.
    pub fn import_chat(&self, input: &mut dyn Read) -> Result<ChatView, ApiError> {
        let chat = import_chat(&self.inner.store, &self.inner.home, input)?;
        self.chat_view(&chat.id)
    }

    /// [`Engine::import_chat`] of the file `path` (the window's Import). Blocking.
    pub fn import_chat_file(&self, path: &Path) -> Result<ChatView, ApiError> {
        let mut file = File::open(path).map_err(|error| {
            ApiError::bad_request(format!("cannot read {}: {error}", path.display()))
        })?;
        self.import_chat(&mut file)
    }

    /// A read-only connection of the export's own, once the chat is known to exist.
    fn export_reader(&self, chat_id: &ChatId) -> Result<Store, ApiError> {
        self.inner.store.get_chat(chat_id)?;
        Ok(Store::open_read_only(self.inner.store.path())?)
    }
}
