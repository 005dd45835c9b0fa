//! What the connection remembers between reads: a DATA frame in progress,
//! a header block waiting for its CONTINUATION frames, decoded fields.

#[derive(Default)]
pub(crate) struct ReadState {
    /// The server's preface, a SETTINGS frame, has arrived.
    pub settings_seen: bool,
    pub data: Option<DataInProgress>,
    pub continuation: Option<HeaderBlock>,
    /// Header block fragments waiting for their CONTINUATION frames.
    pub block: Vec<u8>,
    /// The decoded fields of a head some stream asked for.
    pub fields: Fields,
    /// The `grpc-message` of the header block being read, if it has one.
    pub grpc_message: Vec<u8>,
}

impl ReadState {
    pub(crate) fn has_settings(&self) -> bool {
        self.settings_seen
    }
}

/// Decoded header fields, kept in one buffer.
#[derive(Default)]
pub(crate) struct Fields {
    pub bytes: Vec<u8>,
    /// (name end, value end) offsets into `bytes`, per field.
    pub ends: Vec<(usize, usize)>,
}

impl Fields {
    pub fn clear(&mut self) {
        self.bytes.clear();
        self.ends.clear();
    }

    pub fn push(&mut self, name: &[u8], value: &[u8]) {
        self.bytes.extend_from_slice(name);
        let name_end = self.bytes.len();
        self.bytes.extend_from_slice(value);
        self.ends.push((name_end, self.bytes.len()));
    }

    pub fn as_pairs(&self) -> Vec<(&[u8], &[u8])> {
        let mut start = 0;
        self.ends
            .iter()
            .map(|&(name_end, value_end)| {
                let pair = (
                    &self.bytes[start..name_end],
                    &self.bytes[name_end..value_end],
                );
                start = value_end;
                pair
            })
            .collect()
    }
}

pub(crate) struct DataInProgress {
    pub stream_id: u32,
    pub data_left: usize,
    pub padding_left: usize,
    pub end_stream: bool,
}

/// A header block as its HEADERS frame began it.
pub(crate) struct HeaderBlock {
    pub stream_id: u32,
    pub end_stream: bool,
    /// HEADERS and CONTINUATION payload bytes: the compressed header size.
    pub frame_bytes: u64,
}
