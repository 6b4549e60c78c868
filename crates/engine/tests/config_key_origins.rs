//! Where a key may go (issue 14 #3): a key saved for one server is sent to that origin
//! only, `api_key_env` wins over a stored key, a planner at another origin inherits no key,
//! and no redirect carries a key (or the request) to another origin. Every peer is a real
//! scripted server on loopback; two ports are two origins. Keys are saved through the
//! settings screen's own function into the real kernel keyring.

mod support;

use std::collections::HashMap;

use preflight_engine::config::{connect_provider, Config, KeyLookup};
use preflight_engine::config::{KernelKeyring, KeyStore};
use preflight_engine::lifecycle::{write_settings, ProviderChoice, SettingsUpdate};
use preflight_engine::llm::{ProviderKind, ProviderSettings};
use preflight_testkit::{RecordedRequest, Reply, Script, ScriptedServer};
use support::llm::{ask, drain, quick_retries, text_of};
use tokio_util::sync::CancellationToken;

async fn answering() -> ScriptedServer {
    ScriptedServer::start(Script::new().forever(Default::default(), Reply::text("hello")))
        .await
        .unwrap()
}

fn kernel_keyring() -> Vec<Box<dyn KeyStore>> {
    vec![Box::new(KernelKeyring)]
}

fn environment(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> + Send + Sync + 'static {
    let map: HashMap<String, String> =
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    move |name| map.get(name).cloned()
}

/// A key saved for `settings`' provider, removed from the kernel keyring when dropped.
struct SavedKey {
    account: String,
}

impl Drop for SavedKey {
    fn drop(&mut self) {
        let _ = KernelKeyring.delete(&self.account);
    }
}

/// Saves an OpenAI-compatible provider at `url` with `key` as the settings screen does.
fn save_openai(home: &std::path::Path, url: &str, key: &str) -> SavedKey {
    let update = SettingsUpdate {
        provider: ProviderChoice::Openai,
        base_url: url.to_owned(),
        model: "test-model".into(),
        plan_mode: true,
        auto_approve: false,
        api_key: Some(key.to_owned()),
    };
    write_settings(home, &update, &kernel_keyring()).expect("the settings are saved");
    let config = Config::load(home).unwrap();
    SavedKey { account: config.provider.key_account().to_string() }
}

fn unique_key() -> String {
    format!("sk-origin-{}", preflight_engine::store::new_id())
}

/// Asks the provider `settings` describe one question; whether it answered.
async fn ask_once(settings: &ProviderSettings, keys: &KeyLookup) -> bool {
    let mut settings = settings.clone();
    settings.retry = quick_retries();
    let provider = connect_provider(&settings, keys, None).expect("the provider connects");
    match provider.stream(&ask("hi"), &CancellationToken::new()).await {
        Ok(stream) => {
            let (events, error) = drain(stream).await;
            error.is_none() && text_of(&events) == "hello"
        }
        Err(_) => false,
    }
}

/// Every header of every request `server` received that holds `key`.
fn headers_holding(server: &ScriptedServer, key: &str) -> Vec<(String, String)> {
    let requests: Vec<RecordedRequest> = server.requests();
    requests
        .iter()
        .flat_map(|request| request.headers.iter())
        .filter(|(_, value)| value.contains(key))
        .cloned()
        .collect()
}

fn append(home: &std::path::Path, text: &str) {
    let path = home.join("config.toml");
    let mut config = std::fs::read_to_string(&path).unwrap();
    config.push_str(text);
    std::fs::write(&path, config).unwrap();
}

#[tokio::test]
async fn a_stored_key_goes_only_to_the_origin_it_was_saved_for() {
    let (saved_for, other) = (answering().await, answering().await);
    let home = tempfile::tempdir().unwrap();
    let key = unique_key();
    let _saved = save_openai(home.path(), &saved_for.openai_url(), &key);
    append(home.path(), &format!("\n[planner]\nbase_url = \"{}\"\n", other.openai_url()));
    let config = Config::load(home.path()).unwrap();
    let keys = KeyLookup::new(kernel_keyring(), environment(&[]));

    assert!(ask_once(&config.provider, &keys).await, "the provider answers");
    assert!(ask_once(&config.planner_settings(), &keys).await, "the planner answers");
    assert_eq!(
        saved_for.requests()[0].header("authorization"),
        Some(format!("Bearer {key}").as_str()),
        "the server the key was saved for gets it"
    );
    assert_eq!(other.requests().len(), 1);
    assert_eq!(headers_holding(&other, &key), vec![], "another origin never gets the key");
}

#[tokio::test]
async fn api_key_env_wins_over_a_stored_key() {
    let server = answering().await;
    let home = tempfile::tempdir().unwrap();
    let stored = unique_key();
    let _saved = save_openai(home.path(), &server.openai_url(), &stored);
    let config = format!(
        "[provider]\nkind = \"openai\"\nbase_url = \"{}\"\nmodel = \"test-model\"\n\
         api_key_env = \"PREFLIGHT_TEST_KEY\"\n",
        server.openai_url()
    );
    std::fs::write(home.path().join("config.toml"), config).unwrap();
    let config = Config::load(home.path()).unwrap();
    let keys =
        KeyLookup::new(kernel_keyring(), environment(&[("PREFLIGHT_TEST_KEY", "sk-from-env")]));

    assert!(ask_once(&config.provider, &keys).await);
    assert_eq!(server.requests()[0].header("authorization"), Some("Bearer sk-from-env"));
}

#[tokio::test]
async fn a_planner_at_another_origin_does_not_inherit_the_key_variable() {
    let (provider, planner) = (answering().await, answering().await);
    let home = tempfile::tempdir().unwrap();
    let config = format!(
        "[provider]\nkind = \"openai\"\nbase_url = \"{}\"\nmodel = \"test-model\"\n\
         api_key_env = \"PREFLIGHT_TEST_KEY\"\n\n[planner]\nbase_url = \"{}\"\n",
        provider.openai_url(),
        planner.openai_url()
    );
    std::fs::write(home.path().join("config.toml"), config).unwrap();
    let config = Config::load(home.path()).unwrap();
    let keys = KeyLookup::new(vec![], environment(&[("PREFLIGHT_TEST_KEY", "sk-env-secret")]));

    assert!(ask_once(&config.provider, &keys).await);
    assert!(ask_once(&config.planner_settings(), &keys).await);
    assert_eq!(provider.requests()[0].header("authorization"), Some("Bearer sk-env-secret"));
    assert_eq!(headers_holding(&planner, "sk-env-secret"), vec![]);
}

/// A loopback server answering every request with a 307 to `location`; it keeps each
/// request's head (lower-cased) so the test can see what the configured server received.
struct Redirector {
    url: String,
    heads: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
}

impl Redirector {
    async fn start(location: String) -> Redirector {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let heads = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let kept = heads.clone();
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let (kept, location) = (kept.clone(), location.clone());
                tokio::spawn(async move { redirect_one(stream, &location, &kept).await });
            }
        });
        Redirector { url, heads }
    }

    fn heads(&self) -> Vec<String> {
        self.heads.lock().unwrap().clone()
    }
}

async fn redirect_one(
    mut stream: tokio::net::TcpStream,
    location: &str,
    heads: &std::sync::Mutex<Vec<String>>,
) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut received = Vec::new();
    let mut buffer = [0u8; 4096];
    let head_end = loop {
        let Ok(read) = stream.read(&mut buffer).await else { return };
        if read == 0 {
            return;
        }
        received.extend_from_slice(&buffer[..read]);
        if let Some(end) = received.windows(4).position(|window| window == b"\r\n\r\n") {
            break end;
        }
    };
    let head = String::from_utf8_lossy(&received[..head_end]).to_lowercase();
    heads.lock().unwrap().push(head.clone());
    let length = head
        .lines()
        .find_map(|line| line.strip_prefix("content-length:"))
        .and_then(|value| value.trim().parse::<usize>().ok())
        .unwrap_or(0);
    while received.len() < head_end + 4 + length {
        match stream.read(&mut buffer).await {
            Ok(0) | Err(_) => break,
            Ok(read) => received.extend_from_slice(&buffer[..read]),
        }
    }
    let answer = format!(
        "HTTP/1.1 307 Temporary Redirect\r\nlocation: {location}\r\ncontent-length: 0\r\n\
         connection: close\r\n\r\n"
    );
    let _ = stream.write_all(answer.as_bytes()).await;
}

/// reqwest 0.12 follows up to 10 redirects by default and drops `Authorization` when the
/// host or port changes, but not Anthropic's `x-api-key`, and a 307 re-sends the whole
/// conversation. A redirect to another origin is refused: the other server sees nothing.
#[tokio::test]
async fn a_redirect_to_another_origin_carries_no_key_and_is_not_followed() {
    for (kind, path, header) in [
        (ProviderKind::OpenAi, "/v1/chat/completions", "authorization: bearer sk-redirected"),
        (ProviderKind::Anthropic, "/v1/messages", "x-api-key: sk-redirected"),
    ] {
        let elsewhere = answering().await;
        let redirecting = Redirector::start(format!("{}{path}", elsewhere.url())).await;
        let base_url = match kind {
            ProviderKind::OpenAi => format!("{}/v1", redirecting.url),
            _ => redirecting.url.clone(),
        };
        let mut settings = ProviderSettings::new(kind, base_url, "test-model");
        settings.api_key_env = Some("PREFLIGHT_TEST_KEY".into());
        let keys = KeyLookup::new(vec![], environment(&[("PREFLIGHT_TEST_KEY", "sk-redirected")]));

        let answered = ask_once(&settings, &keys).await;
        assert_eq!(
            headers_holding(&elsewhere, "sk-redirected"),
            vec![],
            "{kind}: no key crosses a redirect"
        );
        assert_eq!(elsewhere.requests().len(), 0, "{kind}: the redirect is not followed");
        assert!(!answered, "{kind}: the call fails");
        let heads = redirecting.heads();
        assert!(heads[0].contains(header), "{kind}: the configured server got the key");
    }
}
