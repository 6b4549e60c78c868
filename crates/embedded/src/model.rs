//! One GGUF model loaded in memory, and the generation loop: the prompt through the model's
//! chat template, a context sized to the turn, grammar sampling for planner turns, text
//! handed out as it is decoded, and a stop at the token budget, the context's end, or the
//! cancellation token. Blocking: the provider runs it on a blocking thread.

use std::num::NonZeroU32;
use std::path::Path;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use llama_cpp_2::context::params::LlamaContextParams;
use llama_cpp_2::context::LlamaContext;
use llama_cpp_2::llama_batch::LlamaBatch;
use llama_cpp_2::model::params::LlamaModelParams;
use llama_cpp_2::model::{LlamaChatMessage, LlamaChatTemplate, LlamaModel};
use llama_cpp_2::sampling::LlamaSampler;
use llama_cpp_2::token::data::LlamaTokenData;
use llama_cpp_2::token::data_array::LlamaTokenDataArray;
use llama_cpp_2::token::LlamaToken;
use preflight_llm::{FinishReason, LlmError, ModelRequest, OutputConstraint, SetupError};
use tokio_util::sync::CancellationToken;

use crate::backend::{backend, check_cpu};
use crate::grammar::{PLANNER_GRAMMAR, PLANNER_MAX_TOKENS};
use crate::prompt::chat_messages;
use crate::threads::Threads;
use crate::utf8::Utf8Stream;

/// The largest context a turn gets, whatever the model was trained for: its key/value cache
/// is allocated whole when the context is made (8192 tokens ≈ 190 MB for SmolLM2).
const MAX_CONTEXT: u32 = 8192;
/// Tokens decoded per `decode` call while reading the prompt.
const BATCH: usize = 512;
/// The room a free answer needs at least; a planner turn needs room for a whole card.
const MIN_FREE_REPLY: u32 = 128;
const MIN_PLANNER_REPLY: u32 = 1024;
/// A free answer's budget when the settings give none.
pub const DEFAULT_MAX_TOKENS: u32 = 1024;

/// A model ready to generate.
pub struct EmbeddedModel {
    model: LlamaModel,
    template: LlamaChatTemplate,
    name: String,
    /// One generation at a time: llama-cpp-2 notes that making contexts of one model in
    /// parallel is unsound, and on a small machine parallel generations only slow each other.
    turn: Mutex<()>,
}

/// How one generation runs.
#[derive(Debug, Clone, Copy)]
pub struct GenerateOptions {
    /// Tokens a free answer may take; a planner turn always gets room for a whole card.
    pub max_tokens: u32,
    pub threads: Threads,
    pub seed: u32,
}

/// How a generation ended, and what it cost.
#[derive(Debug, Clone, PartialEq)]
pub struct Generation {
    pub finish: FinishReason,
    pub stats: Stats,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stats {
    pub prompt_tokens: usize,
    /// Reading the prompt (all of its tokens through the model).
    pub prompt_time: Duration,
    pub output_tokens: usize,
    /// From the first sampled token to the last.
    pub output_time: Duration,
    pub threads: usize,
    pub context: u32,
}

impl Stats {
    pub fn prompt_tokens_per_second(&self) -> f64 {
        self.prompt_tokens as f64 / self.prompt_time.as_secs_f64().max(1e-9)
    }

    pub fn output_tokens_per_second(&self) -> f64 {
        self.output_tokens as f64 / self.output_time.as_secs_f64().max(1e-9)
    }
}

impl EmbeddedModel {
    /// Loads the GGUF file at `path` (memory-mapped; CPU only). `name` is for people.
    pub fn load(path: &Path, name: impl Into<String>) -> Result<EmbeddedModel, SetupError> {
        let name = name.into();
        let fail = |detail: String| SetupError::EmbeddedModel { detail };
        check_cpu().map_err(fail)?;
        let backend = backend().map_err(fail)?;
        if !path.is_file() {
            return Err(fail(format!("{} is not installed at {}", name, path.display())));
        }
        let model = LlamaModel::load_from_file(backend, path, &LlamaModelParams::default())
            .map_err(|error| fail(format!("cannot load {}: {error}", path.display())))?;
        let template = chat_template(&model)
            .map_err(|error| fail(format!("{name} has no usable chat template: {error}")))?;
        Ok(EmbeddedModel { model, template, name, turn: Mutex::new(()) })
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// The tokens the model was trained to attend to (its largest useful context).
    pub fn trained_context(&self) -> u32 {
        self.model.n_ctx_train()
    }

    /// The request as the model's chat template writes it, ending where the answer begins.
    pub fn prompt(&self, request: &ModelRequest) -> Result<String, LlmError> {
        let messages = chat_messages(request)
            .into_iter()
            .map(|message| {
                LlamaChatMessage::new(message.role.to_owned(), message.content.replace('\0', ""))
            })
            .collect::<Result<Vec<_>, _>>()
            .map_err(|error| bad(format!("a message cannot be passed to llama.cpp: {error}")))?;
        self.model
            .apply_chat_template(&self.template, &messages, true)
            .map_err(|error| bad(format!("the chat template failed: {error}")))
    }

    /// Generates the answer to `request`, handing text to `on_text` as it is decoded (it
    /// returns false to stop: nobody listens any more). Blocks until the answer is done.
    pub fn generate(
        &self,
        request: &ModelRequest,
        options: &GenerateOptions,
        cancel: &CancellationToken,
        on_text: &mut dyn FnMut(&str) -> bool,
    ) -> Result<Generation, LlmError> {
        let _turn = self.turn.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if cancel.is_cancelled() {
            return Err(LlmError::Cancelled);
        }
        let prompt = self.prompt(request)?;
        let tokens = self.model.vocab().tokenize(prompt.as_bytes(), true, true);
        if tokens.is_empty() {
            return Err(bad("the prompt is empty"));
        }
        let planner = request.output == OutputConstraint::PlannerFence;
        let (context, budget) = self.fit(tokens.len(), planner, options.max_tokens)?;
        let threads = options.threads.count();
        let mut ctx = self.context(context, threads)?;
        let started = Instant::now();
        let mut batch = LlamaBatch::new(BATCH, 1);
        read_prompt(&mut ctx, &mut batch, &tokens, cancel)?;
        let prompt_time = started.elapsed();
        let mut sampler = Sampler::new(&self.model, planner, options.seed)?;
        let mut run =
            Run { ctx, batch, position: tokens.len(), produced: 0, text: Utf8Stream::default() };
        let started = Instant::now();
        let finish = run.answer(&self.model, &mut sampler, budget, cancel, on_text)?;
        let stats = Stats {
            prompt_tokens: tokens.len(),
            prompt_time,
            output_tokens: run.produced,
            output_time: started.elapsed(),
            threads,
            context,
        };
        Ok(Generation { finish, stats })
    }

    /// The context size and answer budget for a prompt of `prompt` tokens: the budget fits
    /// under the context limit, or the conversation is too long for this model.
    fn fit(&self, prompt: usize, planner: bool, max_tokens: u32) -> Result<(u32, u32), LlmError> {
        let limit = self.trained_context().min(MAX_CONTEXT);
        let (wanted, least) = match planner {
            true => (PLANNER_MAX_TOKENS, MIN_PLANNER_REPLY),
            false => (max_tokens.max(1), MIN_FREE_REPLY.min(max_tokens.max(1))),
        };
        let prompt = u32::try_from(prompt).unwrap_or(u32::MAX);
        let room = limit.saturating_sub(prompt);
        if room < least {
            return Err(LlmError::ContextTooLong {
                message: format!(
                    "the prompt is {prompt} tokens and the embedded {} reads at most {limit} with {least} left to answer; \
                     start a new chat or configure a larger model",
                    self.name
                ),
            });
        }
        let budget = wanted.min(room);
        let context = (prompt + budget).div_ceil(256).saturating_mul(256).min(limit);
        Ok((context, budget))
    }

    fn context(&self, size: u32, threads: usize) -> Result<LlamaContext<'_>, LlmError> {
        let threads = i32::try_from(threads).unwrap_or(1);
        let params = LlamaContextParams::default()
            .with_n_ctx(NonZeroU32::new(size))
            .with_n_batch(BATCH as u32)
            .with_n_ubatch(BATCH as u32)
            .with_n_threads(threads)
            .with_n_threads_batch(threads);
        let backend = backend().map_err(unavailable)?;
        self.model.new_context(backend, params).map_err(|error| {
            unavailable(format!("cannot make a context of {size} tokens: {error}"))
        })
    }
}

/// The model's own template; a model without one (a base model) gets its family's
/// (`gemma`), else ChatML.
fn chat_template(model: &LlamaModel) -> Result<LlamaChatTemplate, std::ffi::NulError> {
    if let Ok(template) = model.chat_template(None) {
        return Ok(template);
    }
    let architecture = model.meta_val_str("general.architecture").unwrap_or_default();
    LlamaChatTemplate::new(if architecture.starts_with("gemma") { "gemma" } else { "chatml" })
}

/// Reads the prompt in batches; the logits of its last token are what the answer starts from.
fn read_prompt(
    ctx: &mut LlamaContext<'_>,
    batch: &mut LlamaBatch,
    tokens: &[LlamaToken],
    cancel: &CancellationToken,
) -> Result<(), LlmError> {
    for (chunk_index, chunk) in tokens.chunks(BATCH).enumerate() {
        batch.clear();
        for (offset, token) in chunk.iter().enumerate() {
            let position = chunk_index * BATCH + offset;
            let last = position + 1 == tokens.len();
            batch
                .add(*token, position as i32, &[0], last)
                .map_err(|error| bad(error.to_string()))?;
        }
        ctx.decode(batch)
            .map_err(|error| unavailable(format!("reading the prompt failed: {error}")))?;
        if cancel.is_cancelled() {
            return Err(LlmError::Cancelled);
        }
    }
    Ok(())
}

/// The state of one answer being generated.
struct Run<'m> {
    ctx: LlamaContext<'m>,
    batch: LlamaBatch<'static>,
    /// The position of the next token in the context.
    position: usize,
    produced: usize,
    text: Utf8Stream,
}

impl Run<'_> {
    fn answer(
        &mut self,
        model: &LlamaModel,
        sampler: &mut Sampler,
        budget: u32,
        cancel: &CancellationToken,
        on_text: &mut dyn FnMut(&str) -> bool,
    ) -> Result<FinishReason, LlmError> {
        let vocab = model.vocab();
        let context = self.ctx.n_ctx() as usize;
        let mut logits_at = self.batch.n_tokens() - 1;
        loop {
            if cancel.is_cancelled() {
                return Err(LlmError::Cancelled);
            }
            let token = sampler.next(&self.ctx, logits_at)?;
            if vocab.is_eog(token) {
                return Ok(self.flush(on_text));
            }
            sampler.accept(token)?;
            self.produced += 1;
            let text = self.text.push(&vocab.token_to_piece(token, false, None));
            if !text.is_empty() && !on_text(&text) {
                return Err(LlmError::Cancelled);
            }
            if self.produced >= budget as usize || self.position + 1 >= context {
                self.flush(on_text);
                return Ok(FinishReason::Length);
            }
            self.batch.clear();
            self.batch
                .add(token, self.position as i32, &[0], true)
                .map_err(|error| bad(error.to_string()))?;
            self.position += 1;
            self.ctx
                .decode(&mut self.batch)
                .map_err(|error| unavailable(format!("generation failed: {error}")))?;
            logits_at = 0;
        }
    }

    fn flush(&mut self, on_text: &mut dyn FnMut(&str) -> bool) -> FinishReason {
        let rest = self.text.finish();
        if !rest.is_empty() {
            on_text(&rest);
        }
        FinishReason::Stop
    }
}

/// How the next token is chosen.
enum Sampler {
    /// Temperature sampling with a repetition penalty (tiny models loop without one).
    Free(LlamaSampler),
    /// Sampling under the planner grammar. The unconstrained choice is drawn first and only
    /// checked against the grammar; the grammar is applied to the whole vocabulary only when
    /// it refuses that token (as llama.cpp's own sampler does: far cheaper per token).
    Grammar { choose: LlamaSampler, grammar: LlamaSampler },
}

impl Sampler {
    fn new(model: &LlamaModel, planner: bool, seed: u32) -> Result<Sampler, LlmError> {
        if !planner {
            // top-k first: the later samplers then see 40 candidates, not the whole vocabulary
            // (the penalty looks up every candidate; over 49k–262k of them that cost SmolLM2
            // about a tenth of its generation speed).
            let chain = [
                LlamaSampler::top_k(40),
                LlamaSampler::penalties(model.n_vocab(), 64, 1.1, 0.0, 0.0),
                LlamaSampler::top_p(0.9, 1),
                LlamaSampler::temp(0.7),
                LlamaSampler::dist(seed),
            ];
            return Ok(Sampler::Free(LlamaSampler::chain_simple(chain)));
        }
        let grammar = LlamaSampler::grammar(model, PLANNER_GRAMMAR, "root")
            .map_err(|error| bad(format!("the planner grammar was refused: {error}")))?;
        // The penalty on recent tokens pushes a tiny model off repeating one item to fill an
        // array; tokens the grammar forces (quotes, keys) are still taken when it refuses others.
        let choose = LlamaSampler::chain_simple([
            LlamaSampler::top_k(40),
            LlamaSampler::penalties(model.n_vocab(), 256, 1.1, 0.0, 0.0),
            LlamaSampler::temp(0.4),
            LlamaSampler::dist(seed),
        ]);
        Ok(Sampler::Grammar { choose, grammar })
    }

    fn next(&mut self, ctx: &LlamaContext<'_>, logits_at: i32) -> Result<LlamaToken, LlmError> {
        match self {
            Sampler::Free(chain) => Ok(chain.sample(ctx, logits_at)),
            Sampler::Grammar { choose, grammar } => {
                let mut candidates = ctx.token_data_array_ith(logits_at);
                candidates.apply_sampler(choose);
                let mut token = selected(&candidates)?;
                if !allows(grammar, token) {
                    let mut candidates = ctx.token_data_array_ith(logits_at);
                    candidates.apply_sampler(grammar);
                    candidates.apply_sampler(choose);
                    token = selected(&candidates)?;
                }
                Ok(token)
            }
        }
    }

    /// Moves the grammar past `token` (never an end-of-generation token: llama.cpp aborts
    /// on one the grammar did not expect). The free chain accepted it when it sampled it.
    fn accept(&mut self, token: LlamaToken) -> Result<(), LlmError> {
        match self {
            Sampler::Free(_) => Ok(()),
            Sampler::Grammar { choose, grammar } => {
                choose.accept(token);
                grammar
                    .try_accept(token)
                    .map_err(|error| bad(format!("the grammar refused a token: {error}")))
            }
        }
    }
}

/// Whether the grammar, in its current state, lets `token` come next.
fn allows(grammar: &mut LlamaSampler, token: LlamaToken) -> bool {
    let mut single = LlamaTokenDataArray::new(vec![LlamaTokenData::new(token, 1.0, 0.0)], false);
    single.apply_sampler(grammar);
    single.data.first().is_some_and(|data| data.logit().is_finite())
}

fn selected(candidates: &LlamaTokenDataArray) -> Result<LlamaToken, LlmError> {
    candidates.selected_token().ok_or_else(|| bad("the sampler chose no token"))
}

fn bad(detail: impl Into<String>) -> LlmError {
    LlmError::BadResponse { detail: detail.into() }
}

fn unavailable(message: impl Into<String>) -> LlmError {
    LlmError::Unavailable { status: None, message: message.into() }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether the planner grammar takes `text` whole: every token in turn, then the end.
    fn grammar_takes(model: &LlamaModel, text: &str) -> bool {
        let mut grammar = LlamaSampler::grammar(model, PLANNER_GRAMMAR, "root")
            .expect("llama.cpp parses the grammar");
        for token in model.vocab().tokenize(text.as_bytes(), false, false) {
            if !allows(&mut grammar, token) || grammar.try_accept(token).is_err() {
                return false;
            }
        }
        allows(&mut grammar, model.vocab().eos())
    }

    #[test]
    fn the_planner_grammar_takes_cards_and_refuses_everything_else() {
        let dir = crate::catalog::models_dir(|name| std::env::var_os(name)).unwrap();
        let path = dir.join(crate::catalog::find(crate::catalog::DEFAULT_MODEL).unwrap().file_name);
        assert!(
            path.is_file(),
            "run `preflight model fetch` (scripts/setup.sh does): {} is missing",
            path.display()
        );
        let model = EmbeddedModel::load(&path, "default").unwrap();
        let questions = "```plan-questions\n{\"questions\": [{\"id\": \"q1\", \"question\": \"Which OS?\", \"options\": [\"Linux\", \"macOS\", \"Windows\"]},{\"id\": \"q2\", \"question\": \"Où ?\", \"options\": [\"Ici\", \"Là\", \"Partout, vraiment\"]}]}\n```";
        let plan = "```plan\n{\"title\": \"Todo CLI\", \"aim\": \"Tasks are kept in SQLite\", \"steps\": [{\"action\": \"Create the schema\", \"expected\": \"a tasks table\"}, {\"action\": \"Add commands\", \"expected\": \"add, list, done work\"}], \"libraries\": [{\"name\": \"rusqlite\", \"purpose\": \"SQLite\", \"usage\": \"open and query\"}], \"sandbox\": {\"policy\": \"create\", \"notes\": \"a scratch folder\"}}\n```";
        let no_libraries = "```plan\n{\"title\": \"T\", \"aim\": \"A\", \"steps\": [{\"action\": \"S\", \"expected\": \"E\"}], \"libraries\": [], \"sandbox\": {\"policy\": \"reuse\", \"notes\": \"N\"}}\n```";
        let cases = [
            (questions, true),
            (plan, true),
            (no_libraries, true),
            ("Here is my plan:\n```plan\n{}\n```", false),
            (&plan.replace("\"Create the schema\"", "\" Create the schema\""), false),
            (&plan.replace("\"reuse\"", "\"maybe\"").replace("\"create\"", "\"maybe\""), false),
            (&questions.replace(", \"Windows\"", ""), false),
            (&questions.replace("\"q2\"", "\"q7\""), false),
            (&questions.replace("Partout, vraiment", "Partout \\\"vraiment\\\""), false),
            (&questions.replace("Which OS?", "Which {OS}?"), false),
            (&format!("{plan}\nAnything after."), false),
            (&plan.replace("\"Todo CLI\"", &format!("\"{}\"", "x".repeat(61))), false),
        ];
        for (text, expected) in cases {
            assert_eq!(grammar_takes(&model.model, text), expected, "{text}");
        }
    }
}
