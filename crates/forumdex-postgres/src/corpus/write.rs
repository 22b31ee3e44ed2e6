//! Import batches: record each new observation, and when it wins the canonical rule, close
//! the current version and open a new one at the batch's sequence number. The decisions
//! are the embedded store's, taken observation by observation in the batch's order; only
//! the statements are per batch (which lines are known, the current versions of every key
//! the batch names, the closes and the inserts of each kind: one statement each), not per
//! observation.

use std::cmp::Reverse;
use std::collections::{HashMap, HashSet};

use forumdex_clock::Clock;
use forumdex_corpus::record::{Observation, Record};
use forumdex_corpus::{BatchOutcome, ImageObject, Millis};
use postgres::Transaction;

use super::versions::{Kind, NewVersions};
use super::{Step, takedowns, topic_stats};

/// The key of an entity: a forum ID, or an image's source URL.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Key {
    Id(i64),
    Url(String),
}

/// The entity an observation is of: its kind and key.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Entity {
    kind: Kind,
    key: Key,
}

impl Entity {
    fn of(record: &Record) -> Self {
        let key = match record {
            Record::Board(r) => Key::Id(r.board_id.get()),
            Record::Profile(r) => Key::Id(r.profile_id.get()),
            Record::Topic(r) => Key::Id(r.topic_id.get()),
            Record::Post(r) => Key::Id(r.post_id.get()),
            Record::Image(r) => Key::Url(r.source_url.clone()),
        };
        Self {
            kind: Kind::of(record),
            key,
        }
    }

    /// The key as `observations.entity` keeps it.
    fn key_text(&self) -> String {
        match &self.key {
            Key::Id(id) => id.to_string(),
            Key::Url(url) => url.clone(),
        }
    }
}

/// Applies `observations` in the caller's transaction (which holds the writer lock). A
/// sequence number is taken only when the first new observation appears, so a re-import
/// adds none. `clock` dates the sequence at commit.
pub(super) fn import_batch(
    tx: &mut Transaction<'_>,
    observations: &[Observation],
    now: Millis,
    clock: &dyn Clock,
) -> Step<BatchOutcome> {
    let mut outcome = BatchOutcome::default();
    let fresh = fresh_observations(tx, observations)?;
    outcome.known_observations = observations.len() - fresh.len();
    if fresh.is_empty() {
        return Ok(outcome);
    }
    let seq: i64 = tx
        .query_one(
            "INSERT INTO sequences (seq, created_at)
             SELECT COALESCE(MAX(seq), 0) + 1, $1 FROM sequences RETURNING seq",
            &[&now.0],
        )?
        .get(0);
    outcome.seq = Some(seq);
    insert_observations(tx, &fresh, seq)?;
    outcome.new_observations = fresh.len();
    let mut canonical = Canonical::load(tx, &fresh)?;
    for (index, observation) in fresh.iter().enumerate() {
        if canonical.offer(index, observation) {
            outcome.became_canonical += 1;
        }
    }
    canonical.write(tx, &fresh, seq, now)?;
    topic_stats::update(tx, seq)?;
    takedowns::record_new_versions(tx, seq)?;
    // A snapshot taken while this batch was being written still sees the previous
    // sequence; garbage collection relies on every such snapshot being older than the
    // sequence's creation time, so that time is taken at commit, not at the start.
    let committed_at = now.0.max(Millis::now(clock).0);
    tx.execute(
        "UPDATE sequences SET created_at = $1 WHERE seq = $2",
        &[&committed_at, &seq],
    )?;
    Ok(outcome)
}

/// The observations of the batch not in the corpus yet, in order (a line repeated within
/// the batch counts once, as its later copies find it recorded).
fn fresh_observations<'o>(
    tx: &mut Transaction<'_>,
    observations: &'o [Observation],
) -> Step<Vec<&'o Observation>> {
    let lines: Vec<&[u8]> = observations.iter().map(|o| &o.line_sha256[..]).collect();
    let known: HashSet<Vec<u8>> = tx
        .query(
            "SELECT sha256 FROM observations WHERE sha256 = ANY($1)",
            &[&lines],
        )?
        .iter()
        .map(|row| row.get(0))
        .collect();
    let mut seen = HashSet::new();
    Ok(observations
        .iter()
        .filter(|o| !known.contains(&o.line_sha256[..]) && seen.insert(o.line_sha256))
        .collect())
}

fn insert_observations(tx: &mut Transaction<'_>, fresh: &[&Observation], seq: i64) -> Step<()> {
    let entities: Vec<Entity> = fresh.iter().map(|o| Entity::of(&o.record)).collect();
    let lines: Vec<&[u8]> = fresh.iter().map(|o| &o.line_sha256[..]).collect();
    let kinds: Vec<&str> = entities.iter().map(|e| e.kind.name()).collect();
    let keys: Vec<String> = entities.iter().map(Entity::key_text).collect();
    let observed: Vec<i64> = fresh.iter().map(|o| o.observed_at.0).collect();
    tx.execute(
        "INSERT INTO observations (sha256, kind, entity, observed_at, seq)
         SELECT *, $5 FROM unnest($1::BYTEA[], $2::TEXT[], $3::TEXT[], $4::BIGINT[])",
        &[&lines, &kinds, &keys, &observed, &seq],
    )?;
    Ok(())
}

/// Who holds the canonical place of an entity while the batch is decided, and its sort key
/// under the canonical rule.
#[derive(Debug)]
struct Holder {
    /// A stored version (its `vid`, current before the batch), or the index of a fresh
    /// observation of the batch.
    place: Place,
    observed_at: i64,
    sha256: Vec<u8>,
}

#[derive(Debug, Clone, Copy)]
enum Place {
    Stored(i64),
    Fresh(usize),
}

/// The canonical rule applied to a batch: the current holder of each entity it names,
/// the stored versions it retires and the fresh observations that stay canonical.
struct Canonical {
    holders: HashMap<Entity, Holder>,
    retired: HashMap<Kind, Vec<i64>>,
    winners: Vec<bool>,
}

impl Canonical {
    /// The current versions of every entity `fresh` names, in one query per kind.
    fn load(tx: &mut Transaction<'_>, fresh: &[&Observation]) -> Step<Self> {
        let mut ids: HashMap<Kind, HashSet<i64>> = HashMap::new();
        let mut urls: HashSet<&str> = HashSet::new();
        for observation in fresh {
            match &observation.record {
                Record::Image(r) => {
                    urls.insert(&r.source_url);
                }
                record => {
                    if let Key::Id(id) = Entity::of(record).key {
                        ids.entry(Kind::of(record)).or_default().insert(id);
                    }
                }
            }
        }
        let mut holders = HashMap::new();
        for (kind, ids) in ids {
            let ids: Vec<i64> = ids.into_iter().collect();
            load_current(tx, kind, &ids, &mut holders, |row| Key::Id(row.get(0)))?;
        }
        if !urls.is_empty() {
            let urls: Vec<&str> = urls.into_iter().collect();
            load_current(tx, Kind::Image, &urls, &mut holders, |row| {
                Key::Url(row.get(0))
            })?;
        }
        Ok(Self {
            holders,
            retired: HashMap::new(),
            winners: vec![false; fresh.len()],
        })
    }

    /// Decides the canonical rule (latest `observed_at`, then the smallest line SHA-256)
    /// for fresh observation `index` against its entity's holder; when it wins, the holder
    /// is retired (a stored version is closed, a fresh one never becomes a version).
    fn offer(&mut self, index: usize, observation: &Observation) -> bool {
        let entity = Entity::of(&observation.record);
        let wins = self.holders.get(&entity).is_none_or(|holder| {
            (
                observation.observed_at.0,
                Reverse(&observation.line_sha256[..]),
            ) > (holder.observed_at, Reverse(&holder.sha256[..]))
        });
        if !wins {
            return false;
        }
        let kind = entity.kind;
        let challenger = Holder {
            place: Place::Fresh(index),
            observed_at: observation.observed_at.0,
            sha256: observation.line_sha256.to_vec(),
        };
        match self.holders.insert(entity, challenger).map(|h| h.place) {
            Some(Place::Stored(vid)) => self.retired.entry(kind).or_default().push(vid),
            Some(Place::Fresh(previous)) => self.winners[previous] = false,
            None => {}
        }
        self.winners[index] = true;
        true
    }

    /// Closes the retired versions at `seq` and inserts the winners, valid from `seq`.
    fn write(
        &self,
        tx: &mut Transaction<'_>,
        fresh: &[&Observation],
        seq: i64,
        now: Millis,
    ) -> Step<()> {
        for (kind, vids) in &self.retired {
            tx.execute(
                &format!(
                    "UPDATE {} SET valid_to = $1 WHERE vid = ANY($2)",
                    kind.table()
                ),
                &[&seq, vids],
            )?;
        }
        let winners: Vec<&Observation> = fresh
            .iter()
            .zip(&self.winners)
            .filter(|(_, wins)| **wins)
            .map(|(o, _)| *o)
            .collect();
        let versions = NewVersions { seq, now };
        versions.boards(tx, &winners)?;
        versions.profiles(tx, &winners)?;
        versions.topics(tx, &winners)?;
        versions.posts(tx, &winners)?;
        versions.images(tx, &winners)
    }
}

/// Adds to `holders` the current versions of `kind` whose keys are among `keys`.
fn load_current<K: postgres::types::ToSql + Sync>(
    tx: &mut Transaction<'_>,
    kind: Kind,
    keys: &[K],
    holders: &mut HashMap<Entity, Holder>,
    key_of: impl Fn(&postgres::Row) -> Key,
) -> Step<()> {
    let rows = tx.query(
        &format!(
            "SELECT {key}, vid, observed_at, sha256 FROM {table}
             WHERE {key} = ANY($1) AND valid_to IS NULL",
            key = kind.key_column(),
            table = kind.table()
        ),
        &[&keys],
    )?;
    for row in &rows {
        let entity = Entity {
            kind,
            key: key_of(row),
        };
        let holder = Holder {
            place: Place::Stored(row.get(1)),
            observed_at: row.get(2),
            sha256: row.get(3),
        };
        holders.insert(entity, holder);
    }
    Ok(())
}

/// Records image objects (the caller holds the writer lock; a re-recorded line keeps its
/// first object: the same file always encodes the same way).
pub(super) fn record_image_objects(
    tx: &mut Transaction<'_>,
    objects: &[(Vec<u8>, ImageObject)],
) -> Step<()> {
    let lines: Vec<&[u8]> = objects.iter().map(|(line, _)| &line[..]).collect();
    let hashes: Vec<&str> = objects.iter().map(|(_, o)| o.sha256.as_str()).collect();
    let sizes: Vec<i64> = objects
        .iter()
        .map(|(_, o)| i64::try_from(o.bytes).unwrap_or(i64::MAX))
        .collect();
    tx.execute(
        "INSERT INTO image_objects (line_sha256, avif_sha256, avif_bytes)
         SELECT line_sha256, avif_sha256, avif_bytes
         FROM unnest($1::BYTEA[], $2::TEXT[], $3::BIGINT[]) WITH ORDINALITY
           AS u(line_sha256, avif_sha256, avif_bytes, ordinal)
         ORDER BY u.ordinal
         ON CONFLICT (line_sha256) DO NOTHING",
        &[&lines, &hashes, &sizes],
    )?;
    Ok(())
}

/// Deletes versions retired by a sequence committed before `horizon`: every snapshot that
/// could see them was taken before that sequence, so it is older than the horizon. Retired
/// topic statistics go the same way, uncounted (they are derived, not versions of documents).
/// The caller holds the collector's lock.
pub(super) fn collect_garbage(tx: &mut Transaction<'_>, horizon: Millis) -> Step<usize> {
    let retired_by: Option<i64> = tx
        .query_one(
            "SELECT MAX(seq) FROM sequences WHERE created_at < $1",
            &[&horizon.0],
        )?
        .get(0);
    let Some(seq) = retired_by else {
        return Ok(0);
    };
    let mut deleted = 0;
    for table in forumdex_sql::VERSION_TABLES {
        deleted += tx.execute(
            &format!("DELETE FROM {table} WHERE valid_to IS NOT NULL AND valid_to <= $1"),
            &[&seq],
        )?;
    }
    tx.execute(
        "DELETE FROM topic_stat_versions WHERE valid_to IS NOT NULL AND valid_to <= $1",
        &[&seq],
    )?;
    // Objects of image records no version refers to any more (the object files stay:
    // other records may share them, and they are content-addressed).
    tx.execute(
        "DELETE FROM image_objects o WHERE NOT EXISTS
           (SELECT 1 FROM image_versions v WHERE v.sha256 = o.line_sha256)",
        &[],
    )?;
    Ok(usize::try_from(deleted).unwrap_or(usize::MAX))
}
