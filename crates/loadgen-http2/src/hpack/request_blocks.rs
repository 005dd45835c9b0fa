//! A run's request header blocks, encoded once, that say the fields every
//! request repeats (`:authority`, `user-agent`, `-H` headers) in one byte
//! each after a connection's first request, as nghttp2 does for h2load:
//! its first request adds them to the dynamic table, the later ones refer
//! to the entries. The connection picks the form to send
//! ([`super::EncoderTable`]), so a request costs no HPACK work on the way
//! out.

use super::encoder::{self, entry_size, Indexing, TABLE_SIZE};
use std::sync::atomic::{AtomicU64, Ordering};

/// A request's fields, as [`super::encode_request`] takes them.
#[derive(Clone, Copy, Debug)]
pub struct RequestFields<'a> {
    pub method: &'a str,
    pub scheme: &'a str,
    pub authority: &'a str,
    pub path: &'a str,
    /// Lowercase names, without connection-specific fields.
    pub headers: &'a [(String, String)],
}

impl<'a> RequestFields<'a> {
    /// Every field in block order: pseudo-headers first, as HTTP/2 requires.
    fn fields(&self) -> Vec<(&'a str, &'a str)> {
        let pseudo = [
            (":method", self.method),
            (":scheme", self.scheme),
            (":authority", self.authority),
            (":path", self.path),
        ];
        encoder::fields(pseudo, self.headers).collect()
    }
}

/// The dynamic table entries a set of blocks shares: which set (so that a
/// connection never mixes two) and their size in the RFC's accounting.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SharedEntries {
    pub id: u64,
    pub size: usize,
}

/// Every set of blocks gets its own id.
static NEXT_SET: AtomicU64 = AtomicU64::new(1);

/// Header blocks for a run's requests, each in up to three forms.
#[derive(Debug)]
pub struct RequestBlocks {
    shared: Option<SharedEntries>,
    blocks: Vec<Forms>,
}

#[derive(Debug)]
struct Forms {
    /// Static table and literals only: valid on any connection.
    plain: Box<[u8]>,
    /// Adds the shared fields to the dynamic table.
    first: Box<[u8]>,
    /// Refers to them.
    later: Box<[u8]>,
}

/// One request's header block as a connection takes it.
#[derive(Clone, Copy, Debug)]
pub struct RequestBlock<'a> {
    pub(crate) plain: &'a [u8],
    pub(crate) indexed: Option<Indexed<'a>>,
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct Indexed<'a> {
    pub shared: SharedEntries,
    pub first: &'a [u8],
    pub later: &'a [u8],
}

impl<'a> RequestBlock<'a> {
    /// A block from [`super::encode_request`] or
    /// [`super::encode_extended_connect`], sent as it is.
    pub fn plain(block: &'a [u8]) -> Self {
        RequestBlock {
            plain: block,
            indexed: None,
        }
    }
}

impl RequestBlocks {
    /// Encodes every request's blocks. The fields that go into the
    /// dynamic table are those nghttp2 would index that every request
    /// carries exactly once, in the same order, as far as the table's
    /// initial 4,096 bytes hold them: whichever request a connection sends
    /// first then leaves the table as any other would, and every later
    /// block is valid after it.
    pub fn encode(requests: &[RequestFields<'_>]) -> RequestBlocks {
        let shared_fields = shared_fields(requests);
        let size = shared_fields
            .iter()
            .map(|(n, v)| entry_size(n, v))
            .sum::<usize>();
        let blocks = requests
            .iter()
            .map(|request| {
                let fields = request.fields();
                let (mut plain, mut first, mut later) = (Vec::new(), Vec::new(), Vec::new());
                for &(name, value) in &fields {
                    encoder::field(name, value, &mut plain);
                    match shared_fields.iter().position(|&f| f == (name, value)) {
                        Some(position) => {
                            encoder::inserted_field(name, value, &mut first);
                            // The newest entry is 62, the first one
                            // inserted the oldest (RFC 7541 section 2.3.3).
                            let index = 62 + shared_fields.len() - 1 - position;
                            encoder::indexed_field(index, &mut later);
                        }
                        None => {
                            encoder::field(name, value, &mut first);
                            encoder::field(name, value, &mut later);
                        }
                    }
                }
                Forms {
                    plain: plain.into(),
                    first: first.into(),
                    later: later.into(),
                }
            })
            .collect();
        RequestBlocks {
            shared: (!shared_fields.is_empty()).then(|| SharedEntries {
                id: NEXT_SET.fetch_add(1, Ordering::Relaxed),
                size,
            }),
            blocks,
        }
    }

    pub fn len(&self) -> usize {
        self.blocks.len()
    }

    pub fn is_empty(&self) -> bool {
        self.blocks.is_empty()
    }

    /// Request `index`'s block, for [`crate::Connection::start_request_with`].
    pub fn get(&self, index: usize) -> RequestBlock<'_> {
        let forms = &self.blocks[index];
        RequestBlock {
            plain: &forms.plain,
            indexed: self.shared.map(|shared| Indexed {
                shared,
                first: &forms.first,
                later: &forms.later,
            }),
        }
    }

    /// The size the shared fields take in the dynamic table; 0 when the
    /// requests share none.
    pub fn table_size(&self) -> usize {
        self.shared.map_or(0, |s| s.size)
    }
}

/// The fields to index: nghttp2 would index them, each request has each
/// once and all in one order, and together they fit the initial table.
fn shared_fields<'a>(requests: &[RequestFields<'a>]) -> Vec<(&'a str, &'a str)> {
    let Some(first) = requests.first() else {
        return Vec::new();
    };
    let candidates = first.fields();
    let mut shared: Vec<(&str, &str)> = candidates
        .iter()
        .copied()
        .filter(|&(n, v)| Indexing::of(n, v) == Indexing::Incremental)
        .filter(|f| requests.iter().all(|r| occurrences(r, *f) == 1))
        .collect();
    let same_order = requests.iter().all(|r| {
        let order: Vec<_> = r
            .fields()
            .into_iter()
            .filter(|f| shared.contains(f))
            .collect();
        order == shared
    });
    if !same_order {
        return Vec::new();
    }
    let mut size = 0;
    shared.retain(|(n, v)| {
        let fits = size + entry_size(n, v) <= TABLE_SIZE;
        if fits {
            size += entry_size(n, v);
        }
        fits
    });
    shared
}

fn occurrences(request: &RequestFields<'_>, field: (&str, &str)) -> usize {
    request.fields().into_iter().filter(|&f| f == field).count()
}

#[cfg(test)]
mod tests;
