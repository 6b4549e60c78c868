//! The engine's handle on plan folders, [`PlanFolderWriter`]: who writes and how long to wait for
//! another writer. Its methods live beside the disk work they do, in the other files of `disk/`.

use crate::disk::lock::LockOptions;
use crate::rules::documents::Author;

/// The engine's handle on plan folders: who writes (`updated_by`) and how long to wait
/// for another writer's lock.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanFolderWriter {
    pub author: Author,
    pub lock: LockOptions,
}

impl PlanFolderWriter {
    pub fn new(author: Author) -> PlanFolderWriter {
        PlanFolderWriter { author, lock: LockOptions::default() }
    }

    pub fn with_lock(self, lock: LockOptions) -> PlanFolderWriter {
        PlanFolderWriter { lock, ..self }
    }
}

impl Author {
    /// Preflight's executor, with the chat's model when known.
    pub fn preflight(model: Option<&str>) -> Author {
        Author { agent: "preflight".to_owned(), model: model.map(str::to_owned) }
    }
}
