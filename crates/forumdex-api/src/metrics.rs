//! Prometheus metrics: requests by route and status, latency histograms by route, and
//! credits charged, rendered in the text exposition format at `GET /metrics`.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// Upper bounds of the latency buckets, in seconds.
const BUCKETS: [f64; 13] = [
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
];

#[derive(Debug, Default)]
struct Histogram {
    buckets: [u64; BUCKETS.len()],
    count: u64,
    sum_seconds: f64,
}

#[derive(Debug, Default)]
struct Series {
    requests: BTreeMap<(String, u16), u64>,
    latency: BTreeMap<String, Histogram>,
}

/// The process's metrics.
#[derive(Debug, Default)]
pub struct Metrics {
    series: Mutex<Series>,
    credits_charged: AtomicU64,
}

impl Metrics {
    /// Records one finished request.
    pub fn observe(&self, route: &str, status: u16, elapsed: Duration) {
        let seconds = elapsed.as_secs_f64();
        let mut series = self.series.lock().expect("metrics lock");
        *series
            .requests
            .entry((route.to_owned(), status))
            .or_default() += 1;
        let histogram = series.latency.entry(route.to_owned()).or_default();
        histogram.count += 1;
        histogram.sum_seconds += seconds;
        for (bucket, bound) in histogram.buckets.iter_mut().zip(BUCKETS) {
            if seconds <= bound {
                *bucket += 1;
            }
        }
    }

    /// Records one credit charged.
    pub fn charged(&self) {
        self.credits_charged.fetch_add(1, Ordering::Relaxed);
    }

    /// The text exposition format.
    pub fn render(&self) -> String {
        let series = self.series.lock().expect("metrics lock");
        let mut out = String::new();
        out.push_str("# HELP forumdex_requests_total Requests answered, by route and status.\n");
        out.push_str("# TYPE forumdex_requests_total counter\n");
        for ((route, status), count) in &series.requests {
            let _ = writeln!(
                out,
                "forumdex_requests_total{{route=\"{route}\",status=\"{status}\"}} {count}"
            );
        }
        out.push_str("# HELP forumdex_request_duration_seconds Request latency, by route.\n");
        out.push_str("# TYPE forumdex_request_duration_seconds histogram\n");
        for (route, histogram) in &series.latency {
            for (count, bound) in histogram.buckets.iter().zip(BUCKETS) {
                let _ = writeln!(
                    out,
                    "forumdex_request_duration_seconds_bucket{{route=\"{route}\",le=\"{bound}\"}} {count}"
                );
            }
            let _ = writeln!(
                out,
                "forumdex_request_duration_seconds_bucket{{route=\"{route}\",le=\"+Inf\"}} {}",
                histogram.count
            );
            let _ = writeln!(
                out,
                "forumdex_request_duration_seconds_sum{{route=\"{route}\"}} {}",
                histogram.sum_seconds
            );
            let _ = writeln!(
                out,
                "forumdex_request_duration_seconds_count{{route=\"{route}\"}} {}",
                histogram.count
            );
        }
        out.push_str("# HELP forumdex_credits_charged_total Credits charged.\n");
        out.push_str("# TYPE forumdex_credits_charged_total counter\n");
        let _ = writeln!(
            out,
            "forumdex_credits_charged_total {}",
            self.credits_charged.load(Ordering::Relaxed)
        );
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_counters_and_cumulative_buckets() {
        let metrics = Metrics::default();
        metrics.observe("/api/v1/posts/{id}", 200, Duration::from_millis(3));
        metrics.observe("/api/v1/posts/{id}", 404, Duration::from_millis(30));
        metrics.charged();
        let text = metrics.render();
        assert!(
            text.contains("forumdex_requests_total{route=\"/api/v1/posts/{id}\",status=\"200\"} 1")
        );
        assert!(text.contains(
            "forumdex_request_duration_seconds_bucket{route=\"/api/v1/posts/{id}\",le=\"0.005\"} 1"
        ));
        assert!(text.contains(
            "forumdex_request_duration_seconds_bucket{route=\"/api/v1/posts/{id}\",le=\"0.05\"} 2"
        ));
        assert!(
            text.contains(
                "forumdex_request_duration_seconds_count{route=\"/api/v1/posts/{id}\"} 2"
            )
        );
        assert!(text.contains("forumdex_credits_charged_total 1"));
    }
}
