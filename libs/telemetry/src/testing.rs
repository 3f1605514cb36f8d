//! TEST ONLY (feature `testing`): a meter provider that exports into memory, and its data
//! points in a form tests can compare.

use std::collections::BTreeMap;

use opentelemetry::metrics::{Meter, MeterProvider as _};
use opentelemetry_sdk::metrics::{
    InMemoryMetricExporter, SdkMeterProvider,
    data::{AggregatedMetrics, MetricData},
};

/// One data point of one instrument, with its attributes as strings.
#[derive(Clone, Debug, PartialEq)]
pub struct Point {
    pub name: String,
    pub attributes: BTreeMap<String, String>,
    /// A counter's or gauge's value; a histogram's sum.
    pub value: f64,
    /// A histogram's count of recordings; `None` for other instruments.
    pub count: Option<u64>,
}

/// A meter provider whose periodic reader exports into memory (cumulative, so the last
/// export holds every total).
#[derive(Debug)]
pub struct MetricsRecorder {
    provider: SdkMeterProvider,
    exporter: InMemoryMetricExporter,
}

impl Default for MetricsRecorder {
    fn default() -> Self {
        Self::new()
    }
}

impl MetricsRecorder {
    pub fn new() -> Self {
        let exporter = InMemoryMetricExporter::default();
        let provider = SdkMeterProvider::builder()
            .with_periodic_exporter(exporter.clone())
            .build();
        MetricsRecorder { provider, exporter }
    }

    /// Installs this provider as the process's global one: only in a test binary of its own
    /// (one integration-test file), since every test in the process shares it.
    pub fn install_global(&self) {
        opentelemetry::global::set_meter_provider(self.provider.clone());
    }

    /// A meter of this provider, for instruments built explicitly in a test.
    pub fn meter(&self) -> Meter {
        self.provider.meter(crate::metrics::METER_NAME)
    }

    /// Exports what was recorded so far (observable callbacks run now) and returns every
    /// data point of the last export.
    pub fn points(&self) -> Vec<Point> {
        if let Err(error) = self.provider.force_flush() {
            panic!("metrics flush failed: {error}");
        }
        let exported = match self.exporter.get_finished_metrics() {
            Ok(exported) => exported,
            Err(error) => panic!("in-memory exporter failed: {error}"),
        };
        let Some(last) = exported.last() else {
            return Vec::new();
        };
        let mut points = Vec::new();
        for scope in last.scope_metrics() {
            for metric in scope.metrics() {
                let name = metric.name().to_owned();
                collect(&name, metric.data(), &mut points);
            }
        }
        points
    }

    /// The points named `name`.
    pub fn named(&self, name: &str) -> Vec<Point> {
        self.points()
            .into_iter()
            .filter(|point| point.name == name)
            .collect()
    }
}

fn attributes<'a>(
    attributes: impl Iterator<Item = &'a opentelemetry::KeyValue>,
) -> BTreeMap<String, String> {
    attributes
        .map(|kv| (kv.key.to_string(), kv.value.to_string()))
        .collect()
}

fn collect(name: &str, data: &AggregatedMetrics, points: &mut Vec<Point>) {
    fn push<T: Copy>(name: &str, data: &MetricData<T>, to_f64: fn(T) -> f64, out: &mut Vec<Point>) {
        match data {
            MetricData::Sum(sum) => out.extend(sum.data_points().map(|p| Point {
                name: name.to_owned(),
                attributes: attributes(p.attributes()),
                value: to_f64(p.value()),
                count: None,
            })),
            MetricData::Gauge(gauge) => out.extend(gauge.data_points().map(|p| Point {
                name: name.to_owned(),
                attributes: attributes(p.attributes()),
                value: to_f64(p.value()),
                count: None,
            })),
            MetricData::Histogram(histogram) => {
                out.extend(histogram.data_points().map(|p| Point {
                    name: name.to_owned(),
                    attributes: attributes(p.attributes()),
                    value: to_f64(p.sum()),
                    count: Some(p.count()),
                }));
            }
            MetricData::ExponentialHistogram(histogram) => {
                out.extend(histogram.data_points().map(|p| Point {
                    name: name.to_owned(),
                    attributes: attributes(p.attributes()),
                    value: to_f64(p.sum()),
                    count: Some(p.count() as u64),
                }));
            }
        }
    }
    // Integer values are test counts, far below 2^53: exact as f64.
    #[allow(clippy::cast_precision_loss)]
    match data {
        AggregatedMetrics::F64(data) => push(name, data, |v| v, points),
        AggregatedMetrics::U64(data) => push(name, data, |v| v as f64, points),
        AggregatedMetrics::I64(data) => push(name, data, |v| v as f64, points),
    }
}

/// The attributes `pairs` as a map, to compare with [`Point::attributes`].
pub fn attrs(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}
