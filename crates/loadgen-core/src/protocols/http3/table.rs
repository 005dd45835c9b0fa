//! The connection's requests on their streams, found by stream ID for
//! every packet that brings a piece of a response.

use super::stream::RequestStream;
use hashbrown::HashTable;
use quinn_proto::StreamId;

/// Requests by stream ID. The ID is kept inside each entry, on the line
/// the reader's state shares ([`RequestStream`]): a lookup then reads the
/// table's control bytes and that one line. (A map of ID to entry keeps
/// the ID apart from the entry's first field, on another line.)
#[derive(Default)]
pub(super) struct RequestTable(HashTable<RequestStream>);

/// Client streams are numbered 0, 4, 8, ...: a multiplication spreads them.
fn hash(id: StreamId) -> u64 {
    u64::from(id).wrapping_mul(0x9e37_79b9_7f4a_7c15)
}

impl RequestTable {
    pub fn get_mut(&mut self, id: StreamId) -> Option<&mut RequestStream> {
        self.0.find_mut(hash(id), |stream| stream.id == id)
    }

    pub fn remove(&mut self, id: StreamId) -> Option<RequestStream> {
        let entry = self.0.find_entry(hash(id), |stream| stream.id == id).ok()?;
        Some(entry.remove().0)
    }

    /// Adds a request on a stream not in the table.
    pub fn insert(&mut self, stream: RequestStream) {
        self.0
            .insert_unique(hash(stream.id), stream, |stream| hash(stream.id));
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn iter(&self) -> impl Iterator<Item = &RequestStream> {
        self.0.iter()
    }

    pub fn drain(&mut self) -> impl Iterator<Item = RequestStream> + '_ {
        self.0.drain()
    }
}
