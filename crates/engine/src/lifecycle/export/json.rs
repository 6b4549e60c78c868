//! The JSON export (`format.rs` describes it), written as it is read: the head, then each
//! message on a line of its own, straight to the writer.

use std::io::{BufWriter, Write};

use preflight_protocol::ids::ChatId;
use preflight_store::Tx;

use super::reading::{each_message, head, WriteError, BUFFER};

/// Writes the chat's JSON export, stamped `now`, to `out`.
pub(super) fn write_json(
    tx: &Tx<'_>,
    chat_id: &ChatId,
    now: &str,
    out: &mut dyn Write,
) -> Result<(), WriteError> {
    // The head and the messages, gathered into large writes to `out`.
    let mut out = BufWriter::with_capacity(BUFFER, out);
    let mut head = serde_json::to_vec(&head(tx, chat_id, now)?)?;
    // The head is an object: its closing brace comes after the messages.
    head.pop();
    out.write_all(&head)?;
    out.write_all(b",\"messages\":[")?;
    // Each message is made whole in `line`, then written in one piece.
    let (mut line, mut separator) = (Vec::with_capacity(BUFFER), &b"\n"[..]);
    each_message(tx, chat_id, |message| {
        line.clear();
        line.extend_from_slice(separator);
        serde_json::to_writer(&mut line, message)?;
        out.write_all(&line)?;
        separator = b",\n";
        Ok(())
    })?;
    out.write_all(b"\n]}\n")?;
    // Flushes the buffer, then `out` itself.
    Ok(out.flush()?)
}
