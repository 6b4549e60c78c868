//! The `plan_revisions` table: every revision of a chat's plan document; the latest is
//! the current plan.

use preflight_protocol::ids::ChatId;
use preflight_protocol::planner::{Approval, PlanComment, PlanDocument};
use rusqlite::{params, OptionalExtension};

use super::codec::{corrupt, from_json, to_json};
use super::error::{Conflict, StoreError};
use super::{Store, Tx};

const TABLE: &str = "plan_revisions";

impl Tx<'_> {
    /// Stores `document` as the chat's next revision (previous + 1, starting at 1) and
    /// returns it with `revision` set accordingly.
    pub fn put_plan_revision(
        &mut self,
        chat_id: &ChatId,
        mut document: PlanDocument,
    ) -> Result<PlanDocument, StoreError> {
        self.require_chat(chat_id)?;
        let sql = "SELECT coalesce(max(revision), 0) FROM plan_revisions WHERE chat_id = ?1";
        let previous: i64 = self.sql.query_row(sql, [chat_id], |row| row.get(0))?;
        document.revision = u32::try_from(previous + 1)
            .map_err(|_| corrupt(TABLE, chat_id, format!("revision {previous} out of range")))?;
        self.sql.execute(
            "INSERT INTO plan_revisions (chat_id, revision, document) VALUES (?1, ?2, ?3)",
            params![chat_id, document.revision, to_json(&document)?],
        )?;
        Ok(document)
    }

    /// The current plan: the latest revision, if any.
    pub fn latest_plan(&self, chat_id: &ChatId) -> Result<Option<PlanDocument>, StoreError> {
        let sql = "SELECT revision, document FROM plan_revisions WHERE chat_id = ?1
                   ORDER BY revision DESC LIMIT 1";
        let row = self.sql.query_row(sql, [chat_id], revision_row).optional()?;
        row.map(|(revision, json)| decode(chat_id, revision, &json)).transpose()
    }

    /// Every revision of the chat's plan, oldest first.
    pub fn plan_revisions(&self, chat_id: &ChatId) -> Result<Vec<PlanDocument>, StoreError> {
        self.require_chat(chat_id)?;
        let sql = "SELECT revision, document FROM plan_revisions WHERE chat_id = ?1
                   ORDER BY revision";
        let mut statement = self.sql.prepare(sql)?;
        let rows = statement.query_map([chat_id], revision_row)?;
        rows.map(|row| {
            let (revision, json) = row?;
            decode(chat_id, revision, &json)
        })
        .collect()
    }

    /// Sets `approval` on the latest revision in place and returns the updated document.
    pub fn set_plan_approval(
        &mut self,
        chat_id: &ChatId,
        approval: Approval,
    ) -> Result<PlanDocument, StoreError> {
        self.update_latest_plan(chat_id, |document| document.approval = approval)
    }

    /// Marks the latest revision as allowed to run unconfined (the user's choice on approval).
    pub fn allow_unconfined(&mut self, chat_id: &ChatId) -> Result<PlanDocument, StoreError> {
        self.update_latest_plan(chat_id, |document| document.run_unconfined = true)
    }

    /// Keeps the user's comments with the latest revision (they rejected it with them).
    pub(crate) fn set_plan_comments(
        &mut self,
        chat_id: &ChatId,
        comments: Vec<PlanComment>,
    ) -> Result<PlanDocument, StoreError> {
        self.update_latest_plan(chat_id, |document| document.comments = comments)
    }

    /// Changes the latest revision in place and returns it.
    fn update_latest_plan(
        &mut self,
        chat_id: &ChatId,
        change: impl FnOnce(&mut PlanDocument),
    ) -> Result<PlanDocument, StoreError> {
        let Some(mut document) = self.latest_plan(chat_id)? else {
            return Err(StoreError::wrong_state(chat_id, Conflict::NoPendingPlan));
        };
        change(&mut document);
        self.sql.execute(
            "UPDATE plan_revisions SET document = ?3 WHERE chat_id = ?1 AND revision = ?2",
            params![chat_id, document.revision, to_json(&document)?],
        )?;
        Ok(document)
    }

    /// Deletes every revision of the chat's plan; returns how many there were.
    pub fn delete_plan(&mut self, chat_id: &ChatId) -> Result<usize, StoreError> {
        Ok(self.sql.execute("DELETE FROM plan_revisions WHERE chat_id = ?1", [chat_id])?)
    }
}

fn revision_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<(i64, String)> {
    Ok((row.get(0)?, row.get(1)?))
}

fn decode(chat_id: &ChatId, revision: i64, json: &str) -> Result<PlanDocument, StoreError> {
    let row = format!("{chat_id}/{revision}");
    let document: PlanDocument = from_json(json, TABLE, &row)?;
    if i64::from(document.revision) != revision {
        let reason = format!("the document says revision {}", document.revision);
        return Err(corrupt(TABLE, &row, reason));
    }
    Ok(document)
}

impl Store {
    /// Every revision of the chat's plan, oldest first.
    pub fn plan_revisions(&self, chat_id: &ChatId) -> Result<Vec<PlanDocument>, StoreError> {
        self.read(|tx| tx.plan_revisions(chat_id))
    }
}
