//! `GET /api/v1/topics/{id}/posts` and `/profiles/{id}/posts`: chronological pages of full
//! posts on a frozen snapshot (api-contract.md "Collection rules" and the cursor table).
//!
//! A cursor is checked by [`cursor::resume`] (DESIGN.md "Cursors" order) before the page.

use std::sync::Arc;

use axum::Json;
use axum::extract::{Extension, Path, RawQuery, State};
use chrono::{DateTime, Datelike, NaiveDate};
use forumdex_corpus::{
    ForumId, ListFilters, ListRequest, MAX_ID, Millis, Order, Position, Scope, Snapshot,
    StoreError, parse_canonical,
};
use forumdex_types::{PostList, PostListFilters, PostListObject, PostListScope, ScopeKind};

use crate::app::App;
use crate::cdn;
use crate::cursor::{self, CursorState, Lifetimes, WalkOptions};
use crate::error::{ApiError, blocking};
use crate::pipeline::Caller;
use crate::query::{QueryParams, truncate};
use crate::routes::path_id;
use crate::wire::{self, Links};

/// Default page size.
pub const DEFAULT_LIMIT: u8 = 50;
/// Largest page size.
pub const MAX_LIMIT: u8 = 100;
/// Index entries one page may examine beyond its limit before returning a short page.
const SCAN_BUDGET: usize = 2_000;

const TOPIC_PARAMS: &[&str] = &[
    "limit",
    "order",
    "date_from",
    "date_to",
    "board_id",
    "author_uid",
    "cursor",
];
const PROFILE_PARAMS: &[&str] = &[
    "limit",
    "order",
    "date_from",
    "date_to",
    "board_id",
    "topic_id",
    "cursor",
];

/// listForumTopicPosts.
pub async fn topic_posts(
    State(app): State<Arc<App>>,
    Extension(caller): Extension<Caller>,
    Path(raw_id): Path<String>,
    RawQuery(query): RawQuery,
) -> Result<Json<PostList>, ApiError> {
    if query_has(query.as_deref(), "topic_id") {
        return Err(ApiError::BadRequest(
            "topic_id is accepted on the profile endpoint only".to_owned(),
        ));
    }
    let params = QueryParams::parse(query.as_deref(), TOPIC_PARAMS)?;
    let scope = Scope::Topic(path_id(&raw_id, "topic")?.get());
    page(app, caller, scope, params).await.map(Json)
}

/// listForumProfilePosts.
pub async fn profile_posts(
    State(app): State<Arc<App>>,
    Extension(caller): Extension<Caller>,
    Path(raw_id): Path<String>,
    RawQuery(query): RawQuery,
) -> Result<Json<PostList>, ApiError> {
    if query_has(query.as_deref(), "author_uid") {
        return Err(ApiError::BadRequest(
            "author_uid is accepted on the topic endpoint only".to_owned(),
        ));
    }
    let params = QueryParams::parse(query.as_deref(), PROFILE_PARAMS)?;
    let scope = Scope::Profile(path_id(&raw_id, "profile")?.get());
    page(app, caller, scope, params).await.map(Json)
}

fn query_has(query: Option<&str>, name: &str) -> bool {
    form_urlencoded::parse(query.unwrap_or("").as_bytes()).any(|(n, _)| n == name)
}

/// The options the request states explicitly (`None` where it is silent).
#[derive(Debug, Default)]
struct StatedOptions {
    limit: Option<u8>,
    order: Option<Order>,
    filters: ListFilters,
    any_filter: [bool; 5],
}

impl StatedOptions {
    fn parse(params: &QueryParams) -> Result<Self, ApiError> {
        let mut stated = Self::default();
        if let Some(raw) = params.get("limit") {
            stated.limit = Some(parse_limit(raw)?);
        }
        if let Some(raw) = params.get("order") {
            stated.order = Some(match raw {
                "asc" => Order::Asc,
                "desc" => Order::Desc,
                other => {
                    return Err(ApiError::BadRequest(format!(
                        "invalid order {:?}: expected asc or desc",
                        truncate(other)
                    )));
                }
            });
        }
        let f = &mut stated.filters;
        f.date_from = params
            .get("date_from")
            .map(|raw| parse_date("date_from", raw))
            .transpose()?;
        f.date_to = params
            .get("date_to")
            .map(|raw| parse_date("date_to", raw))
            .transpose()?;
        f.board_id = params
            .get("board_id")
            .map(|raw| filter_id("board_id", raw))
            .transpose()?;
        f.author_id = params
            .get("author_uid")
            .map(|raw| filter_id("author_uid", raw))
            .transpose()?;
        f.topic_id = params
            .get("topic_id")
            .map(|raw| filter_id("topic_id", raw))
            .transpose()?;
        if let (Some(from), Some(to)) = (f.date_from, f.date_to)
            && from >= to
        {
            return Err(ApiError::BadRequest(
                "date_from must be before date_to (date_to is exclusive)".to_owned(),
            ));
        }
        stated.any_filter = ["date_from", "date_to", "board_id", "author_uid", "topic_id"]
            .map(|name| params.get(name).is_some());
        Ok(stated)
    }

    /// The effective options of a first request.
    fn effective(&self, scope: Scope) -> WalkOptions {
        WalkOptions {
            scope,
            order: self.order.unwrap_or(Order::Asc),
            limit: self.limit.unwrap_or(DEFAULT_LIMIT),
            filters: self.filters,
        }
    }

    /// Whether every option stated beside a cursor equals the cursor's.
    fn agrees_with(&self, original: &WalkOptions) -> bool {
        let o = &original.filters;
        let f = &self.filters;
        self.limit.is_none_or(|limit| limit == original.limit)
            && self.order.is_none_or(|order| order == original.order)
            && (!self.any_filter[0] || f.date_from == o.date_from)
            && (!self.any_filter[1] || f.date_to == o.date_to)
            && (!self.any_filter[2] || f.board_id == o.board_id)
            && (!self.any_filter[3] || f.author_id == o.author_id)
            && (!self.any_filter[4] || f.topic_id == o.topic_id)
    }
}

fn parse_limit(raw: &str) -> Result<u8, ApiError> {
    parse_canonical(raw, 1..=u64::from(MAX_LIMIT))
        .map(|limit| limit as u8)
        .ok_or_else(|| {
            ApiError::BadRequest(format!(
                "invalid limit {:?}: expected an integer from 1 to {MAX_LIMIT}",
                truncate(raw)
            ))
        })
}

fn filter_id(name: &str, raw: &str) -> Result<i64, ApiError> {
    ForumId::parse(raw).map(ForumId::get).ok_or_else(|| {
        ApiError::BadRequest(format!(
            "invalid {name} {:?}: expected an integer from 1 to {MAX_ID}",
            truncate(raw)
        ))
    })
}

/// `YYYY-MM-DD` (UTC midnight) or RFC 3339 with an explicit offset and at most three
/// fractional digits.
fn parse_date(name: &str, raw: &str) -> Result<Millis, ApiError> {
    let invalid = || {
        ApiError::BadRequest(format!(
            "invalid {name} {:?}: expected YYYY-MM-DD or an RFC 3339 date-time with a timezone and at most three fractional digits",
            truncate(raw)
        ))
    };
    let at = if raw.len() == 10 {
        let date = NaiveDate::parse_from_str(raw, "%Y-%m-%d").map_err(|_| invalid())?;
        let midnight = date
            .and_hms_opt(0, 0, 0)
            .expect("midnight exists")
            .and_utc();
        Millis::from_datetime(midnight)
    } else {
        let fraction_digits = raw.split_once('.').map_or(0, |(_, rest)| {
            rest.bytes().take_while(u8::is_ascii_digit).count()
        });
        if fraction_digits > 3 || !raw.contains(['T', 't']) {
            return Err(invalid());
        }
        DateTime::parse_from_rfc3339(raw)
            .map(|at| Millis(at.timestamp_millis()))
            .map_err(|_| invalid())?
    };
    // The filters echo the instant in UTC: an offset must not push it out of the years an
    // RFC 3339 timestamp can write (0000-9999), e.g. 9999-12-31T23:00:00-05:00.
    if !(0..=9999).contains(&at.to_datetime().year()) {
        return Err(invalid());
    }
    Ok(at)
}

async fn page(
    app: Arc<App>,
    caller: Caller,
    scope: Scope,
    params: QueryParams,
) -> Result<PostList, ApiError> {
    let stated = StatedOptions::parse(&params)?;
    let now = Millis::now(&*app.clock);
    let lifetimes = Lifetimes {
        snapshot_ms: app.settings.server.snapshot_seconds as i64 * 1000,
        idle_ms: app.settings.server.cursor_idle_seconds as i64 * 1000,
    };
    let account_id = caller.account_id.get();
    let resumed = params
        .get("cursor")
        .map(|text| {
            cursor::resume(
                text,
                &app.cursor_secret,
                account_id,
                scope,
                now,
                lifetimes,
                |original| stated.agrees_with(original),
            )
        })
        .transpose()?;
    let options = resumed.map_or_else(|| stated.effective(scope), |state| state.options);
    let corpus = Arc::clone(&app.corpus);
    let links = app.links.clone();
    let (snapshot, listed) = blocking(move || {
        let (snapshot, after) = match resumed {
            Some(state) => (state.snapshot, Some(state.position)),
            None => (corpus.snapshot(now)?, None),
        };
        // The scope existed at the snapshot of a resumed walk, unless it has been taken down
        // since (takedowns hold at every snapshot): then the walk ends with a 404, never a
        // run of paid empty pages.
        if !corpus.scope_exists(scope, snapshot.seq)? {
            return Ok((snapshot, None));
        }
        let request = ListRequest {
            scope,
            order: options.order,
            filters: options.filters,
            limit: usize::from(options.limit),
            after,
            scan_budget: SCAN_BUDGET + usize::from(options.limit),
        };
        let mut page = corpus.list_posts(&request, snapshot.seq)?;
        cdn::use_cdn_urls(corpus.as_ref(), &links, &mut page.posts, snapshot.seq)?;
        Ok::<_, StoreError>((snapshot, Some(page)))
    })
    .await?;
    let Some(listed) = listed else {
        let (kind, id) = match scope {
            Scope::Topic(id) => ("topic", id),
            Scope::Profile(id) => ("profile", id),
        };
        return Err(ApiError::NotFound(format!("{kind} {id} not found")));
    };
    let expires_at = lifetimes.expires_at(snapshot, now);
    let next_cursor = listed.next.map(|position: Position| {
        CursorState {
            options,
            snapshot,
            position,
            issued_at: now,
            account_id,
        }
        .encode(&app.cursor_secret)
    });
    Ok(post_list(
        &options,
        snapshot,
        expires_at,
        next_cursor,
        &listed.posts,
        &app.links,
    ))
}

fn post_list(
    options: &WalkOptions,
    snapshot: Snapshot,
    expires_at: Millis,
    next_cursor: Option<String>,
    posts: &[forumdex_corpus::PostDoc],
    links: &Links,
) -> PostList {
    let (kind, id) = match options.scope {
        Scope::Topic(id) => (ScopeKind::Topic, id),
        Scope::Profile(id) => (ScopeKind::Profile, id),
    };
    let f = &options.filters;
    PostList {
        object: PostListObject::PostList,
        scope: PostListScope { kind, id },
        order: match options.order {
            Order::Asc => forumdex_types::Order::Asc,
            Order::Desc => forumdex_types::Order::Desc,
        },
        limit: options.limit,
        filters: PostListFilters {
            date_from: f.date_from.map(Millis::to_rfc3339),
            date_to: f.date_to.map(Millis::to_rfc3339),
            board_id: f.board_id,
            author_uid: f.author_id,
            topic_id: f.topic_id,
        },
        snapshot_at: snapshot.taken_at.to_rfc3339(),
        cursor_expires_at: expires_at.to_rfc3339(),
        has_more: next_cursor.is_some(),
        next_cursor,
        data: posts.iter().map(|post| wire::post(post, links)).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_accept_the_two_documented_forms_only() {
        let ok = |raw| parse_date("date_from", raw).unwrap().to_rfc3339();
        assert_eq!(ok("2024-02-29"), "2024-02-29T00:00:00.000Z");
        assert_eq!(ok("2024-02-29T10:00:00+02:00"), "2024-02-29T08:00:00.000Z");
        assert_eq!(ok("2024-02-29T10:00:00.123Z"), "2024-02-29T10:00:00.123Z");
        assert_eq!(ok("0000-01-01"), "0000-01-01T00:00:00.000Z");
        assert_eq!(ok("9999-12-31T23:59:59.999Z"), "9999-12-31T23:59:59.999Z");
        for bad in [
            "2024-02-30",
            "2024-2-29",
            "2024-02-29T10:00:00",
            "2024-02-29T10:00:00.1234Z",
            "yesterday",
            "2024-02-29 10:00:00Z",
            "9999-12-31T23:00:00-05:00",
            "0000-01-01T00:00:00+01:00",
        ] {
            assert!(parse_date("date_from", bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn limits_are_whole_numbers_from_1_to_100() {
        assert_eq!(parse_limit("1").unwrap(), 1);
        assert_eq!(parse_limit("100").unwrap(), 100);
        for bad in ["0", "101", "-1", "+5", "5.0", "1e2", "0100", "07", "abc"] {
            assert!(parse_limit(bad).is_err(), "{bad}");
        }
    }
}
