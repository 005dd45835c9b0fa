//! A run's stream as the controller reads it: one [`Event`] per line, each
//! within [`SILENCE_LIMIT`] of the one before (the worker says `alive`
//! every second), none longer than [`MAX_LINE`].

use crate::protocol::{Event, SILENCE_LIMIT};
use bytes::BytesMut;
use http_body_util::BodyExt;
use hyper::body::Incoming;

/// The longest line: a report with its histograms is some kilobytes (its
/// one-second rows travel as lines of their own).
pub const MAX_LINE: usize = 16 << 20;

pub struct Lines {
    body: Incoming,
    buffer: BytesMut,
}

impl Lines {
    pub fn new(body: Incoming) -> Lines {
        Lines {
            body,
            buffer: BytesMut::new(),
        }
    }

    /// The next event; `Ok(None)` when the stream ended; an error when the
    /// worker went silent, the connection broke or a line is not an event.
    pub async fn next(&mut self) -> Result<Option<Event>, String> {
        loop {
            if let Some(end) = self.buffer.iter().position(|b| *b == b'\n') {
                let line = self.buffer.split_to(end + 1);
                let event = serde_json::from_slice(&line[..end])
                    .map_err(|e| format!("sent a line that is not an event: {e}"))?;
                return Ok(Some(event));
            }
            if self.buffer.len() > MAX_LINE {
                return Err(format!("sent a line longer than {MAX_LINE} bytes"));
            }
            let frame = tokio::time::timeout(SILENCE_LIMIT, self.body.frame())
                .await
                .map_err(|_| format!("said nothing for {}s", SILENCE_LIMIT.as_secs()))?;
            match frame {
                None if self.buffer.is_empty() => return Ok(None),
                None => return Err("the stream ended inside a line".into()),
                Some(Err(e)) => return Err(format!("the connection broke: {e}")),
                Some(Ok(frame)) => {
                    if let Ok(data) = frame.into_data() {
                        self.buffer.extend_from_slice(&data);
                    }
                }
            }
        }
    }
}
