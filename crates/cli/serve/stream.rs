//! Results from the thread that matches to the response body: written into chunks, sent
//! through a bounded channel (a slow client slows the query, up to its deadline), ended by a
//! failure where the query fails midway; a response body dropped (its client gone) sets the
//! query's interrupt flag.

use std::io::{self, Write};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::Bytes;
use axum::http::StatusCode;
use tokio::runtime::Handle;
use tokio::sync::mpsc;
use tokio::time::Instant;

use super::metrics::Tracker;
use super::protocol::Failure;

/// Bytes sent at once.
const CHUNK: usize = 64 << 10;

/// Chunks a query may have written ahead of its client.
const CHUNKS_AHEAD: usize = 4;

/// A piece of a response: bytes, or the failure that ends it.
pub type Piece = Result<Bytes, Failure>;

/// The two ends of one response's channel.
pub fn channel() -> (mpsc::Sender<Piece>, mpsc::Receiver<Piece>) {
    mpsc::channel(CHUNKS_AHEAD)
}

/// The results are larger than the server gives.
#[derive(Debug)]
pub struct TooLarge(pub u64);

impl std::fmt::Display for TooLarge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the response would exceed the server's limit of {} bytes (--max-response): ask for fewer solutions with LIMIT",
            self.0
        )
    }
}

impl std::error::Error for TooLarge {}

/// A writer, on a blocking thread, into a response's channel.
pub struct Chunks {
    buffer: Vec<u8>,
    written: u64,
    limit: u64,
    deadline: Instant,
    sender: mpsc::Sender<Piece>,
    runtime: Handle,
}

impl Chunks {
    /// At most `limit` bytes into `sender`, each sent by `deadline`.
    pub fn new(sender: mpsc::Sender<Piece>, limit: u64, deadline: Instant) -> Chunks {
        Chunks {
            buffer: Vec::with_capacity(CHUNK),
            written: 0,
            limit,
            deadline,
            sender,
            runtime: Handle::current(),
        }
    }

    fn send(&mut self) -> io::Result<()> {
        if self.buffer.is_empty() {
            return Ok(());
        }
        let chunk = Bytes::from(std::mem::replace(
            &mut self.buffer,
            Vec::with_capacity(CHUNK),
        ));
        let send = tokio::time::timeout_at(self.deadline, self.sender.send(Ok(chunk)));
        match self.runtime.block_on(send) {
            Ok(Ok(())) => Ok(()),
            Ok(Err(_closed)) => Err(io::ErrorKind::BrokenPipe.into()),
            Err(_elapsed) => Err(io::ErrorKind::TimedOut.into()),
        }
    }
}

impl Write for Chunks {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.written += bytes.len() as u64;
        if self.written > self.limit {
            return Err(io::Error::other(TooLarge(self.limit)));
        }
        self.buffer.extend_from_slice(bytes);
        if self.buffer.len() >= CHUNK {
            self.send()?;
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.send()
    }
}

/// A streamed response body: the pieces of one query; its interrupt flag, set when the
/// body is dropped before its end (its client gone); the request's record, closed at the end.
pub struct Body {
    receiver: mpsc::Receiver<Piece>,
    /// The first piece, received before the response's status was chosen.
    first: Option<Bytes>,
    interrupt: Arc<AtomicBool>,
    tracker: Option<Tracker>,
}

impl Body {
    pub fn new(
        receiver: mpsc::Receiver<Piece>,
        interrupt: Arc<AtomicBool>,
        tracker: Tracker,
    ) -> Body {
        Body {
            receiver,
            first: None,
            interrupt,
            tracker: Some(tracker),
        }
    }

    /// Waits for the first piece: the response starts with it, or is the failure that came
    /// instead (the record then closed with its status).
    pub async fn start(&mut self) -> Result<(), Failure> {
        let failure = match self.receiver.recv().await {
            Some(Ok(bytes)) => {
                self.first = Some(bytes);
                return Ok(());
            }
            Some(Err(failure)) => failure,
            None => Failure::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                "the query ended without an answer",
            ),
        };
        if let Some(tracker) = self.tracker.take() {
            tracker.finish(failure.status.as_str());
        }
        Err(failure)
    }
}

impl futures_core::Stream for Body {
    type Item = Piece;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Piece>> {
        if let Some(first) = self.first.take() {
            return Poll::Ready(Some(Ok(first)));
        }
        let piece = self.receiver.poll_recv(cx);
        let outcome = match &piece {
            Poll::Ready(Some(Err(_))) => "aborted",
            Poll::Ready(None) => "200",
            _ => return piece,
        };
        if let Some(tracker) = self.tracker.take() {
            tracker.finish(outcome);
        }
        piece
    }
}

impl Drop for Body {
    fn drop(&mut self) {
        if let Some(tracker) = self.tracker.take() {
            self.interrupt.store(true, Ordering::Relaxed);
            tracker.finish("gone");
        }
    }
}

/// The failure a write of results ended with, where it was one of [`Chunks`]'.
pub fn write_failure(
    err: &(dyn std::error::Error + 'static),
    timeout: Duration,
) -> Option<Failure> {
    let mut cause = Some(err);
    while let Some(err) = cause {
        if let Some(io) = err.downcast_ref::<io::Error>() {
            if let Some(large) = io.get_ref().and_then(|e| e.downcast_ref::<TooLarge>()) {
                return Some(Failure::new(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    large.to_string(),
                ));
            }
            match io.kind() {
                io::ErrorKind::TimedOut => return Some(Failure::timeout(timeout)),
                io::ErrorKind::BrokenPipe => return Some(Failure::gone()),
                _ => {}
            }
        }
        cause = err.source();
    }
    None
}
