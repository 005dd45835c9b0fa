//! A run's response body: the run's events as they come, one JSON line
//! each, with an `alive` line every second so that the controller can tell
//! a quiet run from a worker gone silent. It ends after the run's last
//! event. When the controller goes away, hyper drops the body, and with it
//! the receiving end the run watches ([`super::run`]).

use crate::protocol::{micros_since_epoch, Event, ALIVE_EVERY};
use bytes::Bytes;
use futures_util::Stream;
use hyper::body::Frame;
use std::convert::Infallible;
use std::time::SystemTime;
use tokio::sync::mpsc::UnboundedReceiver;
use tokio::time::{interval, MissedTickBehavior};

/// One event as a line of the stream.
pub fn line(event: &Event) -> Bytes {
    let mut bytes = serde_json::to_vec(event).expect("events serialize");
    bytes.push(b'\n');
    Bytes::from(bytes)
}

/// The lines sent to `lines`, interleaved with `alive` lines; ends when
/// every sender is gone.
pub fn events(
    lines: UnboundedReceiver<Bytes>,
) -> impl Stream<Item = Result<Frame<Bytes>, Infallible>> + Send {
    let mut ticker = interval(ALIVE_EVERY);
    ticker.set_missed_tick_behavior(MissedTickBehavior::Delay);
    futures_util::stream::unfold((lines, ticker), |(mut lines, mut ticker)| async move {
        let bytes = tokio::select! {
            // Events first: the first line of the stream is `accepted`.
            biased;
            next = lines.recv() => next?,
            _ = ticker.tick() => line(&Event::Alive {
                time_us: micros_since_epoch(SystemTime::now()),
            }),
        };
        Some((Ok(Frame::data(bytes)), (lines, ticker)))
    })
}
