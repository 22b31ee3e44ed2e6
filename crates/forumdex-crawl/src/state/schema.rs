//! The embedded crawl state's schema (version 3, `PRAGMA user_version`). Instants are Unix
//! milliseconds (UTC). Its final form is PostgreSQL's `crawl_*` tables (forumdex-postgres's
//! schema version 3), so that one set of statements runs on both.

/// The schema version this code writes.
pub(crate) const SCHEMA_VERSION: i64 = 3;

/// Version 1.
pub(crate) const SCHEMA_V1: &str = "
CREATE TABLE hold (
    id         INTEGER PRIMARY KEY CHECK (id = 1),
    not_before INTEGER NOT NULL
);
CREATE TABLE frontier (
    url        TEXT    PRIMARY KEY,
    kind       TEXT    NOT NULL,
    priority   INTEGER NOT NULL,
    due_at     INTEGER NOT NULL,
    attempts   INTEGER NOT NULL DEFAULT 0,
    state      TEXT    NOT NULL CHECK (state IN ('pending', 'done', 'failed')),
    updated_at INTEGER NOT NULL
);
CREATE INDEX frontier_pending ON frontier (state, priority DESC, due_at, url);
CREATE TABLE fetch_log (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    url        TEXT    NOT NULL,
    fetched_at INTEGER NOT NULL,
    status     INTEGER,
    bytes      INTEGER NOT NULL,
    outcome    TEXT    NOT NULL
);
CREATE TABLE raw_pages (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    url          TEXT    NOT NULL,
    kind         TEXT    NOT NULL,
    fetched_at   INTEGER NOT NULL,
    status       INTEGER NOT NULL,
    content_type TEXT,
    body_zstd    BLOB    NOT NULL,
    imported     INTEGER NOT NULL DEFAULT 0 CHECK (imported IN (0, 1))
);
CREATE INDEX raw_pages_by_time ON raw_pages (fetched_at);
CREATE INDEX raw_pages_unimported ON raw_pages (id) WHERE imported = 0;
CREATE TABLE daily_requests (
    day             TEXT    PRIMARY KEY,
    requests        INTEGER NOT NULL,
    last_request_at INTEGER NOT NULL
);
CREATE TABLE robots (
    origin     TEXT    PRIMARY KEY,
    fetched_at INTEGER NOT NULL,
    status     INTEGER,
    body       BLOB    NOT NULL
);
CREATE TABLE topics (
    topic_id      INTEGER PRIMARY KEY,
    last_post_id  INTEGER NOT NULL,
    last_post_at  INTEGER,
    step          INTEGER NOT NULL,
    next_check_at INTEGER
);
CREATE INDEX topics_due ON topics (next_check_at) WHERE next_check_at IS NOT NULL;
CREATE TABLE posts (
    post_id       INTEGER PRIMARY KEY,
    topic_id      INTEGER NOT NULL,
    posted_at     INTEGER NOT NULL,
    step          INTEGER NOT NULL,
    next_check_at INTEGER
);
CREATE INDEX posts_due ON posts (next_check_at) WHERE next_check_at IS NOT NULL;
";

/// Version 2: the crawl scope a frontier item was queued for (`NULL`: queued before scopes
/// were kept, fetched by any crawl).
pub(crate) const SCHEMA_V2: &str = "ALTER TABLE frontier ADD COLUMN scope TEXT;";

/// Version 3: the tables named as in PostgreSQL, where they share a database with the
/// corpus and the accounts (`crawl_` first); the lookups of a URL's raw pages and of a
/// topic's posts by index.
pub(crate) const SCHEMA_V3: &str = "
ALTER TABLE hold RENAME TO crawl_hold;
ALTER TABLE frontier RENAME TO crawl_frontier;
ALTER TABLE fetch_log RENAME TO crawl_fetch_log;
ALTER TABLE raw_pages RENAME TO crawl_raw_pages;
ALTER TABLE daily_requests RENAME TO crawl_daily_requests;
ALTER TABLE robots RENAME TO crawl_robots;
ALTER TABLE topics RENAME TO crawl_topics;
ALTER TABLE posts RENAME TO crawl_posts;
CREATE INDEX crawl_raw_pages_by_url ON crawl_raw_pages (url, id);
CREATE INDEX crawl_posts_by_topic ON crawl_posts (topic_id, post_id);
";
