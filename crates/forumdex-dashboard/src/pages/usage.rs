//! Usage: calls per day by status, endpoint and key over the last 30 days, and the same rows
//! as CSV. Counts come from the server's usage recorder (every request made with one of the
//! account's keys, whatever its answer; flushed every second).

use std::collections::BTreeMap;
use std::sync::Arc;

use axum::extract::{Query, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use chrono::{DateTime, Duration, NaiveDate, Utc};
use forumdex_accounts::{AccountId, DeveloperStore, KeyId, UsageCount};
use maud::html;
use serde::Deserialize;

use crate::Dashboard;
use crate::chart::{DayCalls, calls_chart};
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
pub fn days_by_status(rows: &[UsageCount], now: DateTime<Utc>) -> Vec<DayCalls> {
    let mut by_day: BTreeMap<NaiveDate, BTreeMap<u16, u64>> = BTreeMap::new();
    for row in rows {
        *by_day
            .entry(row.day)
            .or_default()
            .entry(row.status)
            .or_default() += row.count;
    }
    first_day(now)
        .iter_days()
        .take(DAYS as usize)
        .map(|day| DayCalls {
            day,
            by_status: by_day
                .get(&day)
                .map(|statuses| statuses.iter().map(|(s, n)| (*s, *n)).collect())
                .unwrap_or_default(),
        })
        .collect()
}

/// Total calls on or after `since`.
pub fn calls_since(rows: &[UsageCount], since: NaiveDate) -> u64 {
    rows.iter()
        .filter(|row| row.day >= since)
        .map(|row| row.count)
        .sum()
}

/// `?key=KEY_ID`: one key's usage only (empty: every key's).
#[derive(Debug, Default, Deserialize)]
pub struct UsageQuery {
    #[serde(default)]
    key: String,
}

impl UsageQuery {
    /// The key asked for, refused when it is not a key id.
    fn key(&self) -> Result<Option<KeyId>, PageError> {
        match self.key.as_str() {
            "" => Ok(None),
            text => KeyId::parse(text).map(Some).map_err(|_| {
                PageError::BadRequest(format!(
                    "{text:?} is not a key id: choose one from the list."
                ))
            }),
        }
    }
}

/// The rows of `key` only, when one is asked for.
fn of_key(rows: Vec<UsageCount>, key: Option<&KeyId>) -> Vec<UsageCount> {
    match key {
        Some(key) => rows.into_iter().filter(|row| &row.key_id == key).collect(),
        None => rows,
    }
}

/// `GET /dashboard/usage`.
pub async fn page(
    State(dashboard): State<Arc<Dashboard>>,
    signed_in: SignedIn,
    Query(query): Query<UsageQuery>,
) -> Result<Response, PageError> {
    let wanted = query.key()?;
    let now = dashboard.clock.now();
    let rows = of_key(
        recent_usage(&dashboard, signed_in.account_id, now).await?,
        wanted.as_ref(),
    );
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
    let mut by_endpoint: BTreeMap<(&str, u16), u64> = BTreeMap::new();
    let mut by_key: BTreeMap<&str, u64> = BTreeMap::new();
    for row in &rows {
        *by_endpoint
            .entry((row.endpoint.as_str(), row.status))
            .or_default() += row.count;
        *by_key.entry(row.key_id.as_str()).or_default() += row.count;
    }
    let content = html! {
        h1 { "Usage" }
        p { "Every request made with your keys in the last " (DAYS) " days, by the status it got. Only 200 answers cost a credit." }
        form #usage-filter.inline method="get" action="/dashboard/usage" {
            label for="usage-key" { "Key" }
            select #usage-key name="key" {
                option value="" selected[wanted.is_none()] { "All keys" }
                @for key in &keys {
                    option value=(key.key_id.as_str()) selected[wanted.as_ref() == Some(&key.key_id)] {
                        (key.name.as_deref().unwrap_or("(unnamed)")) " (" (key.key_id.as_str()) ")"
                    }
                }
            }
            button type="submit" { "Show" }
        }
        (calls_chart(&days_by_status(&rows, now)))
        p { a #csv.button href=(format!("/dashboard/usage.csv?key={}", query.key)) download { "Download CSV" } }
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

/// `GET /dashboard/usage.csv` (`?key=KEY_ID`: one key's rows).
pub async fn csv(
    State(dashboard): State<Arc<Dashboard>>,
    signed_in: SignedIn,
    Query(query): Query<UsageQuery>,
) -> Result<Response, PageError> {
    let wanted = query.key()?;
    let now = dashboard.clock.now();
    let rows = of_key(
        recent_usage(&dashboard, signed_in.account_id, now).await?,
        wanted.as_ref(),
    );
    Ok((
        [
            (header::CONTENT_TYPE, "text/csv; charset=utf-8"),
            (
                header::CONTENT_DISPOSITION,
                "attachment; filename=\"forumdex-usage.csv\"",
            ),
        ],
        to_csv(&rows),
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
        assert_eq!(days.last().unwrap().day, now.date_naive());
        assert_eq!(days[26].by_status, vec![(200, 2), (402, 1)]);
        assert_eq!(calls_since(&rows, now.date_naive()), 5);
        let csv = to_csv(&rows[1..2]);
        assert!(csv.starts_with("day,key_id,endpoint,status,calls,last_call_at\n"));
        assert!(csv.contains(",/api/v1/posts/{id},200,2,"), "{csv}");
        assert_eq!(csv_field("a,b\"c"), "\"a,b\"\"c\"");
    }
}
