//! The server's bytes fed to the HTTP/2 client connection as its driver
//! feeds them, with the invariants every feed keeps; shared by the HTTP/2
//! targets (the crate root that includes one includes this beside it).

use loadgen_http2::frame::HEADER_LEN;
use loadgen_http2::{Connection, Received};

/// Appends `piece` to `pending` and hands it to the connection, keeping
/// what it leaves. Checks that `receive` never uses more than it was
/// given and leaves less than one frame; `false` on a connection error.
pub fn feed<T>(
    connection: &mut Connection<T>,
    pending: &mut Vec<u8>,
    piece: &[u8],
    max_frame_size: u32,
    on_received: &mut impl FnMut(Received<'_, T>),
) -> bool {
    pending.extend_from_slice(piece);
    match connection.receive_detailed(pending, on_received) {
        Ok(used) => {
            assert!(used <= pending.len(), "used {used} of {}", pending.len());
            pending.drain(..used);
            assert!(
                pending.len() < HEADER_LEN + max_frame_size as usize,
                "{} bytes left, more than a frame",
                pending.len()
            );
            true
        }
        Err(_) => false,
    }
}
