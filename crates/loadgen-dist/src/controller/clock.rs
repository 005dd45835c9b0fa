//! Each worker's clock against the controller's, measured over the
//! control connection as NTP's simplest form does: send, read the worker's
//! time, receive; the worker read its clock somewhere within the round
//! trip, taken to be its middle. Of several round trips the one with the
//! lowest round-trip time is kept, since it leaves the least room for error:
//! the offset is right within half of that round trip.

use super::connection::{refusal_text, Connection};
use super::error::ControllerError;
use crate::protocol::{micros_since_epoch, ClockReply, CLOCK_PATH};
use http::{Method, StatusCode};
use std::time::{Duration, Instant, SystemTime};

/// Round trips per worker; the first also warms the connection up.
pub const ROUNDS: usize = 8;

/// One round trip.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sample {
    /// The controller's clock when the request left.
    pub sent_us: u64,
    pub round_trip: Duration,
    /// The worker's clock in its answer.
    pub worker_us: u64,
}

/// The worker's clock minus the controller's, and how sure that is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Offset {
    pub offset_us: i64,
    /// The round trip of the sample it came from: the offset is right
    /// within half of it.
    pub round_trip: Duration,
}

impl Offset {
    /// The sample with the lowest round trip, as an offset.
    pub fn best(samples: &[Sample]) -> Option<Offset> {
        let best = samples.iter().min_by_key(|s| s.round_trip)?;
        let middle = best.sent_us as i128 + best.round_trip.as_micros() as i128 / 2;
        Some(Offset {
            offset_us: (best.worker_us as i128 - middle) as i64,
            round_trip: best.round_trip,
        })
    }

    /// A time on the controller's clock, on the worker's.
    pub fn to_worker(&self, controller_us: u64) -> u64 {
        controller_us.saturating_add_signed(self.offset_us)
    }

    /// A time on the worker's clock, on the controller's.
    pub fn to_controller(&self, worker_us: u64) -> u64 {
        worker_us.saturating_add_signed(-self.offset_us)
    }
}

/// [`ROUNDS`] round trips to the worker's clock over `connection`.
pub async fn measure(connection: &mut Connection) -> Result<Offset, ControllerError> {
    let mut samples = Vec::with_capacity(ROUNDS);
    for _ in 0..ROUNDS {
        let sent_us = micros_since_epoch(SystemTime::now());
        let sent = Instant::now();
        let (status, body) = connection
            .call_whole(Method::GET, CLOCK_PATH, None)
            .await
            .map_err(ControllerError::failure)?;
        let round_trip = sent.elapsed();
        if status != StatusCode::OK {
            return Err(ControllerError::refused(
                status,
                refusal_text(status, &body),
            ));
        }
        let reply: ClockReply = serde_json::from_slice(&body).map_err(|e| {
            ControllerError::failure(format!("{CLOCK_PATH} answered what is not its reply: {e}"))
        })?;
        samples.push(Sample {
            sent_us,
            round_trip,
            worker_us: reply.time_us,
        });
    }
    Ok(Offset::best(&samples).expect("at least one round"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lowest_round_trip_wins_and_is_split_in_half() {
        let samples = [
            Sample {
                sent_us: 1_000,
                round_trip: Duration::from_micros(900),
                worker_us: 5_000,
            },
            Sample {
                sent_us: 2_000,
                round_trip: Duration::from_micros(100),
                worker_us: 7_050,
            },
        ];
        let offset = Offset::best(&samples).unwrap();
        // The worker read 7050 when the controller's clock read 2050.
        assert_eq!(offset.offset_us, 5_000);
        assert_eq!(offset.round_trip, Duration::from_micros(100));
        assert_eq!(offset.to_worker(10_000), 15_000);
        assert_eq!(offset.to_controller(15_000), 10_000);
        let behind = Offset::best(&[Sample {
            sent_us: 10_000,
            round_trip: Duration::from_micros(20),
            worker_us: 4_010,
        }])
        .unwrap();
        assert_eq!(behind.offset_us, -6_000);
        assert_eq!(Offset::best(&[]), None);
    }
}
