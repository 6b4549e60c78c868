//! Export and import of chats from the window (DESIGN §15): the chat's menu exports it as
//! Markdown or JSON, the sidebar imports a JSON export as a new chat. The native dialogs open
//! from Rust (the window has no dialog permission) and answer the path chosen; the export and
//! the import then take that path, so a test can give one without a dialog. Both run the
//! engine's blocking file work off the async threads.

use std::path::PathBuf;

use preflight_engine::lifecycle::{ApiError, ChatView, ExportFormat};
use preflight_engine::ChatId;
use tauri::{AppHandle, State};
use tauri_plugin_dialog::DialogExt;

use super::app::blocking;
use crate::shell::Shell;

type Answer<T> = Result<T, ApiError>;

/// The longest file name the save dialog proposes from a chat's title, in characters.
const NAME_CHARS: usize = 80;

/// Opens the native save dialog for the chat's export in `format`, proposing the chat's
/// title as the name; the path chosen (with the format's extension), or null when cancelled.
#[tauri::command(rename_all = "snake_case")]
pub async fn choose_export_file(
    app: AppHandle,
    shell: State<'_, Shell>,
    chat_id: ChatId,
    format: ExportFormat,
) -> Answer<Option<String>> {
    let title = shell.engine()?.chat_view(&chat_id)?.chat.title;
    let extension = format.extension();
    let dialog = app.dialog().file().set_title("Export the chat");
    let dialog = dialog.set_file_name(format!("{}.{extension}", file_stem(&title)));
    let chosen = dialog.add_filter(filter_name(format), &[extension]).blocking_save_file();
    let Some(chosen) = chosen else { return Ok(None) };
    let path = chosen
        .into_path()
        .map_err(|error| ApiError::bad_request(format!("that file has no path: {error}")))?;
    Ok(Some(with_extension(path, format).to_string_lossy().into_owned()))
}

/// Writes the chat's export in `format` to `path`: an absolute path ending in the format's
/// extension (`.md`, `.json`), written whole or not at all.
#[tauri::command(rename_all = "snake_case")]
pub async fn export_chat(
    shell: State<'_, Shell>,
    chat_id: ChatId,
    format: ExportFormat,
    path: String,
) -> Answer<()> {
    let path = PathBuf::from(path);
    if !path.is_absolute() || with_extension(path.clone(), format) != path {
        return Err(ApiError::bad_request(format!(
            "an export goes to an absolute path ending in .{}, not {}",
            format.extension(),
            path.display()
        )));
    }
    let engine = shell.engine()?;
    blocking(move || engine.export_chat_to_file(&chat_id, format, &path)).await
}

/// Opens the native open dialog for a chat export; the path chosen, or null when cancelled.
#[tauri::command(rename_all = "snake_case")]
pub async fn choose_import_file(app: AppHandle) -> Answer<Option<String>> {
    let dialog = app.dialog().file().set_title("Import a chat");
    let chosen = dialog.add_filter(filter_name(ExportFormat::Json), &["json"]).blocking_pick_file();
    let Some(chosen) = chosen else { return Ok(None) };
    let path = chosen
        .into_path()
        .map_err(|error| ApiError::bad_request(format!("that file has no path: {error}")))?;
    Ok(Some(path.to_string_lossy().into_owned()))
}

/// Imports the JSON export at `path` as a new chat (it sends no event: the window reads the
/// chat list again and opens the chat answered).
#[tauri::command(rename_all = "snake_case")]
pub async fn import_chat(shell: State<'_, Shell>, path: String) -> Answer<ChatView> {
    let path = PathBuf::from(path);
    if !path.is_absolute() {
        return Err(ApiError::bad_request(format!(
            "an import reads an absolute path, not {}",
            path.display()
        )));
    }
    let engine = shell.engine()?;
    blocking(move || engine.import_chat_file(&path)).await
}

fn filter_name(format: ExportFormat) -> &'static str {
    match format {
        ExportFormat::Json => "Preflight chat (JSON)",
        ExportFormat::Markdown => "Markdown",
    }
}

/// A file name from a chat's title: what a file system or a shell would trip on replaced,
/// at most 80 characters; `chat` when nothing is left.
fn file_stem(title: &str) -> String {
    let cleaned: String = title
        .chars()
        .map(|c| match c {
            '/' | '\\' | ':' | '*' | '?' | '"' | '<' | '>' | '|' => ' ',
            c if c.is_control() => ' ',
            c => c,
        })
        .collect();
    let words = cleaned.split_whitespace().collect::<Vec<_>>().join(" ");
    let stem: String = words.chars().take(NAME_CHARS).collect();
    let stem = stem.trim_matches(|c: char| c == '.' || c.is_whitespace());
    if stem.is_empty() {
        "chat".to_owned()
    } else {
        stem.to_owned()
    }
}

/// `path` ending in the format's extension: as it is when it does (in any case), else with it
/// added (a name typed without it, or with another).
fn with_extension(path: PathBuf, format: ExportFormat) -> PathBuf {
    let extension = format.extension();
    let has = path.extension().is_some_and(|found| found.eq_ignore_ascii_case(extension));
    if has {
        return path;
    }
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".{extension}"));
    path.with_file_name(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_title_makes_a_file_name() {
        let cases = [
            ("Where do the orders live?", "Where do the orders live"),
            ("a/b: c*d", "a b c d"),
            ("  ...  ", "chat"),
            ("", "chat"),
            ("Сумма по месяцам", "Сумма по месяцам"),
            ("line\nbreak\ttab", "line break tab"),
        ];
        for (title, stem) in cases {
            assert_eq!(file_stem(title), stem, "{title:?}");
        }
        assert_eq!(file_stem(&"x".repeat(200)).chars().count(), NAME_CHARS);
    }

    #[test]
    fn an_export_path_ends_in_its_format_s_extension() {
        let cases = [
            ("/tmp/chat.json", ExportFormat::Json, "/tmp/chat.json"),
            ("/tmp/chat.JSON", ExportFormat::Json, "/tmp/chat.JSON"),
            ("/tmp/chat", ExportFormat::Json, "/tmp/chat.json"),
            ("/tmp/chat.md", ExportFormat::Json, "/tmp/chat.md.json"),
            ("/tmp/notes", ExportFormat::Markdown, "/tmp/notes.md"),
            ("/tmp/v1.2", ExportFormat::Markdown, "/tmp/v1.2.md"),
        ];
        for (path, format, expected) in cases {
            assert_eq!(with_extension(PathBuf::from(path), format), PathBuf::from(expected));
        }
    }
}
