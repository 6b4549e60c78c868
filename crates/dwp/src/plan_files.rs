//! The engine's handle on plan folders, [`PlanFiles`]: who writes and how long to wait for
//! another writer. Its methods live beside the disk work they do (`disk/`).

use crate::disk::lock::LockOptions;
use crate::rules::documents::Author;

/// The engine's handle on plan folders: who writes (`updated_by`) and how long to wait
/// for another writer's lock.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanFiles {
    pub author: Author,
    pub lock: LockOptions,
}

impl PlanFiles {
    pub fn new(author: Author) -> PlanFiles {
        PlanFiles { author, lock: LockOptions::default() }
    }

    pub fn with_lock(self, lock: LockOptions) -> PlanFiles {
        PlanFiles { lock, ..self }
    }
}

impl Author {
    /// Preflight's executor, with the chat's model when known.
    pub fn preflight(model: Option<&str>) -> Author {
        Author { agent: "preflight".to_owned(), model: model.map(str::to_owned) }
    }
}
