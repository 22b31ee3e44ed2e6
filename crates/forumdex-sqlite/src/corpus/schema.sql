-- Corpus schema, version 1. Every *_versions table holds the versions of one kind that were
-- canonical at some time: a version is visible at sequence S when
-- valid_from <= S AND (valid_to IS NULL OR valid_to > S).

CREATE TABLE IF NOT EXISTS sequences (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    created_at  INTEGER NOT NULL
);

-- Every accepted observation: its identity, when it was seen and which batch brought it.
-- topic_id is a post line's topic (0 for the other kinds). Keyed by topic, then entity: a
-- corpus file lists a topic's posts together, so a batch's observations land in a few runs
-- of pages. Keyed by line hash (earlier releases) or by post ID (a batch's topics span the
-- whole range of post IDs), each one landed on a page of its own, and every commit
-- rewrote most of the table's pages (BENCHMARKS.md, the twelfth round).
CREATE TABLE IF NOT EXISTS observations (
    sha256       BLOB NOT NULL,
    kind         TEXT NOT NULL,
    topic_id     INTEGER NOT NULL,
    entity       TEXT NOT NULL,
    observed_at  INTEGER NOT NULL,
    seq          INTEGER NOT NULL,
    PRIMARY KEY (kind, topic_id, entity, sha256)
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS board_versions (
    vid INTEGER PRIMARY KEY, valid_from INTEGER NOT NULL, valid_to INTEGER,
    observed_at INTEGER NOT NULL, sha256 BLOB NOT NULL, indexed_at INTEGER NOT NULL,
    board_id INTEGER NOT NULL, name TEXT NOT NULL, parent_board_id INTEGER
);
CREATE UNIQUE INDEX IF NOT EXISTS board_current ON board_versions(board_id) WHERE valid_to IS NULL;
CREATE INDEX IF NOT EXISTS board_by_id ON board_versions(board_id, valid_from);
CREATE INDEX IF NOT EXISTS board_superseded ON board_versions(valid_to) WHERE valid_to IS NOT NULL;

CREATE TABLE IF NOT EXISTS profile_versions (
    vid INTEGER PRIMARY KEY, valid_from INTEGER NOT NULL, valid_to INTEGER,
    observed_at INTEGER NOT NULL, sha256 BLOB NOT NULL, indexed_at INTEGER NOT NULL,
    profile_id INTEGER NOT NULL, username TEXT
);
CREATE UNIQUE INDEX IF NOT EXISTS profile_current ON profile_versions(profile_id) WHERE valid_to IS NULL;
CREATE INDEX IF NOT EXISTS profile_by_id ON profile_versions(profile_id, valid_from);
CREATE INDEX IF NOT EXISTS profile_superseded ON profile_versions(valid_to) WHERE valid_to IS NOT NULL;

CREATE TABLE IF NOT EXISTS topic_versions (
    vid INTEGER PRIMARY KEY, valid_from INTEGER NOT NULL, valid_to INTEGER,
    observed_at INTEGER NOT NULL, sha256 BLOB NOT NULL, indexed_at INTEGER NOT NULL,
    topic_id INTEGER NOT NULL, board_id INTEGER, title TEXT NOT NULL,
    views INTEGER, page_count INTEGER
);
CREATE UNIQUE INDEX IF NOT EXISTS topic_current ON topic_versions(topic_id) WHERE valid_to IS NULL;
CREATE INDEX IF NOT EXISTS topic_by_id ON topic_versions(topic_id, valid_from);
CREATE INDEX IF NOT EXISTS topic_superseded ON topic_versions(valid_to) WHERE valid_to IS NOT NULL;

-- sort_at is posted_at in ms, or the smallest integer for undated posts (they sort first).
-- deleted is 1 for a deletion (corpus-format.md, post field `deleted`): served as absent.
CREATE TABLE IF NOT EXISTS post_versions (
    vid INTEGER PRIMARY KEY, valid_from INTEGER NOT NULL, valid_to INTEGER,
    observed_at INTEGER NOT NULL, sha256 BLOB NOT NULL, indexed_at INTEGER NOT NULL,
    post_id INTEGER NOT NULL, topic_id INTEGER NOT NULL, board_id INTEGER,
    post_number INTEGER, is_op INTEGER, title TEXT NOT NULL,
    author_id INTEGER, author_name TEXT NOT NULL,
    posted_at INTEGER, sort_at INTEGER NOT NULL,
    content_html TEXT NOT NULL, language TEXT,
    merit_total INTEGER NOT NULL, merit_distinct INTEGER NOT NULL, merit_tx INTEGER NOT NULL,
    merit_senders TEXT, deleted INTEGER NOT NULL DEFAULT 0
);
-- Unlike the other kinds, posts have no unique index of their current versions: each insert
-- into an index keyed by post ID lands on a page of its own (a batch's topics span the whole
-- range of post IDs), so every such index rewrites most of its pages at every commit; the
-- writer finds a post's current version through post_by_id and checks that it is the only
-- one (write.rs, `supersede`). BENCHMARKS.md, the eleventh round.
CREATE INDEX IF NOT EXISTS post_by_id ON post_versions(post_id, valid_from);
CREATE INDEX IF NOT EXISTS post_by_topic ON post_versions(topic_id, sort_at, post_id);
CREATE INDEX IF NOT EXISTS post_by_author ON post_versions(author_id, sort_at, post_id) WHERE author_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS post_topic_ids ON post_versions(topic_id, post_id);
CREATE INDEX IF NOT EXISTS post_topic_op ON post_versions(topic_id, post_id) WHERE is_op = 1;
CREATE INDEX IF NOT EXISTS post_superseded ON post_versions(valid_to) WHERE valid_to IS NOT NULL;
CREATE INDEX IF NOT EXISTS post_by_valid_from ON post_versions(valid_from, post_id);

CREATE TABLE IF NOT EXISTS image_versions (
    vid INTEGER PRIMARY KEY, valid_from INTEGER NOT NULL, valid_to INTEGER,
    observed_at INTEGER NOT NULL, sha256 BLOB NOT NULL, indexed_at INTEGER NOT NULL,
    source_url TEXT NOT NULL, file TEXT, nsfw_score REAL
);
CREATE UNIQUE INDEX IF NOT EXISTS image_current ON image_versions(source_url) WHERE valid_to IS NULL;
CREATE INDEX IF NOT EXISTS image_by_url ON image_versions(source_url, valid_from);
CREATE INDEX IF NOT EXISTS image_superseded ON image_versions(valid_to) WHERE valid_to IS NOT NULL;
CREATE INDEX IF NOT EXISTS image_by_line ON image_versions(sha256);

-- The AVIF object made from an image record's file, keyed by the record's line hash. Written
-- after the record (encoding is off the import's critical path); absent while pending or
-- when the file was missing or undecodable (a later import retries those).
CREATE TABLE IF NOT EXISTS image_objects (
    line_sha256 BLOB PRIMARY KEY, avif_sha256 TEXT NOT NULL, avif_bytes INTEGER NOT NULL
) WITHOUT ROWID;

-- Takedowns (operator-interface.md, `forumdex takedown`): not versioned with the corpus. A
-- row in force (lifted_at IS NULL) hides its post, topic or profile (with their posts) from
-- every read at every sequence; lifted rows stay as the record of what was done and why.
CREATE TABLE IF NOT EXISTS takedowns (
    takedown_id   INTEGER PRIMARY KEY AUTOINCREMENT,
    kind          TEXT NOT NULL CHECK (kind IN ('post', 'topic', 'profile')),
    entity_id     INTEGER NOT NULL,
    reason        TEXT NOT NULL,
    created_at    INTEGER NOT NULL,
    lifted_at     INTEGER,
    lifted_reason TEXT
);
CREATE UNIQUE INDEX IF NOT EXISTS takedown_in_force ON takedowns(kind, entity_id) WHERE lifted_at IS NULL;

-- Which topics a post or profile takedown in force may hide posts of: the topics of every
-- version of its posts (see takedowns.rs). Rows go when the takedown is lifted.
CREATE TABLE IF NOT EXISTS takedown_topics (
    topic_id INTEGER NOT NULL, takedown_id INTEGER NOT NULL,
    PRIMARY KEY (topic_id, takedown_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS takedown_topics_by_takedown ON takedown_topics(takedown_id);

-- Per-topic statistics over its live posts (visible, not deletions; takedowns not
-- consulted), kept by every import batch for the topics it changed (topic_stats.rs). A
-- topic without live posts has no row.
CREATE TABLE IF NOT EXISTS topic_stat_versions (
    vid INTEGER PRIMARY KEY, valid_from INTEGER NOT NULL, valid_to INTEGER,
    topic_id INTEGER NOT NULL,
    post_count INTEGER NOT NULL, merit_total INTEGER NOT NULL, merit_tx INTEGER NOT NULL,
    merit_distinct_sum INTEGER NOT NULL, merit_unlisted INTEGER NOT NULL,
    last_post_at INTEGER, merit_observed_at INTEGER, merit_listed_senders INTEGER NOT NULL,
    first_post_id INTEGER, latest_post_id INTEGER, board_id INTEGER
);
CREATE UNIQUE INDEX IF NOT EXISTS topic_stat_current ON topic_stat_versions(topic_id) WHERE valid_to IS NULL;
CREATE INDEX IF NOT EXISTS topic_stat_by_id ON topic_stat_versions(topic_id, valid_from);
CREATE INDEX IF NOT EXISTS topic_stat_superseded ON topic_stat_versions(valid_to) WHERE valid_to IS NOT NULL;

-- How many entries of the live posts of each topic name each merit sender, at the newest
-- sequence only (what the next batch's statistics start from; not versioned).
CREATE TABLE IF NOT EXISTS topic_merit_senders (
    topic_id INTEGER NOT NULL, sender_id INTEGER NOT NULL, entries INTEGER NOT NULL,
    PRIMARY KEY (topic_id, sender_id)
) WITHOUT ROWID;

-- One row: the sequence from which every topic with live posts has its statistics (0 for a
-- corpus created with them; the sequence they were backfilled at for an older corpus).
CREATE TABLE IF NOT EXISTS topic_stats_since (seq INTEGER NOT NULL);
