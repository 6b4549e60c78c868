//! What an image costs a run (DESIGN §15): request bytes per request over a 20-round
//! executor turn whose conversation began with a question about a 1 MiB image, against the
//! scripted server over loopback with the real OpenAI client and store. Three runs: the same
//! turn without the image; with it and room to spare in the model's window; with it and a
//! window the run outgrows, so that the budget makes room.
//!
//! Prints each request's bytes and how many copies of the image it carried: with room, the
//! image goes once in every request (the base64 once, never again per round); when the
//! budget demands, the old image is the first thing elided (before any tool result) and the
//! requests fall back to the text-only size. Run with `cargo bench -p preflight-agent --bench
//! image_bytes`.

use std::sync::Arc;

use preflight_agent::events::Event;
use preflight_agent::{
    run_turn, Agent, Availability, ChatLedger, EventSink, RoundRecorder, RoundRule, Tool,
    ToolContext, ToolRegistry, Turn, TurnMode, TurnScope, SUMMARY_PROMPT,
};
use preflight_llm::{build_provider, ModelMessage, ProviderKind, ProviderSettings};
use preflight_protocol::chat::ImagePart;
use preflight_protocol::tool::{ToolOutput, ToolSpec};
use preflight_testkit::{Answer, Matcher, RecordedRequest, Reply, Script, ScriptedServer};
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

mod support;
use support::chat;

const ROUNDS: usize = 20;
const IMAGE_BYTES: usize = 1024 * 1024;
const OUTPUT_BYTES: usize = 2 * 1024;
/// A window the run outgrows near its middle: 9,000 tokens after the reply's reserve.
const TIGHT_WINDOW: u32 = 12_000;
const MARK: &str = "data:image/png;base64,";

fn main() {
    let runtime =
        tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    runtime.block_on(async {
        let text = run(false, None).await;
        let roomy = run(true, None).await;
        let tight = run(true, Some(TIGHT_WINDOW)).await;
        report(&text, &roomy, &tight);
    });
}

/// Returns 2 KB of notes.
struct Notes;

#[async_trait::async_trait]
impl Tool for Notes {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "notes".into(),
            description: "Reads the notes.".into(),
            input_schema: json!({"type": "object", "properties": {"n": {"type": "integer"}}}),
        }
    }

    async fn call(&self, _arguments: Value, _context: &ToolContext<'_>) -> ToolOutput {
        ToolOutput::ok("the notes go on and on. ".repeat(OUTPUT_BYTES / 24))
    }
}

/// Per request: its body's bytes and the copies of the image in it.
struct Requests(Vec<(usize, usize)>);

/// The conversation so far: a question about the image (when there is one), its answer,
/// and the user's latest words, which carry no image.
fn history(image: bool) -> Vec<ModelMessage> {
    let mut question = ModelMessage::user("What is in this picture?");
    if image {
        let data = "A".repeat(IMAGE_BYTES / 3 * 4 + 4); // base64 of 1 MiB, near enough
        question.images_mut().unwrap().push(ImagePart::new("image/png", data));
    }
    vec![
        question,
        ModelMessage::Assistant { content: "A cat on a keyboard.".into(), tool_calls: vec![] },
        ModelMessage::user("Now read the notes, round after round."),
    ]
}

/// The notes, round after round, and the answer; a window, when given, is enforced by the
/// server (refusing a request over it, as the API does) and counted as a provider would, an
/// image at its fixed figure: the engine's estimates learn from that count.
fn script(window: Option<u32>) -> Script {
    let mut replies: Vec<Reply> = (0..ROUNDS)
        .map(|n| {
            Answer::new().text(&format!("Round {n}. ")).tool_call("notes", json!({"n": n})).into()
        })
        .collect();
    replies.push(Reply::text("done"));
    let summary = Reply::text("Summary: a cat; the notes were read.");
    let script = Script::new()
        .forever(Matcher::system_contains(SUMMARY_PROMPT), summary)
        .route(Matcher::default(), replies);
    match window {
        Some(window) => script.context_limit(u64::from(window)),
        None => script,
    }
}

async fn run(image: bool, window: Option<u32>) -> Requests {
    let server = ScriptedServer::start(script(window)).await.unwrap();
    let mut settings = ProviderSettings::new(ProviderKind::OpenAi, server.openai_url(), "bench");
    settings.context_window = Some(window.unwrap_or(1_000_000));
    let provider = build_provider(&settings, None).unwrap();
    let home = tempfile::tempdir().unwrap();
    let (store, chat_id) = chat(home.path());
    let ledger = ChatLedger::new(store, chat_id.clone());
    let mut registry = ToolRegistry::new();
    registry.register(Arc::new(Notes), Availability::EXECUTOR);
    let tools = registry.offer(&TurnScope { agent: Agent::Executor, task_list: false }).await;
    let (sender, mut receiver) = tokio::sync::mpsc::unbounded_channel::<Event>();
    let consumer = tokio::spawn(async move { while receiver.recv().await.is_some() {} });
    let turn = Turn {
        chat_id: &chat_id,
        provider: provider.as_ref(),
        system: "bench",
        history: history(image),
        history_ids: Vec::new(),
        tools: &tools,
        mode: TurnMode::Streaming,
        rule: RoundRule::fixed(ROUNDS as u32),
        workspace: None,
        task_list: None,
        recorder: Some(&ledger as &dyn RoundRecorder),
        events: &sender as &dyn EventSink,
        hooks: None,
    };
    let outcome = run_turn(turn, &CancellationToken::new()).await.unwrap();
    assert_eq!(outcome.rounds as usize, ROUNDS, "the run finished");
    drop(sender);
    consumer.await.unwrap();
    let answered = |r: &&RecordedRequest| !summary(r) && !r.too_long;
    let measured = server.requests().iter().filter(answered).map(measure).collect();
    Requests(measured)
}

fn summary(request: &RecordedRequest) -> bool {
    request.system().contains(SUMMARY_PROMPT)
}

fn measure(request: &RecordedRequest) -> (usize, usize) {
    let body = request.body.to_string();
    (body.len(), body.matches(MARK).count())
}

fn report(text: &Requests, roomy: &Requests, tight: &Requests) {
    println!(
        "image bytes: {ROUNDS} rounds of {OUTPUT_BYTES}-byte tool output after a question about a \
         {IMAGE_BYTES}-byte image; bytes per request (images in it)"
    );
    println!("  request   text only   image, room to spare   image, {TIGHT_WINDOW}-token window");
    for (n, ((t, _), ((r, ri), (g, gi)))) in
        text.0.iter().zip(roomy.0.iter().zip(&tight.0)).enumerate()
    {
        println!("  {:>7}  {t:>10}  {r:>14} ({ri})  {g:>17} ({gi})", n + 1);
    }
    let total = |requests: &Requests| requests.0.iter().map(|(bytes, _)| bytes).sum::<usize>();
    let copies = |requests: &Requests| requests.0.iter().map(|(_, n)| n).sum::<usize>();
    println!(
        "  total    {:>10}  {:>14} ({})  {:>17} ({})",
        total(text),
        total(roomy),
        copies(roomy),
        total(tight),
        copies(tight)
    );
    let per_copy = (total(roomy) - total(text)) as f64 / copies(roomy).max(1) as f64;
    println!(
        "  the image adds {per_copy:.0} bytes to each request that carries it ({} of {} with room; \
         {} of {} in the tight window, the rest after the budget elided it)",
        copies(roomy),
        roomy.0.len(),
        copies(tight),
        tight.0.len()
    );
}
