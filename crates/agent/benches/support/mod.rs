//! What the agent benches share: a store with one chat under way.

use std::sync::Arc;

use preflight_protocol::chat::{ChatSettings, Message, MessageBody, Phase};
use preflight_protocol::tasks::TaskList;
use preflight_protocol::{ChatId, MessageId};
use preflight_store::Store;

/// A store with one chat whose user turn has begun, and a two-task plan open.
pub fn chat(home: &std::path::Path) -> (Arc<Store>, ChatId) {
    let store = Arc::new(Store::open(home.join("preflight.db")).unwrap());
    let settings = ChatSettings {
        title: "bench".into(),
        workspace: None,
        plan_mode: true,
        auto_approve: false,
        save_plans: false,
        scope: Vec::new(),
    };
    let chat_id = store.create_chat(&settings).unwrap().id;
    let body = MessageBody::User {
        content: "go".into(),
        files: vec![],
        attachments: vec![],
        plan_answer: false,
        resume: None,
        stopped: None,
        restored: None,
        review: None,
        typed: None,
    };
    let user = Message { id: MessageId::new(), created_at: preflight_dwp::now_rfc3339(), body };
    store.begin_user_turn(&chat_id, &user, Phase::Executing).unwrap();
    store.save_task_list(&chat_id, &TaskList::from_steps(["read", "write"]).unwrap()).unwrap();
    (store, chat_id)
}
