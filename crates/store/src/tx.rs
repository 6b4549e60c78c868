//! `Tx`: one open transaction and the typed primitives steps are built from.
//!
//! The primitives live beside their tables (`chats.rs`, `messages.rs`, `session.rs`,
//! `plans.rs`, `tasks.rs`); the lifecycle steps built on them live in `steps/`.
//! Reading primitives take `&self`, writing ones `&mut self`, so a read transaction
//! (`Store::read`) cannot write.

use preflight_protocol::ids::ChatId;
use rusqlite::Transaction;

/// An open transaction. Obtained from [`Store::write`](super::Store::write) or
/// [`Store::read`](super::Store::read); it commits or rolls back as a whole.
///
/// A step checks the chat's state before it writes anything, so a wrong-state error comes
/// before any change. If a composed step meets an error, return it from the closure: the
/// whole transaction then rolls back.
pub struct Tx<'c> {
    pub(super) sql: Transaction<'c>,
    /// The messages this transaction stored or edited, by chat and `seq`: each such chat
    /// gets its point when the transaction commits (`points.rs`).
    pub(super) written: Vec<(ChatId, i64)>,
}

impl<'c> Tx<'c> {
    pub(super) fn new(sql: Transaction<'c>) -> Tx<'c> {
        Tx { sql, written: Vec::new() }
    }

    pub(super) fn commit(self) -> rusqlite::Result<()> {
        self.sql.commit()
    }
}
