//! When a socket's last datagram arrived, by the kernel's receive stamp.
//!
//! A worker thread may sleep before it reads its sockets (wake-up
//! coalescing, up to a millisecond). quinn-proto takes the time it is
//! handed with a datagram as the time it was received, and reckons from it
//! both the ACK delay it reports to the server and its own RTT samples.
//! Handed the time of reading, the sleep would count as network time: the
//! server's RTT estimate, which paces its sending, would grow by it, and so
//! would the RTT loadgen reports. Handed the arrival, the sleep is reported
//! as ACK delay, which is what RFC 9000 (section 13.2.5) asks for and what
//! the server takes off its samples.

use std::os::fd::AsRawFd;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// Linux's `SIOCGSTAMPNS` (not in the libc crate): the receive time of the
/// last datagram read from the socket. The first call on a socket turns
/// its stamps on and fails, as there is none yet.
#[cfg(target_os = "linux")]
const SIOCGSTAMPNS: libc::c_ulong = 0x8907;

/// When the last datagram read from `socket` arrived, as an [`Instant`] no
/// later than `now`; `None` when the kernel has no stamp for it.
#[cfg(target_os = "linux")]
pub fn last_arrival(socket: &impl AsRawFd, now: Instant) -> Option<Instant> {
    let mut stamp = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: SIOCGSTAMPNS writes one timespec to the pointer it is given.
    // (The request's type differs between C libraries, hence `as _`.)
    let result = unsafe { libc::ioctl(socket.as_raw_fd(), SIOCGSTAMPNS as _, &mut stamp) };
    if result != 0 {
        return None;
    }
    // The stamp is on the wall clock; its age, taken against the wall clock
    // now, carries over to the monotonic one.
    let stamped = UNIX_EPOCH
        + Duration::new(
            u64::try_from(stamp.tv_sec).ok()?,
            u32::try_from(stamp.tv_nsec).ok()?,
        );
    let age = SystemTime::now()
        .duration_since(stamped)
        .unwrap_or_default();
    Some(now.checked_sub(age).unwrap_or(now))
}

#[cfg(not(target_os = "linux"))]
pub fn last_arrival(_socket: &impl AsRawFd, _now: Instant) -> Option<Instant> {
    None
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use std::net::UdpSocket;

    #[test]
    fn a_datagram_read_late_is_stamped_when_it_arrived() {
        let receiver = UdpSocket::bind("127.0.0.1:0").unwrap();
        let sender = UdpSocket::bind("127.0.0.1:0").unwrap();
        // Nothing read yet: no stamp, and stamps are on from now on.
        assert_eq!(last_arrival(&receiver, Instant::now()), None);

        // The kernel turns stamping on a moment later (from a work queue);
        // until then a datagram is stamped when it is asked about.
        for _ in 0..100 {
            sender
                .send_to(b"datagram", receiver.local_addr().unwrap())
                .unwrap();
            let sent = Instant::now();
            std::thread::sleep(Duration::from_millis(20));
            let mut buffer = [0; 16];
            assert_eq!(receiver.recv(&mut buffer).unwrap(), 8);
            let read = Instant::now();
            let arrived = last_arrival(&receiver, read).expect("a stamp for the datagram read");
            assert!(arrived <= read);
            // It arrived before the sleep, not when it was read after it.
            if arrived <= sent {
                return;
            }
        }
        panic!("no datagram was stamped with its arrival");
    }
}
