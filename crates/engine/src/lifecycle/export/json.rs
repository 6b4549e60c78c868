//! The JSON export (`format.rs` describes it), written as it is read: the head, then each
//! message on a line of its own, straight to the writer.

use std::io::Write;

use preflight_protocol::ids::ChatId;
use preflight_store::Tx;

use super::reading::{each_message, head, WriteError};

/// Writes the chat's JSON export, stamped `now`, to `out`.
pub(super) fn write_json(
    tx: &Tx<'_>,
    chat_id: &ChatId,
    now: &str,
    out: &mut dyn Write,
) -> Result<(), WriteError> {
    let mut head = serde_json::to_vec(&head(tx, chat_id, now)?)?;
    // The head is an object: its closing brace comes after the messages.
    head.pop();
    out.write_all(&head)?;
    out.write_all(b",\"messages\":[")?;
    let mut separator: &[u8] = b"\n";
    each_message(tx, chat_id, |message| {
        out.write_all(separator)?;
        serde_json::to_writer(&mut *out, message)?;
        separator = b",\n";
        Ok(())
    })?;
    out.write_all(b"\n]}\n")?;
    Ok(out.flush()?)
}
