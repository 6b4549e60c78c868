//! A year of chats over the headless API (issue 33): the chat list and a chat's messages a
//! page at a time, search across every chat, and bad paging or search input refused as
//! `ERR_BAD_REQUEST` without a change. Chats with many messages are stored before the server
//! starts (the engine's own store, on the server's home), as a long-used install holds them.

mod support;

use preflight_engine::chat::{ChatSettings, Message};
use preflight_engine::store::Store;
use serde_json::{json, Value};
use support::{openai_config, Serve};
use tempfile::TempDir;

/// A home whose database holds one chat titled `title` with `said` as its messages.
fn home_with_chat(title: &str, said: &[&str]) -> TempDir {
    let home = TempDir::new().unwrap();
    std::fs::write(home.path().join("config.toml"), openai_config("http://127.0.0.1:9/v1"))
        .unwrap();
    let store = Store::open(home.path().join("preflight.db")).unwrap();
    let settings = ChatSettings {
        title: title.into(),
        workspace: None,
        plan_mode: false,
        auto_approve: false,
        save_plans: false,
        scope: Vec::new(),
    };
    let chat = store.create_chat(&settings).unwrap();
    for (n, text) in said.iter().enumerate() {
        let role = if n % 2 == 0 { "user" } else { "assistant" };
        let message: Message = serde_json::from_value(json!({
            "id": format!("m{n}"), "created_at": "2025-01-01T00:00:00Z", "role": role, "content": text,
        }))
        .unwrap();
        store.write(|tx| tx.insert_message(&chat.id, &message)).unwrap();
    }
    home
}

fn ids(page: &Value) -> Vec<String> {
    page["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| item["id"].as_str().unwrap().to_owned())
        .collect()
}

/// Every page of `path` (a list route whose pages follow each other by `cursor_name`), from
/// `first` (a cursor) or its first page, following `next_cursor`; `between` runs after each.
async fn every_page(
    serve: &Serve,
    path: &str,
    cursor_name: &str,
    first: Option<&str>,
    between: impl AsyncFn(),
) -> Vec<Value> {
    let separator = if path.contains('?') { '&' } else { '?' };
    let at = |cursor: Option<&str>| match cursor {
        Some(cursor) => format!("{path}{separator}{cursor_name}={cursor}"),
        None => path.to_owned(),
    };
    let mut pages = Vec::new();
    let mut cursor = first.map(str::to_owned);
    loop {
        let (status, page) = serve.get(&at(cursor.as_deref())).await;
        assert_eq!(status, 200, "{page}");
        between().await;
        cursor = page["next_cursor"].as_str().map(str::to_owned);
        pages.push(page);
        if cursor.is_none() {
            return pages;
        }
    }
}

fn assert_refused(answer: (u16, Value), what: &str) {
    assert_eq!(answer.0, 400, "{what}: {}", answer.1);
    assert_eq!(answer.1["error"]["code"], "ERR_BAD_REQUEST", "{what}");
}

#[tokio::test]
async fn the_chat_list_pages_newest_first_and_chats_created_meanwhile_shift_nothing() {
    let serve = Serve::start(&openai_config("http://127.0.0.1:9/v1"));
    let mut made = Vec::new();
    for n in 0..7 {
        made.push(serve.create_chat(json!({"title": format!("chat {n}")})).await);
    }
    let created_meanwhile = std::cell::RefCell::new(Vec::new());
    let pages = every_page(&serve, "/v1/chats?limit=3", "cursor", None, async || {
        let id = serve.create_chat(json!({"title": "meanwhile"})).await;
        created_meanwhile.borrow_mut().push(id);
    })
    .await;
    let seen: Vec<String> = pages.iter().flat_map(ids).collect();
    made.reverse();
    assert_eq!(seen, made, "every chat once, newest first, none of those created meanwhile");
    assert_eq!(pages.iter().map(|page| ids(page).len()).collect::<Vec<_>>(), [3, 3, 1]);
    let (_, first) = serve.get("/v1/chats").await;
    assert_eq!(ids(&first).len(), 7 + created_meanwhile.borrow().len(), "50 a page unless asked");

    let cursor = pages[0]["next_cursor"].as_str().unwrap().to_owned();
    for bad in [
        "limit=0",
        "limit=201",
        "limit=-1",
        "limit=three",
        "cursor=zzz",
        "cursor=",
        "cursor=m1",
        "limit=%ZZ",
    ] {
        assert_refused(serve.get(&format!("/v1/chats?{bad}")).await, bad);
    }
    assert_eq!(serve.get(&format!("/v1/chats?limit=200&cursor={cursor}")).await.0, 200);
    assert_eq!(ids(&serve.get("/v1/chats?limit=200").await.1).len(), 7 + 3, "nothing changed");
}

#[tokio::test]
async fn a_long_chat_opens_on_its_latest_page_and_pages_back_to_its_first_message() {
    let said: Vec<String> = (0..250).map(|n| format!("line {n}")).collect();
    let said: Vec<&str> = said.iter().map(String::as_str).collect();
    let serve = Serve::start_in(home_with_chat("Long", &said));
    let id = ids(&serve.get("/v1/chats").await.1).remove(0);
    let view = serve.chat(&id).await;
    let latest: Vec<&str> =
        view["messages"].as_array().unwrap().iter().map(|m| m["id"].as_str().unwrap()).collect();
    assert_eq!(
        (latest.len(), latest[0], latest[99]),
        (100, "m150", "m249"),
        "the latest 100, oldest first"
    );
    let cursor = view["messages_cursor"].as_str().unwrap();
    let path = format!("/v1/chats/{id}/messages?limit=100");
    let pages = every_page(&serve, &path, "before", Some(cursor), async || {}).await;
    let older: Vec<String> = pages.iter().rev().flat_map(ids).collect();
    let expected: Vec<String> = (0..150).map(|n| format!("m{n}")).collect();
    assert_eq!(older, expected, "pages back to the first message, none twice");

    let (status, from) = serve.get(&format!("/v1/chats/{id}?from=m20")).await;
    assert_eq!(status, 200);
    assert_eq!(from["messages"].as_array().unwrap().len(), 230, "from a search hit to the latest");
    let (_, back) = serve
        .get(&format!(
            "/v1/chats/{id}/messages?before={}",
            from["messages_cursor"].as_str().unwrap()
        ))
        .await;
    assert_eq!(ids(&back).len(), 20);
    assert_eq!(serve.get(&format!("/v1/chats/{id}?from=nope")).await.0, 404);
    assert_eq!(serve.get("/v1/chats/nope/messages").await.0, 404);
    for bad in ["limit=501", "before=c1", "before=m", "limit=x"] {
        assert_refused(serve.get(&format!("/v1/chats/{id}/messages?{bad}")).await, bad);
    }
}

fn snippet_text(hit: &Value) -> String {
    hit["snippet"].as_array().unwrap().iter().map(|part| part["text"].as_str().unwrap()).collect()
}

fn matched(hit: &Value) -> Vec<String> {
    let parts = hit["snippet"].as_array().unwrap().iter();
    parts
        .filter(|part| part["matched"] == true)
        .map(|part| part["text"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn search_finds_titles_then_messages_with_inert_snippets_and_forgets_deleted_chats() {
    let said = ["Посчитай ПРОДАЖИ за март", "<b onclick=x>Sales</b> grew in March", "sales again"];
    let serve = Serve::start_in(home_with_chat("Квартальный отчёт: sales", &said));
    let id = ids(&serve.get("/v1/chats").await.1).remove(0);

    let (status, found) =
        serve.get("/v1/search?q=%D0%BF%D1%80%D0%BE%D0%B4%D0%B0%D0%B6%D0%B8").await;
    assert_eq!(status, 200, "{found}");
    let hits = found["data"].as_array().unwrap();
    assert_eq!(
        (hits.len(), hits[0]["message_id"].as_str()),
        (1, Some("m0")),
        "Russian, case folded"
    );
    assert_eq!(matched(&hits[0]), ["ПРОДАЖИ"]);

    let (_, found) = serve.get("/v1/search?q=sales").await;
    let hits = found["data"].as_array().unwrap();
    let order: Vec<Option<&str>> = hits.iter().map(|hit| hit["message_id"].as_str()).collect();
    assert_eq!(
        order,
        [None, Some("m2"), Some("m1")],
        "the title first, then messages newest first"
    );
    assert_eq!(hits[0]["chat_id"], id.as_str());
    assert_eq!(
        snippet_text(&hits[2]),
        "<b onclick=x>Sales</b> grew in March",
        "stored text comes back as text"
    );
    assert_eq!(matched(&hits[2]), ["Sales"]);

    let pages = every_page(&serve, "/v1/search?q=sales&limit=1", "cursor", None, async || {}).await;
    let paged: Vec<Option<String>> = pages
        .iter()
        .flat_map(|page| page["data"].as_array().unwrap().clone())
        .map(|hit| hit["message_id"].as_str().map(str::to_owned))
        .collect();
    assert_eq!(
        paged,
        [None, Some("m2".into()), Some("m1".into())],
        "pages of one, none skipped or twice"
    );

    assert_eq!(serve.request("DELETE", &format!("/v1/chats/{id}"), None).await.0, 200);
    assert_eq!(serve.get("/v1/search?q=sales").await.1["data"], json!([]), "no stale hit");
}

#[tokio::test]
async fn search_takes_fts_syntax_as_words_and_refuses_bad_input_without_a_change() {
    let serve = Serve::start_in(home_with_chat("Syntax", &["sales of NEAR and OR"]));
    for literal in ["NEAR(%22", "OR%20%22%20AND", "col%3Asales", "sal*%5E", "%22%22"] {
        let (status, body) = serve.get(&format!("/v1/search?q={literal}")).await;
        assert_eq!(status, 200, "{literal}: FTS syntax is taken as words: {body}");
    }
    assert_eq!(ids(&serve.get("/v1/search?q=%2A%2A%2A").await.1).len(), 0, "no words: no hits");
    let long = "a".repeat(201);
    for bad in [
        "",
        "?q=",
        "?q=%20%20",
        &format!("?q={long}"),
        "?q=sales&limit=0",
        "?q=sales&cursor=c5",
        "?q=%E0",
    ] {
        assert_refused(serve.get(&format!("/v1/search{bad}")).await, bad);
    }

    assert_eq!(
        serve.get("/v1/search?q=near%20or").await.1["data"].as_array().unwrap().len(),
        1,
        "still found"
    );
}
