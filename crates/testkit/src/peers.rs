//! The reference `everything` MCP server (`tests/peers`, from npm) served over HTTP on a free
//! loopback port, for the tests of remote servers: a real peer, never a mock.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

/// The running server; it is stopped when dropped.
pub struct HttpEverything {
    _child: tokio::process::Child,
    /// Its endpoint: `…/mcp` for Streamable HTTP, `…/sse` for HTTP+SSE.
    pub url: String,
}

impl HttpEverything {
    /// Starts it with `mode` (`streamableHttp`, or `sse` for the HTTP+SSE transport of
    /// 2024-11-05) and waits until it listens.
    pub async fn start(mode: &str) -> HttpEverything {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join(
            "../../tests/peers/node_modules/@modelcontextprotocol/server-everything/dist/index.js",
        );
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let child = tokio::process::Command::new("node")
            .arg(&script)
            .arg(mode)
            .env("PORT", port.to_string())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("node runs the everything server");
        let path = if mode == "sse" { "sse" } else { "mcp" };
        for _ in 0..200 {
            if tokio::net::TcpStream::connect(("127.0.0.1", port)).await.is_ok() {
                let url = format!("http://localhost:{port}/{path}");
                return HttpEverything { _child: child, url };
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("the everything server did not listen on {port}");
    }
}
