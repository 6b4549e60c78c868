//! The typed ids of the API: chats, messages, questions and plan changes (opaque strings, DESIGN §9) and
//! tasks (the task list's JSON integers).
//!
//! **Invariant:** each id is transparent on the wire, in SQLite and in the generated
//! TypeScript (an alias of `string` or `number`); the types only keep one kind of id from
//! being passed where another is meant. Nothing here validates an id's text.
//! The types build without the `host` feature (the pure `planner` holds a [`QuestionId`]);
//! their SQLite mapping and the random `new` ids are `host`'s.

use std::borrow::Borrow;
use std::fmt;

#[cfg(feature = "host")]
use rusqlite::types::{FromSql, FromSqlResult, ToSql, ToSqlOutput, ValueRef};
use serde::{Deserialize, Serialize};

/// Defines an opaque string id with its conversions, `Display` and SQLite mapping.
macro_rules! string_id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
        #[cfg_attr(feature = "openapi", schema(value_type = String))]
        #[cfg_attr(feature = "ts", derive(ts_rs::TS))]
        #[serde(transparent)]
        pub struct $name(String);

        impl $name {
            pub fn as_str(&self) -> &str {
                &self.0
            }

            pub fn into_string(self) -> String {
                self.0
            }
        }

        impl From<String> for $name {
            fn from(id: String) -> Self {
                $name(id)
            }
        }

        impl From<&str> for $name {
            fn from(id: &str) -> Self {
                $name(id.to_owned())
            }
        }

        impl From<$name> for String {
            fn from(id: $name) -> String {
                id.0
            }
        }

        impl AsRef<str> for $name {
            fn as_ref(&self) -> &str {
                &self.0
            }
        }

        /// Lets maps keyed by the id be looked up by its text.
        impl Borrow<str> for $name {
            fn borrow(&self) -> &str {
                &self.0
            }
        }

        impl PartialEq<str> for $name {
            fn eq(&self, other: &str) -> bool {
                self.0 == other
            }
        }

        impl PartialEq<&str> for $name {
            fn eq(&self, other: &&str) -> bool {
                self.0 == *other
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        #[cfg(feature = "host")]
        impl ToSql for $name {
            fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
                self.0.to_sql()
            }
        }

        #[cfg(feature = "host")]
        impl FromSql for $name {
            fn column_result(value: ValueRef<'_>) -> FromSqlResult<Self> {
                String::column_result(value).map($name)
            }
        }
    };
}

string_id! {
    /// A chat's id: opaque, made by [`ChatId::new`] when the chat is created.
    ChatId
}

string_id! {
    /// A stored message's id: opaque, made by [`MessageId::new`].
    MessageId
}

string_id! {
    /// A question's id within its card (`q1`, or the planner's own when it gave one).
    QuestionId
}

string_id! {
    /// A plan change request's id (DESIGN §12): opaque, made by [`ChangeId::new`].
    ChangeId
}

// A fresh id is not a default value: `new` makes a different one each call.
#[cfg(feature = "host")]
#[allow(clippy::new_without_default)]
impl ChatId {
    /// A new random id.
    pub fn new() -> ChatId {
        ChatId(random())
    }
}

#[cfg(feature = "host")]
#[allow(clippy::new_without_default)]
impl MessageId {
    /// A new random id.
    pub fn new() -> MessageId {
        MessageId(random())
    }
}

#[cfg(feature = "host")]
#[allow(clippy::new_without_default)]
impl ChangeId {
    /// A new random id.
    pub fn new() -> ChangeId {
        ChangeId(random())
    }
}

#[cfg(feature = "host")]
fn random() -> String {
    uuid::Uuid::new_v4().simple().to_string()
}

// `tasks::Task::id` itself stays a `u32` while `dwp_input.rs` hands it to `preflight-dwp`.
/// A task's id as the API takes it (e.g. to confirm a drop): the task list's integer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "openapi", schema(value_type = u32))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(transparent)]
pub struct TaskId(u32);

impl TaskId {
    pub const fn new(id: u32) -> TaskId {
        TaskId(id)
    }

    pub const fn get(self) -> u32 {
        self.0
    }
}

impl From<u32> for TaskId {
    fn from(id: u32) -> Self {
        TaskId(id)
    }
}

impl From<TaskId> for u32 {
    fn from(id: TaskId) -> u32 {
        id.0
    }
}

impl PartialEq<u32> for TaskId {
    fn eq(&self, other: &u32) -> bool {
        self.0 == *other
    }
}

impl fmt::Display for TaskId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_transparent_on_the_wire() {
        let chat = ChatId::from("c1");
        assert_eq!(serde_json::to_string(&chat).unwrap(), r#""c1""#);
        assert_eq!(serde_json::from_str::<ChatId>(r#""c1""#).unwrap(), chat);
        assert_eq!(serde_json::to_string(&TaskId::new(3)).unwrap(), "3");
        assert_eq!(serde_json::from_str::<TaskId>("3").unwrap(), TaskId::new(3));
    }

    #[cfg(feature = "host")]
    #[test]
    fn new_ids_differ() {
        assert_ne!(ChatId::new(), ChatId::new());
        assert_ne!(MessageId::new(), MessageId::new());
    }
}
