//! Prometheus remote write 1.0: a `prometheus.WriteRequest` in protobuf,
//! compressed with snappy's block format. The four messages it needs are
//! declared here, with the field numbers of Prometheus' `prompb/types.proto`
//! and `prompb/remote.proto`.

use crate::buckets::{bounds_us, le_label};
use crate::snapshot::{millis, Labels, Points, Snapshot};
use prost::Message;

pub const CONTENT_TYPE: &str = "application/x-protobuf";
pub const HEADERS: [(&str, &str); 2] = [
    ("content-encoding", "snappy"),
    ("x-prometheus-remote-write-version", "0.1.0"),
];

#[derive(Clone, PartialEq, Message)]
pub struct WriteRequest {
    #[prost(message, repeated, tag = "1")]
    pub timeseries: Vec<TimeSeries>,
}

#[derive(Clone, PartialEq, Message)]
pub struct TimeSeries {
    /// Sorted by name, `__name__` among them.
    #[prost(message, repeated, tag = "1")]
    pub labels: Vec<Label>,
    #[prost(message, repeated, tag = "2")]
    pub samples: Vec<Sample>,
}

#[derive(Clone, PartialEq, Message)]
pub struct Label {
    #[prost(string, tag = "1")]
    pub name: String,
    #[prost(string, tag = "2")]
    pub value: String,
}

#[derive(Clone, PartialEq, Message)]
pub struct Sample {
    #[prost(double, tag = "1")]
    pub value: f64,
    /// Milliseconds since the epoch.
    #[prost(int64, tag = "2")]
    pub timestamp: i64,
}

/// Every series of `snapshot`, one sample each at its time.
pub fn write_request(snapshot: &Snapshot) -> WriteRequest {
    let timestamp = millis(snapshot.at);
    let mut timeseries = Vec::new();
    let mut add = |name: String, labels: &Labels, le: Option<String>, value: f64| {
        let mut labels: Vec<Label> = labels
            .iter()
            .map(|(name, value)| Label {
                name: name.clone(),
                value: value.clone(),
            })
            .chain(le.map(|le| Label {
                name: "le".to_string(),
                value: le,
            }))
            .chain(std::iter::once(Label {
                name: "__name__".to_string(),
                value: name,
            }))
            .collect();
        labels.sort_by(|a, b| a.name.cmp(&b.name));
        timeseries.push(TimeSeries {
            labels,
            samples: vec![Sample { value, timestamp }],
        });
    };
    for family in &snapshot.families {
        let name = family.name;
        match &family.points {
            Points::Counter(points) => {
                for (labels, value) in points {
                    add(format!("{name}_total"), labels, None, *value as f64);
                }
            }
            Points::Gauge(points) => {
                for (labels, value) in points {
                    add(name.to_string(), labels, None, *value as f64);
                }
            }
            Points::Histogram(points) => {
                for (labels, classic) in points {
                    let les = bounds_us().iter().map(|b| le_label(*b));
                    let les = les.chain(std::iter::once("+Inf".to_string()));
                    for (le, count) in les.zip(classic.cumulative()) {
                        add(format!("{name}_bucket"), labels, Some(le), count as f64);
                    }
                    add(format!("{name}_count"), labels, None, classic.count as f64);
                    add(format!("{name}_sum"), labels, None, classic.sum_seconds);
                }
            }
        }
    }
    WriteRequest { timeseries }
}

/// The request's body: the protobuf, snappy-compressed.
pub fn body(snapshot: &Snapshot) -> Vec<u8> {
    let encoded = write_request(snapshot).encode_to_vec();
    snap::raw::Encoder::new()
        .compress_vec(&encoded)
        .expect("a body under snappy's 4 GiB limit")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::totals::{Totals, Workload};
    use std::time::{Duration, SystemTime};

    #[test]
    fn a_body_decodes_to_sorted_labelled_series() {
        let at = SystemTime::UNIX_EPOCH + Duration::from_millis(1_700_000_000_123);
        let totals = Totals::new(
            vec![("zone".to_string(), "eu".to_string())],
            Workload::Requests,
        );
        let snapshot = totals.snapshot(at, true);
        let bytes = snap::raw::Decoder::new()
            .decompress_vec(&body(&snapshot))
            .unwrap();
        let request = WriteRequest::decode(bytes.as_slice()).unwrap();
        let ok = request
            .timeseries
            .iter()
            .find(|s| {
                s.labels.iter().any(|l| l.value == "loadgen_requests_total")
                    && s.labels.iter().any(|l| l.value == "2xx")
            })
            .expect("the 2xx series");
        let names: Vec<&str> = ok.labels.iter().map(|l| l.name.as_str()).collect();
        assert_eq!(names, ["__name__", "protocol", "status_class", "zone"]);
        assert_eq!(
            ok.samples,
            [Sample {
                value: 0.0,
                timestamp: 1_700_000_000_123
            }]
        );
    }
}
