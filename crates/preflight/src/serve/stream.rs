//! Bodies that stream between an HTTP request and the engine's blocking readers and writers:
//! an answer written by a blocking `Write` as it goes ([`streamed_answer`]), and a request
//! body read by a blocking `Read` as it comes ([`BodyReader`]). Each side holds a few
//! chunks at most, so neither a long export nor a large import is ever held whole.

use std::io::{self, Read, Write};

use axum::body::{Body, Bytes};
use futures_util::StreamExt;
use preflight_engine::lifecycle::ApiError;
use tokio::sync::mpsc;

/// Chunks in flight between the two sides.
const CHUNKS: usize = 4;
/// The size of a chunk an answer's writer sends.
const CHUNK_BYTES: usize = 64 * 1024;

/// Runs `write` on a blocking thread and answers with what it writes, as it writes it. A
/// failure before the first byte is the answer's error; one later cuts the body short.
pub async fn streamed_answer(
    write: impl FnOnce(&mut dyn Write) -> Result<(), ApiError> + Send + 'static,
) -> Result<Body, ApiError> {
    let (sender, mut receiver) = mpsc::channel::<Result<Bytes, ApiError>>(CHUNKS);
    tokio::task::spawn_blocking(move || {
        let mut writer = ChannelWriter { sender, buffer: Vec::with_capacity(CHUNK_BYTES) };
        let written = write(&mut writer)
            .and_then(|()| writer.flush().map_err(|error| ApiError::internal(error.to_string())));
        if let Err(error) = written {
            let _ = writer.sender.blocking_send(Err(error));
        }
    });
    let first = match receiver.recv().await {
        Some(Ok(bytes)) => bytes,
        Some(Err(error)) => return Err(error),
        None => Bytes::new(),
    };
    let rest = futures_util::stream::unfold(receiver, |mut receiver| async move {
        receiver.recv().await.map(|chunk| (chunk, receiver))
    });
    Ok(Body::from_stream(futures_util::stream::iter([Ok(first)]).chain(rest)))
}

/// The blocking side of an answer: chunks of [`CHUNK_BYTES`] sent as they fill. A reader
/// gone (the client hung up) is a broken pipe, which ends the writing.
struct ChannelWriter {
    sender: mpsc::Sender<Result<Bytes, ApiError>>,
    buffer: Vec<u8>,
}

impl Write for ChannelWriter {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.buffer.extend_from_slice(bytes);
        if self.buffer.len() >= CHUNK_BYTES {
            self.flush()?;
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.buffer.is_empty() {
            return Ok(());
        }
        let chunk =
            Bytes::from(std::mem::replace(&mut self.buffer, Vec::with_capacity(CHUNK_BYTES)));
        self.sender
            .blocking_send(Ok(chunk))
            .map_err(|_| io::Error::new(io::ErrorKind::BrokenPipe, "the client went away"))
    }
}

/// A request body as a blocking `Read`, fed by a task that reads the body as the reader asks
/// for more; dropping the reader stops that task, and with it the reading of the body.
pub struct BodyReader {
    receiver: mpsc::Receiver<io::Result<Bytes>>,
    current: Bytes,
}

impl BodyReader {
    /// Starts reading `body`; call from inside the runtime.
    pub fn new(body: Body) -> BodyReader {
        let (sender, receiver) = mpsc::channel(CHUNKS);
        tokio::spawn(async move {
            let mut chunks = body.into_data_stream();
            while let Some(chunk) = chunks.next().await {
                let chunk = chunk.map_err(io::Error::other);
                if sender.send(chunk).await.is_err() {
                    return;
                }
            }
        });
        BodyReader { receiver, current: Bytes::new() }
    }
}

impl Read for BodyReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.current.is_empty() {
            match self.receiver.blocking_recv() {
                Some(chunk) => self.current = chunk?,
                None => return Ok(0),
            }
        }
        let length = buf.len().min(self.current.len());
        buf[..length].copy_from_slice(&self.current.split_to(length));
        Ok(length)
    }
}
