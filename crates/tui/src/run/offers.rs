//! `/prompts` and `/resources` (DESIGN §17): what the open chat's MCP servers offer, on the
//! info line. A prompt is then sent as `/NAME args`, a resource attached as `@server:uri`,
//! through the same engine call as the window's (`actions.rs`).

use preflight_engine::lifecycle::{ApiError, Engine};
use preflight_engine::mcp::{PromptInfo, ServerFailure};

use crate::app::state::App;
use crate::locale::fill;
use crate::run::open_chat::{open_new_chat, Events};
use crate::sanitize::one_line;

/// Lists the chat's prompts (or resources); a new chat is created first.
pub(super) async fn list_offers(
    engine: &Engine,
    app: &mut App,
    resources: bool,
    events: &mut Events,
) -> Result<(), ApiError> {
    let chat_id = open_new_chat(engine, app, events).await?;
    let (items, failed, words) = if resources {
        let list = engine.resources(&chat_id).await?;
        let items: Vec<String> = list.resources.iter().map(|r| r.reference.clone()).collect();
        (items, list.failed, (app.words.resources_list, app.words.resources_none, "resources"))
    } else {
        let list = engine.prompts(&chat_id).await?;
        let items: Vec<String> = list.prompts.iter().map(usage).collect();
        (items, list.failed, (app.words.prompts_list, app.words.prompts_none, "prompts"))
    };
    let (listed, none, key) = words;
    let mut text = match items.is_empty() {
        true => none.to_owned(),
        false => fill(listed, &[(key, &items.join(", "))]),
    };
    if !failed.is_empty() {
        text.push(' ');
        text.push_str(&fill(app.words.offers_failed, &[("servers", &servers(&failed))]));
    }
    app.info = Some(one_line(&text));
    Ok(())
}

/// `/COMMAND city [state]`: required arguments bare, optional ones in brackets.
fn usage(prompt: &PromptInfo) -> String {
    let mut usage = format!("/{}", prompt.command);
    for argument in &prompt.arguments {
        usage.push(' ');
        usage.push_str(&match argument.required {
            true => argument.name.clone(),
            false => format!("[{}]", argument.name),
        });
    }
    usage
}

fn servers(failed: &[ServerFailure]) -> String {
    failed.iter().map(|f| f.server.as_str()).collect::<Vec<_>>().join(", ")
}
