//! `GET /v1/openapi.json` (DESIGN §9): the document is served without a token, names the
//! bearer scheme and the error shape, and lists exactly the routes the router serves: every
//! documented operation is routed (not the "no such route" fallback, not 405), and every
//! other method on a documented path is 405.

mod support;

use std::collections::BTreeSet;

use serde_json::{json, Value};
use support::{openai_config, Serve};

/// DESIGN §9's table, plus the chat's PATCH, the sandbox, the plan changes of DESIGN §12,
/// the MCP servers' questions to the user (issue 20) and export and import (DESIGN §15).
const ROUTES: &[&str] = &[
    "GET /v1/chats",
    "POST /v1/chats",
    "GET /v1/chats/{id}",
    "PATCH /v1/chats/{id}",
    "DELETE /v1/chats/{id}",
    "GET /v1/chats/{id}/events",
    "GET /v1/chats/{id}/export",
    "POST /v1/chats/import",
    "POST /v1/chats/{id}/fork",
    "GET /v1/chats/{id}/worktree",
    "POST /v1/chats/{id}/merge",
    "POST /v1/chats/{id}/worktree/keep",
    "POST /v1/chats/{id}/worktree/recreate",
    "POST /v1/chats/{id}/answers",
    "GET /v1/chats/{id}/messages",
    "POST /v1/chats/{id}/messages",
    "PUT /v1/chats/{id}/messages/{mid}",
    "GET /v1/chats/{id}/plan",
    "DELETE /v1/chats/{id}/plan",
    "POST /v1/chats/{id}/plan/approve",
    "POST /v1/chats/{id}/plan/cancel",
    "PATCH /v1/chats/{id}/plan/doc",
    "POST /v1/chats/{id}/plan/reject",
    "POST /v1/chats/{id}/plan/verify",
    "POST /v1/chats/{id}/plan/accept",
    "GET /v1/chats/{id}/plan/revisions",
    "GET /v1/chats/{id}/plan/changes",
    "POST /v1/chats/{id}/plan/changes/{cid}/approve",
    "POST /v1/chats/{id}/plan/changes/{cid}/reject",
    "GET /v1/chats/{id}/elicitations",
    "POST /v1/chats/{id}/elicitations/{eid}",
    "GET /v1/chats/{id}/profile",
    "GET /v1/chats/{id}/skills",
    "GET /v1/chats/{id}/sandbox",
    "GET /v1/chats/{id}/prompts",
    "GET /v1/chats/{id}/resources",
    "POST /v1/chats/{id}/sandbox/venv/adopt",
    "POST /v1/chats/{id}/stop",
    "POST /v1/chats/{id}/continue",
    "GET /v1/chats/{id}/checkpoints",
    "GET /v1/chats/{id}/checkpoints/{n}/diff",
    "GET /v1/chats/{id}/checkpoints/{n}/restore",
    "POST /v1/chats/{id}/checkpoints/{n}/restore",
    "GET /v1/search",
    "GET /v1/models",
    "GET /v1/health",
    "GET /v1/openapi.json",
    "GET /v1/hooks",
    "PUT /v1/hooks/trust",
];

const METHODS: [&str; 5] = ["GET", "POST", "PUT", "PATCH", "DELETE"];

fn serve() -> Serve {
    Serve::start(&openai_config("http://127.0.0.1:9/v1"))
}

async fn document(serve: &Serve) -> Value {
    let (status, document) = serve.raw("GET", "/v1/openapi.json", "", &[], false).await;
    assert_eq!(status, 200, "served without a token: {document}");
    document
}

/// `METHOD /path` of every operation in the document.
fn operations(document: &Value) -> BTreeSet<String> {
    let paths = document["paths"].as_object().expect("paths");
    paths
        .iter()
        .flat_map(|(path, item)| {
            let methods = item.as_object().expect("a path item").keys();
            methods
                .filter(|method| METHODS.contains(&method.to_uppercase().as_str()))
                .map(move |method| format!("{} {path}", method.to_uppercase()))
        })
        .collect()
}

#[tokio::test]
async fn the_document_lists_exactly_the_routes_of_design_9() {
    let serve = serve();
    let document = document(&serve).await;
    assert!(document["openapi"].as_str().unwrap().starts_with("3."), "{document}");
    let expected: BTreeSet<String> = ROUTES.iter().map(|route| route.to_string()).collect();
    assert_eq!(operations(&document), expected);
}

#[tokio::test]
async fn every_documented_operation_is_routed_and_no_other_method_is() {
    let serve = serve();
    let document = document(&serve).await;
    let documented = operations(&document);
    let paths: BTreeSet<&str> = documented.iter().map(|op| op.split_once(' ').unwrap().1).collect();
    for path in paths {
        // An unknown chat: a routed operation says so ("no chat nope"), the fallback does not.
        let concrete = path.replace("{id}", "nope").replace("{mid}", "m").replace("{task}", "1");
        for method in METHODS {
            let (status, body) = serve.raw(method, &concrete, "", &[], true).await;
            if documented.contains(&format!("{method} {path}")) {
                assert_ne!(status, 405, "{method} {path} is documented but not routed: {body}");
                assert_ne!(body["error"]["message"], "no such route", "{method} {path}");
            } else {
                assert_eq!(status, 405, "{method} {path} is routed but not documented: {body}");
                assert_eq!(body["error"]["code"], "ERR_BAD_REQUEST", "{method} {path}");
            }
        }
    }
}

#[tokio::test]
async fn the_document_names_the_bearer_scheme_and_the_error_shape() {
    let serve = serve();
    let document = document(&serve).await;
    let schemes = &document["components"]["securitySchemes"];
    assert_eq!(
        schemes["bearer"],
        json!({"type": "http", "scheme": "bearer", "description": schemes["bearer"]["description"]})
    );
    assert_eq!(document["security"], json!([{"bearer": []}]));
    let error = &document["components"]["schemas"]["ErrorBody"];
    assert_eq!(error["properties"]["error"]["$ref"], "#/components/schemas/ApiError", "{error}");
    let chats = &document["paths"]["/v1/chats"]["post"];
    assert_eq!(
        chats["responses"]["401"]["content"]["application/json"]["schema"]["$ref"],
        "#/components/schemas/ErrorBody"
    );
    assert!(chats["responses"]["201"].is_object() && chats["responses"]["400"].is_object());
    let health = &document["paths"]["/v1/health"]["get"];
    assert_eq!(health["security"], json!([{}]), "health needs no token");
    assert!(health["responses"]["401"].is_null());
    let send = &document["paths"]["/v1/chats/{id}/messages"]["post"]["responses"];
    for status in ["202", "400", "401", "404", "409", "413"] {
        assert!(send[status].is_object(), "messages documents {status}: {send}");
    }
}
