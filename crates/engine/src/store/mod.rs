//! The SQLite store: chats, messages, session state, plan revisions, task lists.
