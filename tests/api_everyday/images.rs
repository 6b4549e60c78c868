//! Images reach vision models (DESIGN §15): an attached image file and a pasted one reach an
//! OpenAI-compatible provider as `image_url` data URLs and an Anthropic one as base64 image
//! blocks, byte for byte; an image an MCP tool returns reaches the model after its result and
//! again in later turns; a model that cannot see images refuses an image message with 400,
//! storing nothing and keeping no copy; a file that is not an image still goes as text.

use base64::Engine as _;
use preflight_testkit::{Reply, Script, ScriptedServer};
use serde_json::{json, Value};

use crate::support::{anthropic_config, openai_config, Serve, ANTHROPIC_KEY_ENV};

/// A PNG of one pixel, and a GIF of one.
const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
const GIF: &str = "R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7";
const NO_SANDBOX: &str = "\n[sandbox]\nenabled = false\n";

fn bytes(base64: &str) -> Vec<u8> {
    base64::engine::general_purpose::STANDARD.decode(base64).unwrap()
}

/// A folder holding `dot.png` and `notes.txt`.
fn files() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("dot.png"), bytes(PNG)).unwrap();
    std::fs::write(dir.path().join("notes.txt"), "plain words").unwrap();
    dir
}

/// The message of an attached image file, a text file, and a pasted GIF.
fn image_message(dir: &std::path::Path) -> Value {
    json!({
        "content": "What are these?",
        "files": [dir.join("dot.png"), dir.join("notes.txt")],
        "images": [{"name": "shot.gif", "media_type": "image/gif", "data": GIF}],
    })
}

/// Sends `body` to a new chat that does not plan and waits for its turn to end.
async fn run(serve: &Serve, body: Value) -> String {
    let id = serve.create_chat(json!({"plan_mode": false})).await;
    let mut events = serve.events(&id).await;
    let (status, sent) = serve.post(&format!("/v1/chats/{id}/messages"), body).await;
    assert_eq!(status, 202, "{sent}");
    events.wait_for_phase("idle").await;
    id
}

/// The media type and bytes of a `data:` URL.
fn data_url(url: &str) -> (String, Vec<u8>) {
    let (head, data) = url.strip_prefix("data:").unwrap().split_once(";base64,").unwrap();
    (head.to_owned(), bytes(data))
}

/// The stored names and media types of the chat's first message's attachments.
fn stored(chat: &Value) -> Vec<(String, Option<String>)> {
    let attachments = chat["messages"][0]["attachments"].as_array().unwrap();
    let field = |a: &Value, key: &str| a[key].as_str().map(str::to_owned);
    attachments.iter().map(|a| (field(a, "name").unwrap(), field(a, "media_type"))).collect()
}

fn expected_images() -> Vec<(String, Vec<u8>)> {
    vec![("image/png".into(), bytes(PNG)), ("image/gif".into(), bytes(GIF))]
}

#[tokio::test]
async fn images_reach_an_openai_provider_as_data_urls_byte_for_byte() {
    let provider =
        ScriptedServer::start(Script::replies([Reply::text("Two dots.")])).await.unwrap();
    let serve = Serve::start(&format!("{}{NO_SANDBOX}", openai_config(&provider.openai_url())));
    let dir = files();
    let id = run(&serve, image_message(dir.path())).await;

    let request = &provider.requests()[0];
    let user = request.messages().into_iter().find(|m| m["role"] == "user").unwrap();
    let parts = user["content"].as_array().expect("the content as parts");
    let text = parts[0]["text"].as_str().unwrap();
    assert!(text.starts_with("What are these?"), "{text}");
    assert!(text.contains("- notes.txt (11 B)") && text.contains("- dot.png (70 B, image/png)"));
    let images: Vec<_> = parts[1..]
        .iter()
        .map(|part| (part["type"].as_str(), part["image_url"]["url"].as_str().map(data_url)))
        .map(|(kind, url)| {
            assert_eq!(kind, Some("image_url"));
            url.unwrap()
        })
        .collect();
    assert_eq!(images, expected_images(), "the attached PNG, then the pasted GIF");
    let png = Some("image/png".to_owned());
    let gif = Some("image/gif".to_owned());
    let names = [("dot.png".into(), png), ("notes.txt".into(), None), ("shot.gif".into(), gif)];
    assert_eq!(stored(&serve.chat(&id).await), names);
    let copy = serve.home_path().join("attachments").join(&id).join("shot.gif");
    assert_eq!(std::fs::read(copy).unwrap(), bytes(GIF), "the pasted image is kept as a file");
}

#[tokio::test]
async fn images_reach_an_anthropic_provider_as_base64_blocks_byte_for_byte() {
    let provider =
        ScriptedServer::start(Script::replies([Reply::text("Two dots.")])).await.unwrap();
    let config = format!("{}{NO_SANDBOX}", anthropic_config(&provider.url()));
    let serve = Serve::start_with_config(&config, &[ANTHROPIC_KEY_ENV]);
    let dir = files();
    run(&serve, image_message(dir.path())).await;

    let request = &provider.requests()[0];
    let user = request.messages().into_iter().find(|m| m["role"] == "user").unwrap();
    let blocks = user["content"].as_array().unwrap();
    let images: Vec<_> = blocks
        .iter()
        .filter(|block| block["type"] == "image")
        .map(|block| {
            let source = &block["source"];
            assert_eq!(source["type"], "base64");
            (
                source["media_type"].as_str().unwrap().to_owned(),
                bytes(source["data"].as_str().unwrap()),
            )
        })
        .collect();
    assert_eq!(images, expected_images());
    let text = blocks.last().unwrap()["text"].as_str().unwrap();
    assert!(text.starts_with("What are these?") && text.contains("notes.txt"), "{text}");
}

/// How many copies the chat's attachments folder holds.
fn copies(serve: &Serve, id: &str) -> usize {
    let dir = serve.home_path().join("attachments").join(id);
    std::fs::read_dir(dir).map(|entries| entries.count()).unwrap_or(0)
}

/// Sends each of `bodies` to a new chat and checks each is refused with 400 naming `model`,
/// leaving no message and no copy; the chat's id.
async fn refused(serve: &Serve, bodies: &[Value], model: &str) -> String {
    let id = serve.create_chat(json!({})).await;
    for body in bodies {
        let (status, refused) = serve.post(&format!("/v1/chats/{id}/messages"), body.clone()).await;
        assert_eq!(
            (status, refused["error"]["code"].as_str()),
            (400, Some("ERR_BAD_REQUEST")),
            "{refused}"
        );
        let message = refused["error"]["message"].as_str().unwrap();
        assert!(message.contains(&format!("the model {model} cannot see images")), "{message}");
        assert_eq!(serve.chat(&id).await["messages"], json!([]), "nothing stored for {body}");
        assert_eq!(copies(serve, &id), 0, "no copy left for {body}");
    }
    id
}

#[tokio::test]
async fn a_provider_set_vision_false_refuses_images_and_takes_other_files_as_text() {
    let provider = ScriptedServer::start(Script::replies([Reply::text("Read.")])).await.unwrap();
    let url = provider.openai_url();
    let serve = Serve::start(&format!("{}vision = false\n{NO_SANDBOX}", openai_config(&url)));
    let dir = files();
    let pasted_only =
        json!({"content": "And this?", "images": [{"media_type": "image/gif", "data": GIF}]});
    let file_only = json!({"content": "And this?", "files": [dir.path().join("dot.png")]});
    refused(&serve, &[image_message(dir.path()), pasted_only, file_only], "scripted").await;
    assert!(provider.requests().is_empty(), "no model was asked");

    let text = json!({"content": "Read this", "files": [dir.path().join("notes.txt")]});
    run(&serve, text).await;
    let request = &provider.requests()[0];
    let user = request.messages().into_iter().find(|m| m["role"] == "user").unwrap();
    let content = user["content"].as_str().expect("plain text, as before images");
    assert!(content.contains("- notes.txt (11 B)"), "{content}");
}

#[tokio::test]
async fn the_embedded_model_refuses_images() {
    let models = tempfile::tempdir().unwrap();
    // Never loaded: the message is refused before any turn.
    std::fs::write(models.path().join("tiny.gguf"), "not a model").unwrap();
    let config = format!("[provider]\nkind = \"embedded\"\nmodel = \"tiny.gguf\"\n{NO_SANDBOX}");
    let models_dir = models.path().to_str().unwrap();
    let serve = Serve::start_with_config(&config, &[("PREFLIGHT_MODELS_DIR", models_dir)]);
    let dir = files();
    refused(&serve, &[image_message(dir.path())], "tiny.gguf (embedded)").await;
}

/// The images in the user message right after the tool result `call` in an OpenAI request.
fn tool_images(request: &preflight_testkit::RecordedRequest, call: &str) -> Vec<(String, Vec<u8>)> {
    let messages = request.messages();
    let at = messages.iter().position(|m| m["tool_call_id"] == call).expect("the tool result");
    let parts = messages[at + 1]["content"].as_array().cloned().unwrap_or_default();
    let urls = parts.iter().filter_map(|part| part["image_url"]["url"].as_str());
    urls.map(data_url).collect()
}

#[tokio::test]
async fn an_image_a_tool_returns_reaches_the_model_and_stays_for_later_turns() {
    let workspace = files();
    let png = workspace.path().join("dot.png");
    let read = Reply::tool_call("mcp_filesystem_read_media_file", json!({"path": png}));
    let script = Script::replies([read, Reply::text("A dot."), Reply::text("Still a dot.")]);
    let provider = ScriptedServer::start(script).await.unwrap();
    let serve = Serve::start(&format!("{}{NO_SANDBOX}", openai_config(&provider.openai_url())));
    let id = serve.create_chat(json!({"plan_mode": false, "workspace": workspace.path()})).await;
    let mut events = serve.events(&id).await;
    serve.post(&format!("/v1/chats/{id}/messages"), json!({"content": "Look at dot.png"})).await;
    events.wait_for_phase("idle").await;

    let call = provider.requests()[0].body.to_string();
    assert!(call.contains("read_media_file"), "the tool was offered");
    let call_id =
        serve.chat(&id).await["messages"][1]["tool_calls"][0]["id"].as_str().unwrap().to_owned();
    let png = vec![("image/png".to_owned(), bytes(PNG))];
    assert_eq!(tool_images(&provider.requests()[1], &call_id), png, "shown after its result");
    let chat = serve.chat(&id).await;
    let result = &chat["messages"][2];
    assert_eq!(result["content"], "[image: image/png, 70 bytes]");
    let kept = result["attachments"][0]["name"].as_str().unwrap();
    assert_eq!(result["attachments"][0]["media_type"], "image/png");
    let copy = serve.home_path().join("attachments").join(&id).join(kept);
    assert_eq!(std::fs::read(copy).unwrap(), bytes(PNG), "kept for later turns");

    serve.post(&format!("/v1/chats/{id}/messages"), json!({"content": "Is it still?"})).await;
    events.wait_for_phase("idle").await;
    assert_eq!(tool_images(&provider.requests()[2], &call_id), png, "shown again, from its copy");
}

#[tokio::test]
async fn the_chats_own_model_decides_whether_images_may_go() {
    let provider = ScriptedServer::start(Script::replies([Reply::text("A dot.")])).await.unwrap();
    let url = provider.openai_url();
    let config = format!(
        "{}\n[providers.blind]\nkind = \"openai\"\nbase_url = \"{url}\"\nmodel = \"text-only\"\n\
         vision = false\n{NO_SANDBOX}",
        openai_config(&url)
    );
    let serve = Serve::start(&config);
    let dir = files();
    let id = refused_on(&serve, json!({"provider": "blind", "model": "text-only"}), &dir).await;
    let back = json!({"model": null});
    let (status, _) = serve.request("PATCH", &format!("/v1/chats/{id}"), Some(back)).await;
    assert_eq!(status, 200);
    let (status, sent) =
        serve.post(&format!("/v1/chats/{id}/messages"), image_message(dir.path())).await;
    assert_eq!(status, 202, "the default model sees images: {sent}");
}

/// A chat on `model` that refuses an image message, storing nothing; the chat's id.
async fn refused_on(serve: &Serve, model: Value, dir: &tempfile::TempDir) -> String {
    let id = serve.create_chat(json!({"plan_mode": false, "model": model})).await;
    let path = format!("/v1/chats/{id}/messages");
    let (status, refused) = serve.post(&path, image_message(dir.path())).await;
    assert_eq!(status, 400, "{refused}");
    assert!(refused["error"]["message"].as_str().unwrap().contains("text-only"), "{refused}");
    assert_eq!(serve.chat(&id).await["messages"], json!([]));
    id
}
