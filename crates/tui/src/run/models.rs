//! `/model` and `/planner-model` (DESIGN §15): the terminal's model picker. Without a name
//! they list the models there are; with one (`NAME`, or `PROVIDER/NAME` when two providers
//! serve it, or `default`) they switch the open chat's model, as the window's picker does.

use preflight_engine::chat::ModelChoice;
use preflight_engine::lifecycle::{ApiError, ChatPatch, Engine, ModelList};

use crate::app::state::App;
use crate::locale::fill;
use crate::run::open_chat::{open_new_chat, reload, Events};
use crate::sanitize::one_line;

/// Lists the models (no `name`) or switches the chat's (a new chat is created first).
pub(super) async fn choose_model(
    engine: &Engine,
    app: &mut App,
    planner: bool,
    name: &str,
    events: &mut Events,
) -> Result<(), ApiError> {
    let list = engine.list_models().await;
    if name.is_empty() {
        app.info = Some(listing(app, &list));
        return Ok(());
    }
    let choice = match name {
        "default" => None,
        _ => Some(find(app, &list, name)?),
    };
    let chat_id = open_new_chat(engine, app, events).await?;
    let patch = match planner {
        true => ChatPatch { planner_model: Some(choice), ..ChatPatch::default() },
        false => ChatPatch { model: Some(choice), ..ChatPatch::default() },
    };
    engine.patch_chat(&chat_id, &patch).await?;
    reload(engine, app)
}

/// "Models: a (default), b (cloud) …", with how to choose one.
fn listing(app: &App, list: &ModelList) -> String {
    let names: Vec<String> =
        list.data.iter().map(|option| label(&option.provider, &option.model)).collect();
    let unreachable: Vec<&str> = list
        .providers
        .iter()
        .filter(|provider| provider.error.is_some())
        .map(|provider| provider.name.as_str())
        .collect();
    let mut text = fill(app.words.models_list, &[("models", &names.join(", "))]);
    if !unreachable.is_empty() {
        let names = unreachable.join(", ");
        text.push(' ');
        text.push_str(&fill(app.words.models_unreachable, &[("providers", &names)]));
    }
    one_line(&text)
}

fn label(provider: &str, model: &str) -> String {
    format!("{model} ({provider})")
}

/// The model `name` means: `PROVIDER/MODEL`, or a model only one provider has.
fn find(app: &App, list: &ModelList, name: &str) -> Result<ModelChoice, ApiError> {
    let matches: Vec<ModelChoice> = list
        .data
        .iter()
        .filter(|option| {
            option.model == name || format!("{}/{}", option.provider, option.model) == name
        })
        .map(|option| ModelChoice {
            provider: option.provider.clone(),
            model: option.model.clone(),
        })
        .collect();
    match matches.as_slice() {
        [one] => Ok(one.clone()),
        [] => {
            Err(ApiError::bad_request(fill(app.words.model_unknown, &[("name", &one_line(name))])))
        }
        several => {
            let names: Vec<String> =
                several.iter().map(|c| format!("{}/{}", c.provider, c.model)).collect();
            Err(ApiError::bad_request(fill(
                app.words.model_ambiguous,
                &[("names", &names.join(", "))],
            )))
        }
    }
}
