//! The stdio transport between the host and one server process: rmcp's framing for what we
//! send, our own line reader for what the server sends.
//!
//! Why not rmcp's reader: a reply over its line limit (16 MiB) is logged and dropped, and
//! the call waiting for it never completes. Ours has a configurable limit and never buffers
//! past it; it reads the oversize line to its end only to find the request id at its top
//! level, then hands rmcp a JSON-RPC *error* for that id, so the call fails at once with a
//! message saying why.

use std::future::Future;
use std::io;
use std::sync::Arc;

use rmcp::model::{ErrorCode, ErrorData, JsonRpcMessage, RequestId};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::async_rw::AsyncRwTransport;
use rmcp::transport::Transport;
use rmcp::RoleClient;
use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};
use tokio::process::{ChildStdin, ChildStdout};

pub(crate) struct StdioTransport {
    writer: AsyncRwTransport<RoleClient, tokio::io::Empty, ChildStdin>,
    reader: LineReader<ChildStdout>,
    server: Arc<str>,
}

impl StdioTransport {
    pub(crate) fn new(
        server: Arc<str>,
        stdin: ChildStdin,
        stdout: ChildStdout,
        limit: usize,
    ) -> Self {
        StdioTransport {
            writer: AsyncRwTransport::new(tokio::io::empty(), stdin),
            reader: LineReader::new(stdout, limit),
            server,
        }
    }

    fn refusal(&self, bytes: usize, id: Option<RequestId>) -> Option<RxJsonRpcMessage<RoleClient>> {
        let message = format!(
            "the reply of MCP server `{}` was {bytes} bytes, over the limit of {} bytes for one \
             message, and was refused; ask for less",
            self.server, self.reader.limit
        );
        tracing::warn!(server = %self.server, "{message}");
        // Without an id nobody waits for it (a notification): nothing to answer.
        id.map(|id| {
            JsonRpcMessage::error(
                ErrorData::new(ErrorCode::INTERNAL_ERROR, message, None),
                Some(id),
            )
        })
    }
}

impl Transport<RoleClient> for StdioTransport {
    type Error = io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), io::Error>> + Send + 'static {
        self.writer.send(item)
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleClient>> {
        loop {
            match self.reader.next_line().await {
                Line::Complete(line) => match serde_json::from_slice(&line) {
                    Ok(message) => return Some(message),
                    // Servers sometimes print to stdout; such lines answer nothing.
                    Err(e) => {
                        tracing::debug!(server = %self.server, "ignoring a non-JSON-RPC line: {e}")
                    }
                },
                Line::TooLong { bytes, id } => {
                    if let Some(error) = self.refusal(bytes, id) {
                        return Some(error);
                    }
                }
                Line::Eof => return None,
                Line::Failed(e) => {
                    tracing::warn!(server = %self.server, "reading from the server failed: {e}");
                    return None;
                }
            }
        }
    }

    async fn close(&mut self) -> Result<(), io::Error> {
        self.writer.close().await
    }
}

pub(crate) enum Line {
    /// One line without its `\n` (or `\r\n`).
    Complete(Vec<u8>),
    /// A line over the limit, skipped; `id` is its top-level `"id"`, when it had one.
    TooLong {
        bytes: usize,
        id: Option<RequestId>,
    },
    Eof,
    Failed(io::Error),
}

/// Reads `\n`-terminated lines of at most `limit` bytes. Cancel-safe (rmcp polls `receive`
/// inside a `select!`): a partial line stays in `self` and the next call resumes it.
pub(crate) struct LineReader<R> {
    read: BufReader<R>,
    line: Vec<u8>,
    limit: usize,
    oversize: Option<(usize, IdScanner)>,
}

impl<R: AsyncRead + Unpin> LineReader<R> {
    pub(crate) fn new(read: R, limit: usize) -> Self {
        LineReader {
            read: BufReader::with_capacity(64 * 1024, read),
            line: Vec::new(),
            limit,
            oversize: None,
        }
    }

    pub(crate) async fn next_line(&mut self) -> Line {
        loop {
            let available = match self.read.fill_buf().await {
                Ok(available) => available,
                Err(e) => return Line::Failed(e),
            };
            if available.is_empty() {
                return Line::Eof;
            }
            let newline = available.iter().position(|b| *b == b'\n');
            let take = newline.map_or(available.len(), |i| i + 1);
            let chunk = &available[..take];
            // Everything between `fill_buf` and `consume` is synchronous: no await can cut it.
            match &mut self.oversize {
                Some((bytes, scanner)) => {
                    *bytes += take;
                    scanner.feed(chunk);
                }
                None if self.line.len() + take > self.limit => {
                    let mut scanner = IdScanner::default();
                    scanner.feed(&self.line);
                    scanner.feed(chunk);
                    self.oversize = Some((self.line.len() + take, scanner));
                    self.line = Vec::new();
                }
                None => self.line.extend_from_slice(chunk),
            }
            self.read.consume(take);
            if newline.is_some() {
                return self.finish_line();
            }
        }
    }

    fn finish_line(&mut self) -> Line {
        if let Some((bytes, scanner)) = self.oversize.take() {
            return Line::TooLong { bytes, id: scanner.id() };
        }
        let mut line = std::mem::take(&mut self.line);
        line.pop();
        if line.last() == Some(&b'\r') {
            line.pop();
        }
        Line::Complete(line)
    }
}

/// Finds the value of the top-level `"id"` of a JSON object fed in pieces, without keeping
/// the object: a small tokenizer that tracks nesting and strings only.
#[derive(Default)]
pub(crate) struct IdScanner {
    depth: u32,
    in_string: bool,
    escaped: bool,
    expect_key: bool,
    in_key: bool,
    key: Vec<u8>,
    capturing: bool,
    value: Vec<u8>,
    found: Option<Vec<u8>>,
}

/// Longer values cannot be ids worth answering.
const MAX_ID_BYTES: usize = 256;

impl IdScanner {
    pub(crate) fn feed(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            if self.found.is_some() {
                return;
            }
            self.step(byte);
        }
    }

    pub(crate) fn id(&self) -> Option<RequestId> {
        serde_json::from_slice(self.found.as_deref()?).ok()
    }

    fn step(&mut self, byte: u8) {
        if self.capturing {
            if self.value.len() == MAX_ID_BYTES {
                self.capturing = false;
            } else if self.in_string || !byte.is_ascii_whitespace() {
                self.value.push(byte);
            }
        }
        if self.in_string {
            self.string_byte(byte);
        } else {
            self.structural_byte(byte);
        }
    }

    fn string_byte(&mut self, byte: u8) {
        let ends = !self.escaped && byte == b'"';
        self.escaped = !self.escaped && byte == b'\\';
        if ends {
            self.in_string = false;
            self.in_key = false;
        } else if self.in_key && self.key.len() < 3 {
            self.key.push(byte);
        }
    }

    fn structural_byte(&mut self, byte: u8) {
        match byte {
            b'"' => {
                self.in_string = true;
                if self.depth == 1 && self.expect_key {
                    self.in_key = true;
                    self.key.clear();
                }
            }
            b'{' | b'[' => {
                self.depth += 1;
                self.expect_key = self.depth == 1 && byte == b'{';
            }
            b'}' | b']' => {
                if self.depth == 1 {
                    self.end_value();
                }
                self.depth = self.depth.saturating_sub(1);
            }
            b',' if self.depth == 1 => {
                self.end_value();
                self.expect_key = true;
            }
            b':' if self.depth == 1 && self.expect_key => {
                self.expect_key = false;
                self.capturing = self.key == b"id";
                self.value.clear();
            }
            _ => {}
        }
    }

    fn end_value(&mut self) {
        if self.capturing {
            self.capturing = false;
            // The `,` or `}` that ended the value was captured with it.
            self.value.pop();
            self.found = Some(std::mem::take(&mut self.value));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_top_level_id_wherever_it_is() {
        let table: &[(&str, Option<RequestId>)] = &[
            (r#"{"jsonrpc":"2.0","id":5,"result":{}}"#, Some(RequestId::Number(5))),
            (
                r#"{"result":{"content":[{"type":"text","text":"x,\"id\":9}"}]},"jsonrpc":"2.0","id":42}"#,
                Some(RequestId::Number(42)),
            ),
            (r#"{ "id" : "abc" , "result": 1 }"#, Some(RequestId::String("abc".into()))),
            (r#"{"result":{"id":7,"list":[{"id":8}]},"id":3}"#, Some(RequestId::Number(3))),
            (r#"{"result":"he said \"id\": 1","id":-2}"#, Some(RequestId::Number(-2))),
            (r#"{"idx":1,"result":{}}"#, None),
            (r#"{"method":"notifications/message","params":{"id":1}}"#, None),
            (r#"{"result":{}, "id": "a\"b"}"#, Some(RequestId::String("a\"b".into()))),
            (r#"["id",1]"#, None),
        ];
        for (line, want) in table {
            // Byte by byte and all at once give the same answer.
            let mut whole = IdScanner::default();
            whole.feed(line.as_bytes());
            let mut pieces = IdScanner::default();
            line.as_bytes().chunks(1).for_each(|c| pieces.feed(c));
            assert_eq!(whole.id(), *want, "{line}");
            assert_eq!(pieces.id(), *want, "{line} in pieces");
        }
    }

    #[tokio::test]
    async fn lines_over_the_limit_are_skipped_with_their_id() {
        let big = "x".repeat(300);
        let input = format!(
            "{{\"id\":1}}\r\n{{\"result\":{{\"t\":\"{big}\"}},\"id\":2}}\n{{\"id\":3}}\n{big}\npartial"
        );
        let mut reader = LineReader::new(input.as_bytes(), 100);
        let mut seen = Vec::new();
        loop {
            match reader.next_line().await {
                Line::Complete(line) => seen.push(String::from_utf8(line).unwrap()),
                Line::TooLong { bytes, id } => seen.push(format!("too long: {bytes} {id:?}")),
                Line::Eof => break,
                Line::Failed(e) => panic!("{e}"),
            }
        }
        assert_eq!(
            seen,
            [
                "{\"id\":1}".to_string(),
                "too long: 327 Some(Number(2))".to_string(),
                "{\"id\":3}".to_string(),
                "too long: 301 None".to_string(),
            ]
        );
        assert!(reader.line.len() <= 100, "never buffers past the limit");
    }
}
