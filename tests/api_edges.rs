//! The headless API's edges (finding #9): whatever the framework refuses before a handler
//! runs (an oversize body, an undecodable path segment, an unknown route, a wrong method)
//! answers in the error shape of DESIGN §9 with a fitting status, and changes nothing.

mod support;

use serde_json::{json, Value};
use support::{openai_config, Serve};

fn serve() -> Serve {
    // No model is called in these tests: a port nothing listens on is enough.
    Serve::start(&openai_config("http://127.0.0.1:9/v1"))
}

/// The answer's code, or a panic naming the body that is not in the error shape.
fn error_code(body: &Value) -> &str {
    body["error"]["code"].as_str().unwrap_or_else(|| panic!("not an error body: {body}"))
}

/// Sends `method path` with a JSON body of `size` bytes over a plain socket (a client
/// library may fail its write once the server answers early) and reads the answer.
async fn send_sized(serve: &Serve, method: &str, path: &str, size: usize) -> (u16, Value) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let address = serve.base.strip_prefix("http://").unwrap();
    let mut stream = tokio::net::TcpStream::connect(address).await.unwrap();
    let prefix = r#"{"content": ""#;
    let body = format!("{prefix}{}\"}}", "x".repeat(size - prefix.len() - 2));
    let head = format!(
        "{method} {path} HTTP/1.1\r\nhost: {address}\r\nauthorization: Bearer {}\r\n\
         content-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
        serve.token,
        body.len()
    );
    // The server may stop reading once it has seen enough; its answer is what counts.
    let _ = stream.write_all(format!("{head}{body}").as_bytes()).await;
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer).await;
    let answer = String::from_utf8_lossy(&answer);
    let status = answer.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    let body = answer.split_once("\r\n\r\n").map_or("", |(_, body)| body);
    (status, serde_json::from_str(body).unwrap_or(Value::Null))
}

#[tokio::test]
async fn an_oversize_body_is_refused_in_the_error_shape_and_changes_nothing() {
    let serve = serve();
    let id = serve.create_chat(json!({})).await;
    let before = serve.chat(&id).await;
    let over = 2 * 1024 * 1024 + 1024;
    // A message may carry pasted images: its own limit is 32 MiB.
    let message_over = 32 * 1024 * 1024 + 1024;
    for (method, path, over) in [
        ("POST", format!("/v1/chats/{id}/messages"), message_over),
        ("POST", "/v1/chats".to_owned(), over),
        ("PATCH", format!("/v1/chats/{id}"), over),
    ] {
        let (status, body) = send_sized(&serve, method, &path, over).await;
        assert_eq!((status, error_code(&body)), (413, "ERR_BAD_REQUEST"), "{method} {path}");
    }
    assert_eq!(serve.chat(&id).await, before);
    assert_eq!(serve.get("/v1/chats").await.1["data"].as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn an_undecodable_path_segment_is_a_bad_request_in_the_error_shape() {
    let serve = serve();
    let id = serve.create_chat(json!({})).await;
    let before = serve.chat(&id).await;
    let cases = [
        ("GET", "/v1/chats/%FF".to_owned(), ""),
        ("DELETE", "/v1/chats/%FF".to_owned(), ""),
        ("POST", "/v1/chats/%FF/messages".to_owned(), r#"{"content": "hi"}"#),
        ("PUT", format!("/v1/chats/{id}/messages/%FF"), r#"{"content": "hi"}"#),
        ("POST", format!("/v1/chats/{id}/plan/changes/%FF/approve"), ""),
        ("GET", "/v1/chats/%C3%28/events".to_owned(), ""),
    ];
    for (method, path, body) in cases {
        let (status, answer) = serve.raw(method, &path, body, &[], true).await;
        assert_eq!((status, error_code(&answer)), (400, "ERR_BAD_REQUEST"), "{method} {path}");
    }
    assert_eq!(serve.chat(&id).await, before);
}

#[tokio::test]
async fn unknown_routes_and_wrong_methods_answer_in_the_error_shape() {
    let serve = serve();
    let cases = [
        ("GET", "/v1/nope", 404, "ERR_NOT_FOUND"),
        ("GET", "/", 404, "ERR_NOT_FOUND"),
        ("PUT", "/v1/chats", 405, "ERR_BAD_REQUEST"),
        ("POST", "/v1/health", 405, "ERR_BAD_REQUEST"),
        ("DELETE", "/v1/openapi.json", 405, "ERR_BAD_REQUEST"),
        ("POST", "/v1/chats/x/profile", 405, "ERR_BAD_REQUEST"),
    ];
    for (method, path, status, code) in cases {
        let (got, answer) = serve.raw(method, path, "", &[], true).await;
        assert_eq!((got, error_code(&answer)), (status, code), "{method} {path}: {answer}");
    }
}

#[tokio::test]
async fn a_title_over_the_rename_limit_is_refused_at_creation_and_creates_nothing() {
    let serve = serve();
    let (status, body) = serve.post("/v1/chats", json!({"title": "t".repeat(201)})).await;
    assert_eq!((status, error_code(&body)), (400, "ERR_BAD_REQUEST"), "{body}");
    assert_eq!(serve.get("/v1/chats").await.1["data"], json!([]));
    let (status, chat) = serve.post("/v1/chats", json!({"title": "t".repeat(200)})).await;
    assert_eq!(status, 201, "{chat}");
    let (status, _) = serve
        .request(
            "PATCH",
            &format!("/v1/chats/{}", chat["id"].as_str().unwrap()),
            Some(json!({"title": "t".repeat(201)})),
        )
        .await;
    assert_eq!(status, 400, "the same rule as renaming");
}

/// Found by schemathesis: an optional body of whitespace was taken as no body.
#[tokio::test]
async fn a_body_of_whitespace_is_malformed_json_even_where_the_body_is_optional() {
    let serve = serve();
    let id = serve.create_chat(json!({})).await;
    let json_header = [("content-type", "application/json")];
    for path in ["/v1/chats".to_owned(), format!("/v1/chats/{id}/plan/reject")] {
        let (status, body) = serve.raw("POST", &path, "\n", &json_header, true).await;
        assert_eq!((status, error_code(&body)), (400, "ERR_BAD_REQUEST"), "{path}: {body}");
    }
    assert_eq!(serve.get("/v1/chats").await.1["data"].as_array().unwrap().len(), 1);
}
