//! The post vectors of a deployment (`forumdex_corpus::VectorStore`), written once for both
//! backends: table `post_vectors`, one row per model version, post and text digest, the
//! vector as the search crate encodes it.

use std::collections::{HashMap, HashSet};

use forumdex_corpus::vectors::{TEXT_DIGEST_BYTES, VectorKey};

use crate::dialect::Dialect;
use crate::exec::{CellError, Failure, Param, Sql};

/// Posts looked up by one statement (one parameter each).
const LOOKUP_CHUNK: usize = 500;
/// Vectors written by one statement (four parameters each).
const INSERT_CHUNK: usize = 250;

/// `CREATE TABLE` of the vectors, with each dialect's bytes type. Keyed by post first: a
/// lookup is one probe of the key per post whatever the planner knows of the table (keyed by
/// model first, PostgreSQL read every row of the model for each lookup of a table never
/// analysed: 95 ms a lookup at 330,000 rows).
pub fn post_vectors_table(dialect: Dialect) -> String {
    // SQLite keeps the rows in the key's B-tree itself (no rowid table beside it).
    let (int, bytes, clustered) = match dialect {
        Dialect::Sqlite => ("INTEGER", "BLOB", " WITHOUT ROWID"),
        Dialect::Postgres => ("BIGINT", "BYTEA", ""),
    };
    format!(
        "
CREATE TABLE IF NOT EXISTS post_vectors (
    model       TEXT    NOT NULL,
    post_id     {int}   NOT NULL,
    text_digest {bytes} NOT NULL,
    vector      {bytes} NOT NULL,
    PRIMARY KEY (post_id, model, text_digest)
){clustered};
"
    )
}

/// The vectors `model` made for those of `keys` that have one, by key.
pub fn vectors<S: Sql + ?Sized>(
    db: &mut S,
    model: &str,
    keys: &[VectorKey],
) -> Result<HashMap<VectorKey, Vec<u8>>, Failure<CellError, S::Error>> {
    let wanted: HashSet<VectorKey> = keys.iter().copied().collect();
    let mut posts: Vec<i64> = keys.iter().map(|key| key.post_id).collect();
    posts.sort_unstable();
    posts.dedup();
    let mut found = HashMap::with_capacity(keys.len());
    for chunk in posts.chunks(LOOKUP_CHUNK) {
        let sql = format!(
            "SELECT post_id, text_digest, vector FROM post_vectors
             WHERE model = $1 AND post_id IN ({})",
            placeholders(2, chunk.len())
        );
        let mut params = vec![Param::Text(model)];
        params.extend(chunk.iter().map(|&post_id| Param::Int(post_id)));
        for row in db.query(&sql, &params)? {
            let digest: Vec<u8> = row.get(1).map_err(Failure::Refused)?;
            let Ok(text_digest) = <[u8; TEXT_DIGEST_BYTES]>::try_from(digest.as_slice()) else {
                return Err(Failure::Refused(CellError {
                    index: 1,
                    expected: "a 16-byte digest",
                    found: format!("{} bytes", digest.len()),
                }));
            };
            let key = VectorKey {
                post_id: row.get(0).map_err(Failure::Refused)?,
                text_digest,
            };
            if wanted.contains(&key) {
                found.insert(key, row.get(2).map_err(Failure::Refused)?);
            }
        }
    }
    Ok(found)
}

/// Keeps `vectors` made by `model`, leaving a key that has one as it is; how many were new.
pub fn put_vectors<S: Sql + ?Sized>(
    db: &mut S,
    model: &str,
    vectors: &[(VectorKey, Vec<u8>)],
) -> Result<u64, Failure<CellError, S::Error>> {
    let mut new = 0;
    for chunk in vectors.chunks(INSERT_CHUNK) {
        let rows: Vec<String> = (0..chunk.len())
            .map(|row| format!("($1, {})", placeholders(2 + 3 * row, 3)))
            .collect();
        let sql = format!(
            "INSERT INTO post_vectors (model, post_id, text_digest, vector) VALUES {}
             ON CONFLICT DO NOTHING",
            rows.join(", ")
        );
        let mut params = vec![Param::Text(model)];
        for (key, vector) in chunk {
            params.push(Param::Int(key.post_id));
            params.push(Param::Bytes(&key.text_digest));
            params.push(Param::Bytes(vector));
        }
        new += db.execute(&sql, &params)?;
    }
    Ok(new)
}

/// Deletes the vectors of every model but those of `keep` (a retired model's, after a model
/// change); how many were deleted.
pub fn prune_vectors<S: Sql + ?Sized>(
    db: &mut S,
    keep: &[&str],
) -> Result<u64, Failure<CellError, S::Error>> {
    let sql = if keep.is_empty() {
        "DELETE FROM post_vectors".to_owned()
    } else {
        format!(
            "DELETE FROM post_vectors WHERE model NOT IN ({})",
            placeholders(1, keep.len())
        )
    };
    let params: Vec<Param<'_>> = keep.iter().map(|model| Param::Text(model)).collect();
    Ok(db.execute(&sql, &params)?)
}

/// `$first, $first+1, ...`: `count` numbered parameters.
fn placeholders(first: usize, count: usize) -> String {
    (first..first + count)
        .map(|n| format!("${n}"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_are_numbered_from_the_first() {
        assert_eq!(placeholders(2, 3), "$2, $3, $4");
        assert_eq!(placeholders(5, 0), "");
    }
}
