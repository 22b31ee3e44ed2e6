//! Calls by outcome per day or per hour, as an inline SVG stacked bar chart drawn on the
//! server (no script). Colours come from the stylesheet's `.s200` … `.sother` classes: the
//! Content-Security-Policy forbids inline styles.

use std::fmt;

use chrono::{DateTime, NaiveDate, Utc};
use maud::{Markup, html};

/// What one bar covers: a UTC day or a UTC hour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Period {
    /// A day.
    Day(NaiveDate),
    /// The hour starting at this instant.
    Hour(DateTime<Utc>),
}

impl Period {
    /// The x axis's label: `10-22` for a day, `14:00` for an hour.
    fn short(&self) -> String {
        match self {
            Self::Day(day) => day.format("%m-%d").to_string(),
            Self::Hour(hour) => hour.format("%H:00").to_string(),
        }
    }
}

impl fmt::Display for Period {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Day(day) => write!(f, "{day}"),
            Self::Hour(hour) => write!(f, "{}", hour.format("%Y-%m-%d %H:00 UTC")),
        }
    }
}

/// One bar: a period's calls by HTTP status (only the statuses the chart shows are drawn:
/// 200, 402, 429, 403, 401; others are added to "other").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PeriodCalls {
    /// The day or hour.
    pub period: Period,
    /// Calls then per status; a status may appear more than once (the counts add up).
    pub by_status: Vec<(u16, u64)>,
}

/// One stacked series: the status it counts (`None`: every status not listed), its CSS
/// class and its name in the legend.
struct Series {
    status: Option<u16>,
    class: &'static str,
    label: &'static str,
}

impl Series {
    /// "200", or "other".
    fn short_name(&self) -> String {
        self.status
            .map_or_else(|| "other".to_owned(), |s| s.to_string())
    }
}

/// Bottom to top.
const SERIES: [Series; 6] = [
    Series {
        status: Some(200),
        class: "s200",
        label: "ok",
    },
    Series {
        status: Some(402),
        class: "s402",
        label: "out of credits",
    },
    Series {
        status: Some(429),
        class: "s429",
        label: "rate limited",
    },
    Series {
        status: Some(403),
        class: "s403",
        label: "address not allowed",
    },
    Series {
        status: Some(401),
        class: "s401",
        label: "bad key",
    },
    Series {
        status: None,
        class: "sother",
        label: "other",
    },
];

/// The drawing's size in viewBox units; the SVG scales to its container's width (about 1:1
/// in the desktop layout; the stylesheet enlarges the labels on phones).
const WIDTH: f64 = 960.0;
const HEIGHT: f64 = 320.0;
/// Room for the y labels (left), the last x label (right) and the x labels (bottom).
const LEFT: f64 = 64.0;
const RIGHT: f64 = 28.0;
const TOP: f64 = 12.0;
const BOTTOM: f64 = 36.0;
/// Every how many bars the x axis is labelled (counted back from the last one): about five
/// labels (every seventh of 30 days, every twelfth of 48 hours).
fn label_every(bars: usize) -> usize {
    (bars / 4).max(1)
}

/// The chart of `days` (one bar each, in the given order: consecutive days or hours), with
/// its legend below.
pub fn calls_chart(days: &[PeriodCalls]) -> Markup {
    let counts: Vec<[u64; 6]> = days.iter().map(bucket).collect();
    let mut series_totals = [0u128; 6];
    for day in &counts {
        for (total, count) in series_totals.iter_mut().zip(day) {
            *total += u128::from(*count);
        }
    }
    let max = counts.iter().map(|c| sum(c)).max().unwrap_or(0);
    let scale = Scale::for_max(max);
    let plot_width = WIDTH - LEFT - RIGHT;
    let plot_height = HEIGHT - TOP - BOTTOM;
    let baseline = TOP + plot_height;
    let slot = plot_width / days.len().max(1) as f64;
    let bar_width = round((slot * 0.72).max(1.0));
    let centre = |i: usize| LEFT + slot * (i as f64 + 0.5);
    let summary = summary(days, &series_totals);
    html! {
        figure.chart {
            svg xmlns="http://www.w3.org/2000/svg" viewBox={ "0 0 " (WIDTH) " " (HEIGHT) }
                width="100%" role="img" aria-label=(summary) {
                title { (summary) }
                @for tick in scale.ticks().filter(|_| max > 0) {
                    @let y = round(baseline - scale.fraction(tick) * plot_height);
                    line.grid x1=(LEFT) x2=(WIDTH - RIGHT) y1=(y) y2=(y) {}
                    text.y-label x=(LEFT - 8.0) y=(y) dominant-baseline="middle" text-anchor="end" { (compact(tick)) }
                }
                line.axis x1=(LEFT) x2=(WIDTH - RIGHT) y1=(baseline) y2=(baseline) {}
                text.y-label x=(LEFT - 8.0) y=(baseline) dominant-baseline="middle" text-anchor="end" { "0" }
                @for (i, (day, day_counts)) in days.iter().zip(&counts).enumerate() {
                    @for segment in stack(day_counts, &scale, plot_height) {
                        rect class=(segment.series.class) x=(round(centre(i) - bar_width / 2.0))
                            y=(round(baseline - segment.top)) width=(bar_width)
                            height=(round(segment.top - segment.bottom)) {
                            title { (day.period) ": " (segment.count) " × " (segment.series.short_name()) }
                        }
                    }
                    @if (days.len() - 1 - i).is_multiple_of(label_every(days.len())) {
                        text.x-label x=(round(centre(i))) y=(HEIGHT - 8.0) text-anchor="middle" {
                            (day.period.short())
                        }
                    }
                }
                @if max == 0 {
                    text.empty x=(LEFT + plot_width / 2.0) y=(TOP + plot_height / 2.0) text-anchor="middle" {
                        "No calls yet"
                    }
                }
            }
            ul.legend {
                @for series in &SERIES {
                    li {
                        span class={ "swatch " (series.class) } {}
                        @if let Some(status) = series.status { (status) " " }
                        (series.label)
                    }
                }
            }
        }
    }
}

/// One drawn piece of a bar, heights measured up from the baseline.
struct Segment {
    series: &'static Series,
    count: u64,
    bottom: f64,
    top: f64,
}

/// A day's non-empty series stacked bottom to top; each at least a pixel high, so that a
/// single call among millions still shows.
fn stack(counts: &[u64; 6], scale: &Scale, plot_height: f64) -> Vec<Segment> {
    let mut bottom = 0.0;
    let mut segments = Vec::new();
    for (series, count) in SERIES.iter().zip(counts) {
        if *count == 0 {
            continue;
        }
        let top = bottom + (scale.fraction(u128::from(*count)) * plot_height).max(1.0);
        segments.push(Segment {
            series,
            count: *count,
            bottom,
            top,
        });
        bottom = top;
    }
    segments
}

/// A day's counts in series order.
fn bucket(day: &PeriodCalls) -> [u64; 6] {
    let mut counts = [0u64; 6];
    for &(status, count) in &day.by_status {
        let index = SERIES
            .iter()
            .position(|s| s.status == Some(status))
            .unwrap_or(SERIES.len() - 1);
        counts[index] = counts[index].saturating_add(count);
    }
    counts
}

/// A sum that cannot overflow (six `u64`s fit in a `u128`).
fn sum(counts: &[u64]) -> u128 {
    counts.iter().map(|c| u128::from(*c)).sum()
}

/// What the chart shows, in words (its accessible name and its tooltip).
fn summary(days: &[PeriodCalls], series_totals: &[u128; 6]) -> String {
    let total: u128 = series_totals.iter().sum();
    let span = match (days.first(), days.last()) {
        (Some(first), Some(last)) => format!(" from {} to {}", first.period, last.period),
        _ => String::new(),
    };
    if total == 0 {
        return format!("Calls by outcome{span}: no calls yet");
    }
    let parts: Vec<String> = SERIES
        .iter()
        .zip(series_totals)
        .filter(|(_, count)| **count > 0)
        .map(|(series, count)| match series.status {
            Some(status) => format!("{count} × {status} {}", series.label),
            None => format!("{count} other"),
        })
        .collect();
    format!(
        "Calls by outcome{span}: {total} in all; {}",
        parts.join(", ")
    )
}

/// The y axis: a round step and how many of them reach the tallest bar.
struct Scale {
    step: u128,
    steps: u128,
}

impl Scale {
    fn for_max(max: u128) -> Self {
        // The smallest 1, 2 or 5 × 10^k with at most 3 steps up to `max`, never less than 1
        // (counts are whole numbers); at least 2 steps, so the axis always has 2 or 3
        // gridlines above 0.
        let target = max.div_ceil(3).max(1);
        let mut magnitude: u128 = 1;
        let step = loop {
            if let Some(step) = [1, 2, 5]
                .into_iter()
                .map(|m| m * magnitude)
                .find(|s| *s >= target)
            {
                break step;
            }
            magnitude *= 10;
        };
        let steps = max.div_ceil(step).max(2);
        Self { step, steps }
    }

    /// The gridlines' values, bottom to top, without 0.
    fn ticks(&self) -> impl Iterator<Item = u128> + '_ {
        (1..=self.steps).map(|i| i * self.step)
    }

    /// Where `value` sits between 0 and the top gridline, as a fraction of the plot height.
    fn fraction(&self, value: u128) -> f64 {
        value as f64 / (self.step * self.steps) as f64
    }
}

/// 950, 1.5k, 20k, 3M: a y label that fits.
fn compact(value: u128) -> String {
    const UNITS: [(u128, &str); 6] = [
        (1_000_000_000_000_000_000, "E"),
        (1_000_000_000_000_000, "P"),
        (1_000_000_000_000, "T"),
        (1_000_000_000, "G"),
        (1_000_000, "M"),
        (1_000, "k"),
    ];
    for (unit, suffix) in UNITS {
        if value >= unit {
            let tenths = value * 10 / unit;
            return if tenths.is_multiple_of(10) {
                format!("{}{suffix}", tenths / 10)
            } else {
                format!("{}.{}{suffix}", tenths / 10, tenths % 10)
            };
        }
    }
    value.to_string()
}

/// Coordinates to two decimals, to keep the markup short.
fn round(value: f64) -> f64 {
    (value * 100.0).round() / 100.0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn month(by_status: impl Fn(usize) -> Vec<(u16, u64)>) -> Vec<PeriodCalls> {
        let first = NaiveDate::from_ymd_opt(2026, 10, 22).expect("a date");
        (0..30)
            .map(|i| PeriodCalls {
                period: Period::Day(first + chrono::Days::new(i as u64)),
                by_status: by_status(i),
            })
            .collect()
    }

    fn rects(svg: &str) -> usize {
        svg.matches("<rect ").count()
    }

    #[test]
    fn one_segment_per_day_and_status() {
        let days = month(|i| vec![(200, 10 + i as u64), (429, 2), (500, 1), (503, 1)]);
        let chart = calls_chart(&days).into_string();
        // 200, 429 and "other" (500 and 503 together) each day.
        assert_eq!(rects(&chart), 90);
        assert!(chart.contains("<title>2026-11-20: 39 × 200</title>"));
        assert!(chart.contains("<title>2026-10-22: 2 × 429</title>"));
        assert!(chart.contains("<title>2026-10-22: 2 × other</title>"));
        assert!(chart.contains(r#"class="s200""#) && chart.contains(r#"class="sother""#));
        assert!(!chart.contains("style="), "the CSP forbids inline styles");
        assert!(chart.contains(r#"width="100%""#) && chart.contains("viewBox="));
        assert!(chart.contains(r#"role="img""#));
        let total: u64 = (0..30).map(|i| 10 + i + 4).sum();
        assert!(chart.contains(&format!("{total} in all")), "{chart}");
    }

    #[test]
    fn x_axis_labels_every_seventh_day_ending_on_the_last() {
        let chart = calls_chart(&month(|_| vec![(200, 1)])).into_string();
        assert_eq!(chart.matches("class=\"x-label\"").count(), 5);
        assert!(chart.contains(">11-20</text>"));
        assert!(chart.contains(">10-23</text>"));
    }

    #[test]
    fn hours_are_labelled_by_the_hour() {
        let start = DateTime::<Utc>::from_timestamp(1_764_288_000, 0).expect("an instant");
        let hours: Vec<PeriodCalls> = (0..48)
            .map(|i| PeriodCalls {
                period: Period::Hour(start + chrono::Duration::hours(i)),
                by_status: vec![(200, 1)],
            })
            .collect();
        let chart = calls_chart(&hours).into_string();
        assert_eq!(chart.matches("class=\"x-label\"").count(), 4);
        assert!(chart.contains(">23:00</text>"), "{chart}");
        assert!(
            chart.contains("<title>2025-11-28 00:00 UTC: 1 × 200</title>"),
            "{chart}"
        );
    }

    #[test]
    fn y_axis_has_two_or_three_round_gridlines() {
        for (max, top) in [
            (1, 2),
            (3, 3),
            (7, 10),
            (10, 10),
            (95, 100),
            (1000, 1000),
            (1001, 1500),
        ] {
            let scale = Scale::for_max(max);
            let ticks: Vec<u128> = scale.ticks().collect();
            assert!((2..=3).contains(&ticks.len()), "{max}: {ticks:?}");
            assert_eq!(ticks.last().copied(), Some(top), "{max}: {ticks:?}");
            assert!(scale.fraction(max) <= 1.0);
        }
        assert_eq!(compact(1500), "1.5k");
        assert_eq!(compact(2_000_000), "2M");
        assert_eq!(compact(950), "950");
    }

    #[test]
    fn no_calls_draws_an_empty_chart() {
        let chart = calls_chart(&month(|_| Vec::new())).into_string();
        assert_eq!(rects(&chart), 0);
        assert!(chart.contains("No calls yet"));
        assert!(!chart.contains("class=\"grid\""), "no scale without data");
        assert!(!chart.contains("NaN") && !chart.contains("inf"));
        let zeros = calls_chart(&month(|_| vec![(200, 0)])).into_string();
        assert_eq!(rects(&zeros), 0);
        let nothing = calls_chart(&[]).into_string();
        assert!(nothing.contains("No calls yet"));
    }

    #[test]
    fn huge_counts_neither_overflow_nor_vanish() {
        let chart = calls_chart(&month(|i| {
            if i == 29 {
                vec![(200, u64::MAX), (402, u64::MAX), (401, 1)]
            } else {
                vec![(200, 1)]
            }
        }))
        .into_string();
        assert_eq!(rects(&chart), 32);
        assert!(!chart.contains("NaN") && !chart.contains("inf"));
        assert!(chart.contains(&format!("{} × 402", u64::MAX)));
        // Every segment has a positive height inside the drawing.
        for attrs in chart.split("<rect ").skip(1) {
            let height: f64 = attrs
                .split("height=\"")
                .nth(1)
                .and_then(|h| h.split('"').next())
                .and_then(|h| h.parse().ok())
                .expect("a height");
            assert!(height > 0.0 && height <= HEIGHT, "{attrs}");
        }
    }
}
