//! The pure half: every rule of seed 002 as functions over the documents, with no file
//! access and no failure but a [`refusal::Refusal`]. Nothing here imports `crate::disk`.

pub(crate) mod amendment;
pub(crate) mod documents;
pub(crate) mod evidence;
pub(crate) mod evidence_states;
pub(crate) mod finalization;
pub(crate) mod findings;
pub(crate) mod input;
pub(crate) mod migration;
pub(crate) mod outcomes;
pub(crate) mod plan_text;
pub(crate) mod progress;
pub(crate) mod readme;
pub(crate) mod reconciliation;
pub(crate) mod refinement;
pub(crate) mod refusal;
pub(crate) mod restore;
pub(crate) mod slug;
pub(crate) mod structure;
pub(crate) mod task_file;
pub(crate) mod task_helpers;
pub(crate) mod text;
pub(crate) mod tracker;
pub(crate) mod transition;
pub(crate) mod verification;
