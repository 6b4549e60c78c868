//! The headless API's contract (DESIGN §9) outside any turn: the token, chats, bad input,
//! error shapes. Every rejected request changes nothing.

mod support;

use serde_json::{json, Value};
use support::{openai_config, Serve};

fn serve() -> Serve {
    // No model is called in these tests: a port nothing listens on is enough.
    Serve::start(&openai_config("http://127.0.0.1:9/v1"))
}

fn error_code(body: &Value) -> &str {
    body["error"]["code"].as_str().unwrap_or_else(|| panic!("not an error body: {body}"))
}

#[tokio::test]
async fn health_needs_no_token_and_everything_else_does() {
    let serve = serve();
    let (status, body) = serve.raw("GET", "/v1/health", "", &[], false).await;
    assert_eq!((status, &body["ok"]), (200, &json!(true)));
    assert!(body["version"].is_string());
    for (method, path) in [
        ("GET", "/v1/chats"),
        ("POST", "/v1/chats"),
        ("GET", "/v1/chats/x/plan"),
        ("GET", "/v1/nope"),
    ] {
        let (status, body) = serve.raw(method, path, "", &[], false).await;
        assert_eq!(status, 401, "{method} {path}");
        assert_eq!(error_code(&body), "ERR_UNAUTHORIZED");
    }
    let (status, _) =
        serve.raw("GET", "/v1/chats", "", &[("authorization", "Bearer wrong")], false).await;
    assert_eq!(status, 401);
}

#[tokio::test]
async fn the_token_file_is_private_and_survives_a_restart() {
    use std::os::unix::fs::PermissionsExt;
    let serve = serve();
    let token_path = serve.home_path().join("api-token");
    let mode = std::fs::metadata(&token_path).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600);
    let token = serve.token.clone();
    let again = Serve::start_in(serve.stop());
    assert_eq!(again.token, token);
    assert_eq!(again.get("/v1/chats").await.0, 200);
}

#[tokio::test]
async fn chats_are_created_listed_shown_and_deleted() {
    let serve = serve();
    let workspace = tempfile::tempdir().unwrap();
    let (status, chat) = serve
        .post(
            "/v1/chats",
            json!({"title": "First", "workspace": workspace.path(), "plan_mode": false}),
        )
        .await;
    assert_eq!(status, 201, "{chat}");
    assert_eq!(chat["title"], "First");
    assert_eq!(chat["plan_mode"], false);
    assert_eq!(chat["auto_approve"], false, "config default");
    assert_eq!(chat["save_plans"], false, "not a git repository");
    assert_eq!(chat["workspace"], workspace.path().to_str().unwrap());
    let second = serve.create_chat(json!({})).await;
    let (_, list) = serve.get("/v1/chats").await;
    let ids: Vec<&str> =
        list["data"].as_array().unwrap().iter().map(|c| c["id"].as_str().unwrap()).collect();
    assert_eq!(ids, [second.as_str(), chat["id"].as_str().unwrap()], "newest first");
    let shown = serve.chat(&second).await;
    assert_eq!(shown["plan_mode"], true, "config default");
    assert_eq!(shown["messages"], json!([]));
    assert_eq!(
        shown["state"],
        json!({"phase": "idle", "plan_pending": null, "plan": null, "completion": null,
               "stopped": null, "changes": [], "executor_calls_tools": true})
    );
    let (status, patched) = serve
        .request(
            "PATCH",
            &format!("/v1/chats/{second}"),
            Some(json!({"title": "Renamed", "plan_mode": false, "auto_approve": true})),
        )
        .await;
    assert_eq!(status, 200, "{patched}");
    assert_eq!(
        (&patched["title"], &patched["plan_mode"], &patched["auto_approve"]),
        (&json!("Renamed"), &json!(false), &json!(true))
    );
    assert_eq!(serve.chat(&second).await["title"], "Renamed");
    let (status, deleted) = serve.request("DELETE", &format!("/v1/chats/{second}"), None).await;
    assert_eq!((status, deleted), (200, json!({"deleted": true})));
    assert_eq!(serve.get(&format!("/v1/chats/{second}")).await.0, 404);
}

#[tokio::test]
async fn a_git_workspace_saves_plans_by_default() {
    let serve = serve();
    let workspace = tempfile::tempdir().unwrap();
    std::fs::create_dir(workspace.path().join(".git")).unwrap();
    let (_, chat) = serve.post("/v1/chats", json!({"workspace": workspace.path()})).await;
    assert_eq!(chat["save_plans"], true);
}

#[tokio::test]
async fn bad_input_is_refused_with_a_clear_code_and_changes_nothing() {
    let serve = serve();
    let id = serve.create_chat(json!({})).await;
    let json_header = [("content-type", "application/json")];
    let cases: Vec<(&str, String, &str, u16, &str)> = vec![
        ("POST", "/v1/chats".into(), "{not json", 400, "ERR_BAD_REQUEST"),
        ("POST", "/v1/chats".into(), r#"{"plan_mode": "yes"}"#, 400, "ERR_BAD_REQUEST"),
        ("POST", "/v1/chats".into(), r#"{"workspace": "/no/such/folder"}"#, 400, "ERR_BAD_REQUEST"),
        ("POST", "/v1/chats".into(), r#"{"titel": "typo"}"#, 400, "ERR_BAD_REQUEST"),
        ("POST", format!("/v1/chats/{id}/messages"), "", 400, "ERR_BAD_REQUEST"),
        ("POST", format!("/v1/chats/{id}/messages"), r#"{"content": 5}"#, 400, "ERR_BAD_REQUEST"),
        ("POST", format!("/v1/chats/{id}/messages"), r#"{"text": "hi"}"#, 400, "ERR_BAD_REQUEST"),
        (
            "POST",
            format!("/v1/chats/{id}/messages"),
            r#"{"content": "   "}"#,
            400,
            "ERR_BAD_REQUEST",
        ),
        (
            "POST",
            format!("/v1/chats/{id}/answers"),
            r#"{"question_id": "q1", "answer": "x"}"#,
            409,
            "ERR_NO_QUESTIONS",
        ),
        (
            "POST",
            format!("/v1/chats/{id}/answers"),
            r#"{"question_id": "q1"}"#,
            400,
            "ERR_BAD_REQUEST",
        ),
        ("POST", format!("/v1/chats/{id}/plan/approve"), "", 409, "ERR_NO_PLAN"),
        ("POST", format!("/v1/chats/{id}/plan/approve"), "{oops", 400, "ERR_BAD_REQUEST"),
        ("PATCH", format!("/v1/chats/{id}/plan/doc"), r#"{"title": "x"}"#, 409, "ERR_NO_PLAN"),
        ("PATCH", format!("/v1/chats/{id}"), r#"{"title": "   "}"#, 400, "ERR_BAD_REQUEST"),
        (
            "PATCH",
            format!("/v1/chats/{id}"),
            r#"{"title": "ok", "workspace": "/no/such/folder"}"#,
            400,
            "ERR_BAD_REQUEST",
        ),
        ("PATCH", format!("/v1/chats/{id}"), r#"{"auto_approve": 1}"#, 400, "ERR_BAD_REQUEST"),
        ("PATCH", format!("/v1/chats/{id}"), r#"{"plan": false}"#, 400, "ERR_BAD_REQUEST"),
        ("PATCH", format!("/v1/chats/{id}"), "", 400, "ERR_BAD_REQUEST"),
        ("PATCH", "/v1/chats/nope".into(), r#"{"title": "x"}"#, 404, "ERR_NOT_FOUND"),
        ("POST", format!("/v1/chats/{id}/plan/changes/nope/approve"), "", 404, "ERR_NOT_FOUND"),
        ("POST", format!("/v1/chats/{id}/plan/changes/nope/reject"), "{", 400, "ERR_BAD_REQUEST"),
        ("GET", "/v1/chats/nope/plan/changes".into(), "", 404, "ERR_NOT_FOUND"),
        (
            "PUT",
            format!("/v1/chats/{id}/messages/nope"),
            r#"{"content": "x"}"#,
            404,
            "ERR_NOT_FOUND",
        ),
        ("GET", "/v1/chats/nope".into(), "", 404, "ERR_NOT_FOUND"),
        ("DELETE", "/v1/chats/nope".into(), "", 404, "ERR_NOT_FOUND"),
        ("POST", "/v1/chats/nope/messages".into(), r#"{"content": "hi"}"#, 404, "ERR_NOT_FOUND"),
        ("GET", "/v1/chats/nope/plan".into(), "", 404, "ERR_NOT_FOUND"),
        ("GET", "/v1/chats/nope/events".into(), "", 404, "ERR_NOT_FOUND"),
        ("GET", "/v1/chats/nope/profile".into(), "", 404, "ERR_NOT_FOUND"),
        ("GET", "/v1/no/such/route".into(), "", 404, "ERR_NOT_FOUND"),
    ];
    let before = serve.chat(&id).await;
    for (method, path, body, status, code) in cases {
        let (got, answer) = serve.raw(method, &path, body, &json_header, true).await;
        assert_eq!((got, error_code(&answer)), (status, code), "{method} {path} {body}: {answer}");
    }
    assert_eq!(serve.chat(&id).await, before);
    assert_eq!(serve.get("/v1/chats").await.1["data"].as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn posts_without_a_body_accept_none_with_or_without_a_content_type() {
    let serve = serve();
    let id = serve.create_chat(json!({})).await;
    for headers in [&[][..], &[("content-type", "application/json")][..]] {
        for path in ["stop", "plan/cancel"] {
            let (status, body) =
                serve.raw("POST", &format!("/v1/chats/{id}/{path}"), "", headers, true).await;
            assert_eq!(status, 200, "{path} {headers:?}: {body}");
            assert_eq!(body["id"], id.as_str());
        }
    }
}

#[tokio::test]
async fn the_task_list_routes_answer_in_seed_000_shapes() {
    let serve = serve();
    let id = serve.create_chat(json!({})).await;
    assert_eq!(
        serve.get(&format!("/v1/chats/{id}/plan")).await,
        (200, json!({"tasks": [], "files": null}))
    );
    let deleted = serve.request("DELETE", &format!("/v1/chats/{id}/plan"), None).await;
    assert_eq!(deleted, (200, json!({"deleted": false})));
    assert_eq!(
        serve.get(&format!("/v1/chats/{id}/plan/revisions")).await,
        (200, json!({"revisions": []}))
    );
}

#[tokio::test]
async fn a_chat_without_a_workspace_has_no_filesystem_tools() {
    let serve = serve();
    let id = serve.create_chat(json!({"plan_mode": false})).await;
    let (status, profile) = serve.get(&format!("/v1/chats/{id}/profile")).await;
    assert_eq!(status, 200, "{profile}");
    assert_eq!(profile, json!({"name": "execution", "tools": [], "deferred": []}));
    let planning = serve.create_chat(json!({})).await;
    let (_, profile) = serve.get(&format!("/v1/chats/{planning}/profile")).await;
    assert_eq!(profile["name"], "planning");
}

#[tokio::test]
async fn a_wrong_method_is_refused_in_the_error_shape() {
    let serve = serve();
    let (status, body) = serve.raw("PUT", "/v1/chats", "", &[], true).await;
    assert_eq!((status, error_code(&body)), (405, "ERR_BAD_REQUEST"));
}

#[test]
fn a_bad_config_stops_serve_with_file_line_and_key() {
    let home = tempfile::tempdir().unwrap();
    std::fs::write(
        home.path().join("config.toml"),
        "[provider]\nkind = \"openai\"\nmodle = \"x\"\n",
    )
    .unwrap();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_preflight"))
        .args(["serve"])
        .env("PREFLIGHT_HOME", home.path())
        .output()
        .unwrap();
    assert!(!output.status.success());
    assert!(output.stdout.is_empty(), "nothing on stdout before the listening line");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("config.toml:3") && stderr.contains("modle"), "{stderr}");
}

#[test]
fn serve_refuses_a_non_loopback_address() {
    let home = tempfile::tempdir().unwrap();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_preflight"))
        .args(["serve", "--addr", "0.0.0.0:0"])
        .env("PREFLIGHT_HOME", home.path())
        .output()
        .unwrap();
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("loopback"));
}

/// A token file others can read may have leaked: serve refuses it and says how to go on,
/// rather than quietly keep (or replace) a token clients may hold (issue 14 #9).
#[test]
fn a_token_file_readable_by_others_is_refused() {
    use std::io::{BufRead, BufReader, Read};
    use std::os::unix::fs::PermissionsExt;
    let home = tempfile::tempdir().unwrap();
    std::fs::write(home.path().join("config.toml"), openai_config("http://127.0.0.1:9/v1"))
        .unwrap();
    let token_path = home.path().join("api-token");
    std::fs::write(&token_path, "0123456789abcdef").unwrap();
    std::fs::set_permissions(&token_path, std::fs::Permissions::from_mode(0o644)).unwrap();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_preflight"))
        .args(["serve", "--addr", "127.0.0.1:0"])
        .env("PREFLIGHT_HOME", home.path())
        .env("RUST_LOG", "warn")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut first_line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut first_line).unwrap();
    if !first_line.is_empty() {
        child.kill().ok();
        child.wait().ok();
        panic!("serve started with a token file of mode 0644: {first_line}");
    }
    let status = child.wait().unwrap();
    let mut stderr = String::new();
    child.stderr.take().unwrap().read_to_string(&mut stderr).unwrap();
    assert!(!status.success());
    assert!(stderr.contains("api-token") && stderr.contains("0644"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&token_path).unwrap(), "0123456789abcdef", "left as it was");
}

/// Two first starts on one fresh home race: the data folder's lock lets exactly one serve
/// (the other is refused, naming it), and the token the winner wrote is whole and accepted.
#[tokio::test]
async fn two_first_starts_one_serves_and_its_token_is_whole() {
    use std::process::Stdio;
    for _round in 0..4 {
        let home = tempfile::tempdir().unwrap();
        std::fs::write(home.path().join("config.toml"), openai_config("http://127.0.0.1:9/v1"))
            .unwrap();
        let spawn = || support::spawn(home.path(), Stdio::piped());
        let mut children = [spawn(), spawn()];
        let lines = children.each_mut().map(support::first_line);
        let winner = lines.iter().position(|line| line.starts_with("listening on "));
        let winner = winner.unwrap_or_else(|| panic!("one of them serves: {lines:?}"));
        let [first, second] = children;
        let (mut serving, refused) = if winner == 0 { (first, second) } else { (second, first) };
        let refused = refused.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&refused.stderr);
        assert!(!refused.status.success(), "exactly one serves: {lines:?}");
        // The holder's name, unless the winner had not written it yet (then "another
        // Preflight process"): either way the refusal says the folder is in use.
        assert!(stderr.contains("is in use by "), "{stderr}");
        let token = std::fs::read_to_string(home.path().join("api-token")).unwrap();
        assert!(token.trim().len() >= 32, "a whole token: {token:?}");
        let base = lines[winner].trim().trim_start_matches("listening on ").to_owned();
        let answer = reqwest::Client::new()
            .get(format!("{base}/v1/chats"))
            .bearer_auth(token.trim())
            .send()
            .await
            .unwrap();
        assert_eq!(answer.status(), 200);
        serving.kill().ok();
        serving.wait().ok();
    }
}
