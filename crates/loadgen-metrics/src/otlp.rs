//! OTLP/HTTP metrics in protobuf: an `ExportMetricsServiceRequest` with one
//! resource (`service.name` = `loadgen`, and every `--metrics-tag`) and
//! one scope. Counters are cumulative monotonic sums, gauges gauges, latencies
//! explicit-bucket histograms with the bounds of [`crate::buckets`]. The
//! subset of messages it needs is declared here, with the field numbers
//! of opentelemetry-proto's `collector/metrics/v1`, `metrics/v1`,
//! `common/v1` and `resource/v1`.

use crate::buckets::bounds_us;
use crate::snapshot::{nanos, Labels, Points, Snapshot};
use prost::Message;

pub const CONTENT_TYPE: &str = "application/x-protobuf";

/// OTLP's `AGGREGATION_TEMPORALITY_CUMULATIVE`.
const CUMULATIVE: i32 = 2;

#[derive(Clone, PartialEq, Message)]
pub struct ExportMetricsServiceRequest {
    #[prost(message, repeated, tag = "1")]
    pub resource_metrics: Vec<ResourceMetrics>,
}

#[derive(Clone, PartialEq, Message)]
pub struct ResourceMetrics {
    #[prost(message, optional, tag = "1")]
    pub resource: Option<Resource>,
    #[prost(message, repeated, tag = "2")]
    pub scope_metrics: Vec<ScopeMetrics>,
}

#[derive(Clone, PartialEq, Message)]
pub struct Resource {
    #[prost(message, repeated, tag = "1")]
    pub attributes: Vec<KeyValue>,
}

#[derive(Clone, PartialEq, Message)]
pub struct ScopeMetrics {
    #[prost(message, optional, tag = "1")]
    pub scope: Option<InstrumentationScope>,
    #[prost(message, repeated, tag = "2")]
    pub metrics: Vec<Metric>,
}

#[derive(Clone, PartialEq, Message)]
pub struct InstrumentationScope {
    #[prost(string, tag = "1")]
    pub name: String,
    #[prost(string, tag = "2")]
    pub version: String,
}

#[derive(Clone, PartialEq, Message)]
pub struct KeyValue {
    #[prost(string, tag = "1")]
    pub key: String,
    #[prost(message, optional, tag = "2")]
    pub value: Option<AnyValue>,
}

#[derive(Clone, PartialEq, Message)]
pub struct AnyValue {
    #[prost(string, tag = "1")]
    pub string_value: String,
}

#[derive(Clone, PartialEq, Message)]
pub struct Metric {
    #[prost(string, tag = "1")]
    pub name: String,
    #[prost(string, tag = "2")]
    pub description: String,
    #[prost(string, tag = "3")]
    pub unit: String,
    #[prost(oneof = "Data", tags = "5, 7, 9")]
    pub data: Option<Data>,
}

#[derive(Clone, PartialEq, prost::Oneof)]
pub enum Data {
    #[prost(message, tag = "5")]
    Gauge(Gauge),
    #[prost(message, tag = "7")]
    Sum(Sum),
    #[prost(message, tag = "9")]
    Histogram(Histogram),
}

#[derive(Clone, PartialEq, Message)]
pub struct Gauge {
    #[prost(message, repeated, tag = "1")]
    pub data_points: Vec<NumberDataPoint>,
}

#[derive(Clone, PartialEq, Message)]
pub struct Sum {
    #[prost(message, repeated, tag = "1")]
    pub data_points: Vec<NumberDataPoint>,
    #[prost(int32, tag = "2")]
    pub aggregation_temporality: i32,
    #[prost(bool, tag = "3")]
    pub is_monotonic: bool,
}

#[derive(Clone, PartialEq, Message)]
pub struct NumberDataPoint {
    #[prost(message, repeated, tag = "7")]
    pub attributes: Vec<KeyValue>,
    #[prost(fixed64, tag = "2")]
    pub start_time_unix_nano: u64,
    #[prost(fixed64, tag = "3")]
    pub time_unix_nano: u64,
    #[prost(sfixed64, tag = "6")]
    pub as_int: i64,
}

#[derive(Clone, PartialEq, Message)]
pub struct Histogram {
    #[prost(message, repeated, tag = "1")]
    pub data_points: Vec<HistogramDataPoint>,
    #[prost(int32, tag = "2")]
    pub aggregation_temporality: i32,
}

#[derive(Clone, PartialEq, Message)]
pub struct HistogramDataPoint {
    #[prost(message, repeated, tag = "9")]
    pub attributes: Vec<KeyValue>,
    #[prost(fixed64, tag = "2")]
    pub start_time_unix_nano: u64,
    #[prost(fixed64, tag = "3")]
    pub time_unix_nano: u64,
    #[prost(fixed64, tag = "4")]
    pub count: u64,
    #[prost(double, optional, tag = "5")]
    pub sum: Option<f64>,
    /// Per bucket, not cumulative; one more than the bounds.
    #[prost(fixed64, repeated, tag = "6")]
    pub bucket_counts: Vec<u64>,
    #[prost(double, repeated, tag = "7")]
    pub explicit_bounds: Vec<f64>,
}

fn key_values(labels: &Labels) -> Vec<KeyValue> {
    labels
        .iter()
        .map(|(key, value)| KeyValue {
            key: key.clone(),
            value: Some(AnyValue {
                string_value: value.clone(),
            }),
        })
        .collect()
}

/// `snapshot` as one export request; `tags` go on the resource, the
/// series' own labels on their points.
pub fn request(snapshot: &Snapshot, tags: &Labels) -> ExportMetricsServiceRequest {
    let start = nanos(snapshot.started_at);
    let time = nanos(snapshot.at);
    // The tags are the resource's: each point keeps only its own labels.
    let own = |labels: &Labels| -> Labels {
        labels
            .iter()
            .filter(|label| !tags.contains(label))
            .cloned()
            .collect()
    };
    let bounds: Vec<f64> = bounds_us().iter().map(|b| *b as f64 / 1e6).collect();
    let metrics = snapshot
        .families
        .iter()
        .map(|family| {
            let numbers = |points: &[(Labels, u64)]| -> Vec<NumberDataPoint> {
                points
                    .iter()
                    .map(|(labels, value)| NumberDataPoint {
                        attributes: key_values(&own(labels)),
                        start_time_unix_nano: start,
                        time_unix_nano: time,
                        as_int: *value as i64,
                    })
                    .collect()
            };
            let data = match &family.points {
                Points::Counter(points) => Data::Sum(Sum {
                    data_points: numbers(points),
                    aggregation_temporality: CUMULATIVE,
                    is_monotonic: true,
                }),
                Points::Gauge(points) => Data::Gauge(Gauge {
                    data_points: numbers(points),
                }),
                Points::Histogram(points) => Data::Histogram(Histogram {
                    data_points: points
                        .iter()
                        .map(|(labels, classic)| HistogramDataPoint {
                            attributes: key_values(&own(labels)),
                            start_time_unix_nano: start,
                            time_unix_nano: time,
                            count: classic.count,
                            sum: Some(classic.sum_seconds),
                            bucket_counts: classic.counts.clone(),
                            explicit_bounds: bounds.clone(),
                        })
                        .collect(),
                    aggregation_temporality: CUMULATIVE,
                }),
            };
            Metric {
                name: family.name.to_string(),
                description: family.help.to_string(),
                unit: family.unit.to_string(),
                data: Some(data),
            }
        })
        .collect();
    let mut resource = vec![("service.name".to_string(), "loadgen".to_string())];
    resource.extend(tags.iter().cloned());
    ExportMetricsServiceRequest {
        resource_metrics: vec![ResourceMetrics {
            resource: Some(Resource {
                attributes: key_values(&resource),
            }),
            scope_metrics: vec![ScopeMetrics {
                scope: Some(InstrumentationScope {
                    name: "loadgen".to_string(),
                    version: env!("CARGO_PKG_VERSION").to_string(),
                }),
                metrics,
            }],
        }],
    }
}

pub fn body(snapshot: &Snapshot, tags: &Labels) -> Vec<u8> {
    request(snapshot, tags).encode_to_vec()
}
