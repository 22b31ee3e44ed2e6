//! Usage: calls per day by status, endpoint and key over a range of UTC days (the last 30
//! by default, a year at most), or per hour over up to a week, for every key or one, and the
//! same counts as CSV. Daily counts come from the server's usage recorder (every request
//! made with one of the account's keys, whatever its answer; flushed every second); hourly
//! ones from the request log, which records the same requests and is kept
//! `request_log_days` days.

use std::collections::BTreeMap;
use std::sync::Arc;

use axum::extract::{Query, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use chrono::{DateTime, Duration, NaiveDate, NaiveTime, Timelike, Utc};
use forumdex_accounts::{AccountId, DeveloperStore, HourCount, KeyId, UsageCount};
use maud::html;
use serde::Deserialize;

use crate::Dashboard;
use crate::chart::{Period, PeriodCalls, calls_chart};
use crate::error::{PageError, blocking};
use crate::pages::respond;
use crate::session::SignedIn;

/// Days the usage pages cover (today included).
pub const DAYS: i64 = 30;

/// The account's usage rows of the last [`DAYS`] days at `now`.
pub async fn recent_usage(
    dashboard: &Dashboard,
    account: AccountId,
    now: DateTime<Utc>,
) -> Result<Vec<UsageCount>, PageError> {
    let store: Arc<dyn DeveloperStore> = Arc::clone(&dashboard.store);
    let since = first_day(now);
    blocking(move || Ok(store.usage(account, since)?)).await
}

/// The first day of the window ending today.
pub fn first_day(now: DateTime<Utc>) -> NaiveDate {
    (now - Duration::days(DAYS - 1)).date_naive()
}

/// Calls per day by status, for exactly the [`DAYS`] days ending today.
pub fn days_by_status(rows: &[UsageCount], now: DateTime<Utc>) -> Vec<PeriodCalls> {
    by_day(rows, first_day(now), now.date_naive())
}

/// Calls per day by status, one bar for each day from `from` to `to`.
fn by_day(rows: &[UsageCount], from: NaiveDate, to: NaiveDate) -> Vec<PeriodCalls> {
    let mut by_day: BTreeMap<NaiveDate, BTreeMap<u16, u64>> = BTreeMap::new();
    for row in rows {
        *by_day
            .entry(row.day)
            .or_default()
            .entry(row.status)
            .or_default() += row.count;
    }
    from.iter_days()
        .take_while(|day| *day <= to)
        .map(|day| PeriodCalls {
            period: Period::Day(day),
            by_status: by_day
                .get(&day)
                .map(|statuses| statuses.iter().map(|(s, n)| (*s, *n)).collect())
                .unwrap_or_default(),
        })
        .collect()
}

/// Calls per hour by status, one bar for each hour from `from` until `until`.
fn by_hour(counts: &[HourCount], from: DateTime<Utc>, until: DateTime<Utc>) -> Vec<PeriodCalls> {
    let mut bars = Vec::new();
    let mut hour = from;
    while hour < until {
        let by_status = counts
            .iter()
            .filter(|count| count.hour == hour)
            .map(|count| (count.status, count.count))
            .collect();
        bars.push(PeriodCalls {
            period: Period::Hour(hour),
            by_status,
        });
        hour += Duration::hours(1);
    }
    bars
}

/// Total calls on or after `since`.
pub fn calls_since(rows: &[UsageCount], since: NaiveDate) -> u64 {
    rows.iter()
        .filter(|row| row.day >= since)
        .map(|row| row.count)
        .sum()
}

/// Days a daily view may span.
const MAX_DAYS: i64 = 366;
/// Days an hourly view may span.
const MAX_HOURLY_DAYS: i64 = 7;

/// `?key=KEY_ID&from=YYYY-MM-DD&to=YYYY-MM-DD&by=day|hour`: one key's usage only (empty:
/// every key's), the UTC days shown (default: the last [`DAYS`] days, or yesterday and today
/// by the hour), counted per day or per hour.
#[derive(Debug, Default, Deserialize)]
pub struct UsageQuery {
    #[serde(default)]
    key: String,
    #[serde(default)]
    from: String,
    #[serde(default)]
    to: String,
    #[serde(default)]
    by: String,
}

/// What a usage page or CSV shows, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
struct View {
    key: Option<KeyId>,
    from: NaiveDate,
    to: NaiveDate,
    hourly: bool,
}

impl View {
    /// The address of this view (`path` is the page or the CSV).
    fn link(&self, path: &str) -> String {
        let key = self.key.as_ref().map_or("", KeyId::as_str);
        let by = if self.hourly { "hour" } else { "day" };
        format!("{path}?key={key}&from={}&to={}&by={by}", self.from, self.to)
    }

    /// The first instant after the view (the end of `to`, or now when that is later).
    fn until(&self, now: DateTime<Utc>) -> DateTime<Utc> {
        let end = start_of(self.to + Duration::days(1));
        let this_hour = start_of(now.date_naive()) + Duration::hours(i64::from(now.hour()) + 1);
        end.min(this_hour)
    }
}

/// A day's first instant.
fn start_of(day: NaiveDate) -> DateTime<Utc> {
    day.and_time(NaiveTime::MIN).and_utc()
}

fn bad(message: String) -> PageError {
    PageError::BadRequest(message)
}

impl UsageQuery {
    /// The view asked for, refused with what is wrong; `log_days` is how far back the request
    /// log (the hourly counts' source) goes.
    fn view(&self, today: NaiveDate, log_days: u32) -> Result<View, PageError> {
        let key = match self.key.as_str() {
            "" => None,
            text => Some(KeyId::parse(text).map_err(|_| {
                bad(format!(
                    "{text:?} is not a key id: choose one from the list."
                ))
            })?),
        };
        let hourly = match self.by.as_str() {
            "" | "day" => false,
            "hour" => true,
            other => return Err(bad(format!("by={other:?}: choose day or hour."))),
        };
        let date = |name: &str, text: &str| {
            NaiveDate::parse_from_str(text, "%Y-%m-%d").map_err(|_| {
                bad(format!(
                    "{name} {text:?} is not a date: write it YYYY-MM-DD."
                ))
            })
        };
        let to = match self.to.as_str() {
            "" => today,
            text => date("to", text)?,
        };
        let default_span = if hourly { 2 } else { DAYS };
        let from = match self.from.as_str() {
            "" => to - Duration::days(default_span - 1),
            text => date("from", text)?,
        };
        if to > today {
            return Err(bad(format!("The range ends after today ({today}, UTC).")));
        }
        if from > to {
            return Err(bad("The range starts after it ends.".to_owned()));
        }
        let span = (to - from).num_days() + 1;
        let most = if hourly { MAX_HOURLY_DAYS } else { MAX_DAYS };
        if span > most {
            return Err(bad(format!(
                "{span} days is too long a range {}: at most {most}.",
                if hourly { "by the hour" } else { "by the day" }
            )));
        }
        if hourly {
            if log_days == 0 {
                return Err(bad(
                    "Hourly counts come from the request log, which this deployment does not \
                     keep: show usage by the day."
                        .to_owned(),
                ));
            }
            let oldest = today - Duration::days(i64::from(log_days) - 1);
            if from < oldest {
                return Err(bad(format!(
                    "Hourly counts go back {log_days} days (the request log's keep): start on \
                     {oldest} or later, or show usage by the day."
                )));
            }
        }
        Ok(View {
            key,
            from,
            to,
            hourly,
        })
    }
}

/// What a view counts: daily rows, or hourly counts.
enum Counted {
    Daily(Vec<UsageCount>),
    Hourly(Vec<HourCount>),
}

/// Reads what `view` counts for the account.
async fn counted(
    dashboard: &Dashboard,
    account: AccountId,
    view: &View,
    now: DateTime<Utc>,
) -> Result<Counted, PageError> {
    let store: Arc<dyn DeveloperStore> = Arc::clone(&dashboard.store);
    let view = view.clone();
    let until = view.until(now);
    blocking(move || {
        if view.hourly {
            let from = start_of(view.from);
            let counts = store.hourly_requests(account, view.key.as_ref(), from, until)?;
            return Ok(Counted::Hourly(counts));
        }
        let rows = store
            .usage(account, view.from)?
            .into_iter()
            .filter(|row| {
                row.day <= view.to && view.key.as_ref().is_none_or(|key| &row.key_id == key)
            })
            .collect();
        Ok(Counted::Daily(rows))
    })
    .await
}

/// `GET /dashboard/usage`.
pub async fn page(
    State(dashboard): State<Arc<Dashboard>>,
    signed_in: SignedIn,
    Query(query): Query<UsageQuery>,
) -> Result<Response, PageError> {
    let now = dashboard.clock.now();
    let log_days = dashboard.config.request_log_days;
    let view = query.view(now.date_naive(), log_days)?;
    let counted = counted(&dashboard, signed_in.account_id, &view, now).await?;
    let store = Arc::clone(&dashboard.store);
    let account = signed_in.account_id;
    let keys = blocking(move || Ok(store.list_keys(account)?)).await?;
    let names: BTreeMap<&str, &str> = keys
        .iter()
        .map(|key| {
            (
                key.key_id.as_str(),
                key.name.as_deref().unwrap_or("(unnamed)"),
            )
        })
        .collect();
    // A key by its name, its id beside it (two keys may share a name).
    let key_label = |key_id: &str| {
        html! {
            (names.get(key_id).copied().unwrap_or("(unnamed)")) " " code.faint { (key_id) }
        }
    };
    let filter = html! {
        form #usage-filter.filters method="get" action="/dashboard/usage" {
            div.field {
                label for="usage-key" { "Key" }
                select #usage-key name="key" {
                    option value="" selected[view.key.is_none()] { "All keys" }
                    @for key in &keys {
                        option value=(key.key_id.as_str()) selected[view.key.as_ref() == Some(&key.key_id)] {
                            (key.name.as_deref().unwrap_or("(unnamed)")) " (" (key.key_id.as_str()) ")"
                        }
                    }
                }
            }
            div.field {
                label for="usage-from" { "From" }
                input #usage-from type="date" name="from" value=(view.from) max=(now.date_naive());
            }
            div.field {
                label for="usage-to" { "To" }
                input #usage-to type="date" name="to" value=(view.to) max=(now.date_naive());
            }
            div.field {
                label for="usage-by" { "By" }
                select #usage-by name="by" {
                    option value="day" selected[!view.hourly] { "Day" }
                    @if log_days > 0 {
                        option value="hour" selected[view.hourly] { "Hour" }
                    }
                }
            }
            button type="submit" { "Show" }
        }
    };
    let tables = match &counted {
        Counted::Hourly(counts) => html! {
            (calls_chart(&by_hour(counts, start_of(view.from), view.until(now))))
            p { a #csv.button href=(view.link("/dashboard/usage.csv")) download { "Download CSV" } }
            h2 { "By hour" }
            div.table-wrap tabindex="0" { table #by-hour {
                thead { tr { th { "Hour (UTC)" } th { "Status" } th.num { "Calls" } } }
                tbody { @for count in counts.iter().rev() {
                    tr { td { (Period::Hour(count.hour)) } td { (count.status) } td.num { (count.count) } }
                } }
            } }
        },
        Counted::Daily(rows) => {
            let mut by_endpoint: BTreeMap<(&str, u16), u64> = BTreeMap::new();
            let mut by_key: BTreeMap<&str, u64> = BTreeMap::new();
            for row in rows {
                *by_endpoint
                    .entry((row.endpoint.as_str(), row.status))
                    .or_default() += row.count;
                *by_key.entry(row.key_id.as_str()).or_default() += row.count;
            }
            html! {
                (calls_chart(&by_day(rows, view.from, view.to)))
                p { a #csv.button href=(view.link("/dashboard/usage.csv")) download { "Download CSV" } }
                h2 { "By endpoint" }
                div.table-wrap tabindex="0" { table #by-endpoint {
                    thead { tr { th { "Endpoint" } th { "Status" } th.num { "Calls" } } }
                    tbody { @for ((endpoint, status), count) in &by_endpoint {
                        tr { td { code { (endpoint) } } td { (status) } td.num { (count) } }
                    } }
                } }
                h2 { "By key" }
                div.table-wrap tabindex="0" { table #by-key {
                    thead { tr { th { "Key" } th.num { "Calls" } } }
                    tbody { @for (key, count) in &by_key {
                        tr { td { a href=(format!("/dashboard/keys/{key}")) { (key_label(key)) } } td.num { (count) } }
                    } }
                } }
                h2 { "By day" }
                div.table-wrap tabindex="0" { table #by-day {
                    thead { tr { th { "Day" } th { "Key" } th { "Endpoint" } th { "Status" } th.num { "Calls" } } }
                    tbody { @for row in rows.iter().rev() {
                        tr { td { (row.day.to_string()) } td { (key_label(row.key_id.as_str())) } td { code { (row.endpoint) } } td { (row.status) } td.num { (row.count) } }
                    } }
                } }
            }
        }
    };
    let content = html! {
        h1 { "Usage" }
        p {
            "Every request made with your keys from " (view.from) " to " (view.to) " (UTC), by the status it got. Only 200 answers cost a credit."
            @if view.hourly { " Hourly counts come from the request log, kept " (log_days) " days." }
        }
        (filter)
        (tables)
    };
    Ok(respond(
        StatusCode::OK,
        "Usage",
        Some(&signed_in.nav()),
        None,
        content,
    ))
}

/// One CSV field, quoted when it holds a separator, a quote or a line break.
fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_owned()
    }
}

/// The rows as CSV: `day,key_id,endpoint,status,calls,last_call_at`.
pub fn to_csv(rows: &[UsageCount]) -> String {
    let mut out = String::from("day,key_id,endpoint,status,calls,last_call_at\n");
    for row in rows {
        out.push_str(&format!(
            "{},{},{},{},{},{}\n",
            row.day,
            csv_field(row.key_id.as_str()),
            csv_field(&row.endpoint),
            row.status,
            row.count,
            forumdex_accounts::time::format_millis(row.last_at)
        ));
    }
    out
}

/// Hourly counts as CSV: `hour,status,calls` (the hour in RFC 3339, UTC).
fn hourly_csv(counts: &[HourCount]) -> String {
    let mut out = String::from("hour,status,calls\n");
    for count in counts {
        out.push_str(&format!(
            "{},{},{}\n",
            forumdex_accounts::time::format_millis(count.hour),
            count.status,
            count.count
        ));
    }
    out
}

/// `GET /dashboard/usage.csv` (the same query as the page).
pub async fn csv(
    State(dashboard): State<Arc<Dashboard>>,
    signed_in: SignedIn,
    Query(query): Query<UsageQuery>,
) -> Result<Response, PageError> {
    let now = dashboard.clock.now();
    let view = query.view(now.date_naive(), dashboard.config.request_log_days)?;
    let body = match counted(&dashboard, signed_in.account_id, &view, now).await? {
        Counted::Daily(rows) => to_csv(&rows),
        Counted::Hourly(counts) => hourly_csv(&counts),
    };
    Ok((
        [
            (header::CONTENT_TYPE, "text/csv; charset=utf-8"),
            (
                header::CONTENT_DISPOSITION,
                "attachment; filename=\"forumdex-usage.csv\"",
            ),
        ],
        body,
    )
        .into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thirty_days_end_today_and_csv_quotes() {
        let now = DateTime::<Utc>::from_timestamp(1_764_000_000, 0).unwrap();
        let key = KeyId::generate();
        let row = |days_ago: i64, status: u16, count: u64| UsageCount {
            key_id: key.clone(),
            day: (now - Duration::days(days_ago)).date_naive(),
            endpoint: "/api/v1/posts/{id}".to_owned(),
            status,
            count,
            last_at: now,
        };
        let rows = vec![
            row(40, 200, 9),
            row(3, 200, 2),
            row(3, 402, 1),
            row(0, 200, 5),
        ];
        let days = days_by_status(&rows, now);
        assert_eq!(days.len(), 30);
        assert_eq!(days.last().unwrap().period, Period::Day(now.date_naive()));
        assert_eq!(days[26].by_status, vec![(200, 2), (402, 1)]);
        assert_eq!(days[29].period, Period::Day(now.date_naive()));
        assert_eq!(calls_since(&rows, now.date_naive()), 5);
        let csv = to_csv(&rows[1..2]);
        assert!(csv.starts_with("day,key_id,endpoint,status,calls,last_call_at\n"));
        assert!(csv.contains(",/api/v1/posts/{id},200,2,"), "{csv}");
        assert_eq!(csv_field("a,b\"c"), "\"a,b\"\"c\"");
    }

    #[test]
    fn ranges_default_check_and_name_what_is_wrong() {
        let today = NaiveDate::from_ymd_opt(2026, 11, 28).unwrap();
        let date = |text: &str| NaiveDate::parse_from_str(text, "%Y-%m-%d").unwrap();
        let query = |from: &str, to: &str, by: &str| UsageQuery {
            key: String::new(),
            from: from.to_owned(),
            to: to.to_owned(),
            by: by.to_owned(),
        };
        let daily = query("", "", "").view(today, 14).unwrap();
        assert_eq!(
            (daily.from, daily.to, daily.hourly),
            (date("2026-10-30"), today, false)
        );
        let hourly = query("", "", "hour").view(today, 14).unwrap();
        assert_eq!(
            (hourly.from, hourly.to, hourly.hourly),
            (date("2026-11-27"), today, true)
        );
        assert_eq!(
            hourly.link("/dashboard/usage.csv"),
            "/dashboard/usage.csv?key=&from=2026-11-27&to=2026-11-28&by=hour"
        );
        let year = query("2025-11-28", "2026-11-28", "day")
            .view(today, 14)
            .unwrap();
        assert_eq!(year.from, date("2025-11-28"));
        let refused = |q: UsageQuery, days: u32| match q.view(today, days) {
            Err(PageError::BadRequest(why)) => why,
            other => panic!("{other:?}"),
        };
        assert!(refused(query("2025-11-27", "2026-11-28", ""), 14).contains("at most 366"));
        assert!(refused(query("2026-11-20", "2026-11-28", "hour"), 14).contains("at most 7"));
        assert!(
            refused(query("2026-11-10", "2026-11-12", "hour"), 14).contains("start on 2026-11-15")
        );
        assert!(refused(query("", "", "hour"), 0).contains("does not keep"));
        assert!(refused(query("2026-11-20", "2026-11-10", ""), 14).contains("starts after"));
        assert!(refused(query("", "2026-11-29", ""), 14).contains("after today"));
        assert!(refused(query("28/11/2026", "", ""), 14).contains("YYYY-MM-DD"));
        assert!(refused(query("", "", "week"), 14).contains("day or hour"));

        let now = today.and_hms_opt(13, 20, 0).unwrap().and_utc();
        assert_eq!(
            hourly.until(now),
            today.and_hms_opt(14, 0, 0).unwrap().and_utc()
        );
        let bars = by_hour(&[], start_of(hourly.from), hourly.until(now));
        assert_eq!(
            bars.len(),
            24 + 14,
            "yesterday's hours and today's until this one"
        );
    }
}
