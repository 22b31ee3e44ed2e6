//! Collection cursors (DESIGN.md "Cursors"): stateless, opaque
//! `base64url(payload || HMAC-SHA256(payload))`. The payload carries the scope, the
//! effective options, the snapshot (sequence and creation time), the position, when the
//! cursor was issued and the account it belongs to.
//!
//! [`resume`] holds the checks a cursor must pass before a walk continues, in the order
//! DESIGN.md fixes: decode + MAC (400) -> account (400) -> snapshot age (410) -> idle (410)
//! -> collection and options (400).

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use forumdex_corpus::{ListFilters, Millis, Order, Position, Scope, Snapshot};
use hmac::{Hmac, Mac};
use sha2::Sha256;

/// Longest cursor accepted (api-contract.md "Limits").
pub const MAX_CURSOR_CHARS: usize = 4096;
const VERSION: u8 = 1;
const MAC_BYTES: usize = 32;

/// The effective options of a walk: fixed by its first request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WalkOptions {
    /// Whose posts.
    pub scope: Scope,
    /// Which way.
    pub order: Order,
    /// Page size.
    pub limit: u8,
    /// Filters (dates normalized to instants).
    pub filters: ListFilters,
}

/// Everything a cursor says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CursorState {
    /// The walk's options.
    pub options: WalkOptions,
    /// The frozen snapshot.
    pub snapshot: Snapshot,
    /// Where the next page starts.
    pub position: Position,
    /// When this cursor was issued (idle lifetime starts here).
    pub issued_at: Millis,
    /// The account it belongs to.
    pub account_id: i64,
}

/// Why a cursor was refused before its checks of time and options.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum CursorError {
    /// Longer than [`MAX_CURSOR_CHARS`].
    #[error("cursor longer than {MAX_CURSOR_CHARS} characters")]
    TooLong,
    /// Not base64url, wrong size, wrong signature or unknown layout.
    #[error("invalid cursor: use next_cursor exactly as returned")]
    Invalid,
}

impl CursorState {
    /// Signs and encodes the cursor.
    pub fn encode(&self, secret: &[u8; 32]) -> String {
        let mut bytes = self.payload();
        let mac = mac(secret).chain_update(&bytes).finalize().into_bytes();
        bytes.extend_from_slice(&mac);
        URL_SAFE_NO_PAD.encode(bytes)
    }

    /// Decodes and verifies a cursor (constant-time MAC check).
    pub fn decode(text: &str, secret: &[u8; 32]) -> Result<Self, CursorError> {
        if text.len() > MAX_CURSOR_CHARS {
            return Err(CursorError::TooLong);
        }
        let bytes = URL_SAFE_NO_PAD
            .decode(text)
            .map_err(|_| CursorError::Invalid)?;
        if bytes.len() <= MAC_BYTES {
            return Err(CursorError::Invalid);
        }
        let (payload, tag) = bytes.split_at(bytes.len() - MAC_BYTES);
        mac(secret)
            .chain_update(payload)
            .verify_slice(tag)
            .map_err(|_| CursorError::Invalid)?;
        Self::parse_payload(payload).ok_or(CursorError::Invalid)
    }

    fn payload(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(128);
        out.push(VERSION);
        let (kind, id) = match self.options.scope {
            Scope::Topic(id) => (0u8, id),
            Scope::Profile(id) => (1u8, id),
        };
        out.push(kind);
        out.extend_from_slice(&id.to_le_bytes());
        out.push(match self.options.order {
            Order::Asc => 0,
            Order::Desc => 1,
        });
        out.push(self.options.limit);
        let f = &self.options.filters;
        for field in [
            f.date_from.map(|m| m.0),
            f.date_to.map(|m| m.0),
            f.board_id,
            f.author_id,
            f.topic_id,
        ] {
            match field {
                Some(value) => {
                    out.push(1);
                    out.extend_from_slice(&value.to_le_bytes());
                }
                None => out.push(0),
            }
        }
        for value in [
            self.snapshot.seq,
            self.snapshot.taken_at.0,
            self.position.sort_at,
            self.position.post_id,
            self.issued_at.0,
            self.account_id,
        ] {
            out.extend_from_slice(&value.to_le_bytes());
        }
        out
    }

    fn parse_payload(bytes: &[u8]) -> Option<Self> {
        let mut reader = Reader(bytes);
        if reader.u8()? != VERSION {
            return None;
        }
        let kind = reader.u8()?;
        let id = reader.i64()?;
        let scope = match kind {
            0 => Scope::Topic(id),
            1 => Scope::Profile(id),
            _ => return None,
        };
        let order = match reader.u8()? {
            0 => Order::Asc,
            1 => Order::Desc,
            _ => return None,
        };
        let limit = reader.u8()?;
        let mut optional = [None; 5];
        for slot in &mut optional {
            *slot = match reader.u8()? {
                0 => None,
                1 => Some(reader.i64()?),
                _ => return None,
            };
        }
        let [date_from, date_to, board_id, author_id, topic_id] = optional;
        let state = Self {
            options: WalkOptions {
                scope,
                order,
                limit,
                filters: ListFilters {
                    date_from: date_from.map(Millis),
                    date_to: date_to.map(Millis),
                    board_id,
                    author_id,
                    topic_id,
                },
            },
            snapshot: Snapshot {
                seq: reader.i64()?,
                taken_at: Millis(reader.i64()?),
            },
            position: Position {
                sort_at: reader.i64()?,
                post_id: reader.i64()?,
            },
            issued_at: Millis(reader.i64()?),
            account_id: reader.i64()?,
        };
        reader.0.is_empty().then_some(state)
    }
}

/// How long a walk may go on: from its snapshot, and since its last page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lifetimes {
    /// Snapshot lifetime, in milliseconds.
    pub snapshot_ms: i64,
    /// Cursor idle lifetime, in milliseconds.
    pub idle_ms: i64,
}

impl Lifetimes {
    /// When a cursor issued at `now` on `snapshot` expires: the earlier of its idle limit
    /// and its snapshot's.
    pub fn expires_at(&self, snapshot: Snapshot, now: Millis) -> Millis {
        Millis((now.0 + self.idle_ms).min(snapshot.taken_at.0 + self.snapshot_ms))
    }
}

/// Why a cursor cannot resume a walk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum ResumeError {
    /// Too long, or not a cursor this service signed (400).
    #[error(transparent)]
    Malformed(#[from] CursorError),
    /// Issued to another account (400).
    #[error("invalid cursor: it was issued to another account")]
    OtherAccount,
    /// Its snapshot is older than the snapshot lifetime (410).
    #[error("the snapshot of this cursor expired; restart without a cursor")]
    SnapshotExpired,
    /// Unused for longer than the idle lifetime (410).
    #[error("the cursor expired after being idle; restart without a cursor")]
    Idle,
    /// It walks another topic or profile (400).
    #[error("the cursor belongs to a different collection; restart without a cursor")]
    OtherCollection,
    /// Options stated beside it differ from the walk's (400).
    #[error(
        "options differ from the cursor's original ones; repeat them exactly or send the cursor alone"
    )]
    OptionsDiffer,
}

impl ResumeError {
    /// Whether the walk can only restart (410) rather than the request being wrong (400).
    pub fn is_expiry(&self) -> bool {
        matches!(self, Self::SnapshotExpired | Self::Idle)
    }
}

/// Checks `text` for resuming a walk of `scope` by `account_id` at `now`, in the order of the
/// module docs; `agrees` says whether the options stated beside the cursor match the walk's.
pub fn resume(
    text: &str,
    secret: &[u8; 32],
    account_id: i64,
    scope: Scope,
    now: Millis,
    lifetimes: Lifetimes,
    agrees: impl FnOnce(&WalkOptions) -> bool,
) -> Result<CursorState, ResumeError> {
    let state = CursorState::decode(text, secret)?;
    if state.account_id != account_id {
        return Err(ResumeError::OtherAccount);
    }
    if now.0 - state.snapshot.taken_at.0 > lifetimes.snapshot_ms {
        return Err(ResumeError::SnapshotExpired);
    }
    if now.0 - state.issued_at.0 > lifetimes.idle_ms {
        return Err(ResumeError::Idle);
    }
    if state.options.scope != scope {
        return Err(ResumeError::OtherCollection);
    }
    if !agrees(&state.options) {
        return Err(ResumeError::OptionsDiffer);
    }
    Ok(state)
}

fn mac(secret: &[u8; 32]) -> Hmac<Sha256> {
    <Hmac<Sha256> as Mac>::new_from_slice(secret).expect("HMAC takes keys of any length")
}

struct Reader<'a>(&'a [u8]);

impl Reader<'_> {
    fn u8(&mut self) -> Option<u8> {
        let (&first, rest) = self.0.split_first()?;
        self.0 = rest;
        Some(first)
    }

    fn i64(&mut self) -> Option<i64> {
        let (head, rest) = self.0.split_first_chunk::<8>()?;
        self.0 = rest;
        Some(i64::from_le_bytes(*head))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state() -> CursorState {
        CursorState {
            options: WalkOptions {
                scope: Scope::Profile(42),
                order: Order::Desc,
                limit: 7,
                filters: ListFilters {
                    date_from: Some(Millis(1_000)),
                    date_to: None,
                    board_id: Some(3),
                    author_id: None,
                    topic_id: Some(9),
                },
            },
            snapshot: Snapshot {
                seq: 12,
                taken_at: Millis(5_000),
            },
            position: Position {
                sort_at: i64::MIN,
                post_id: 77,
            },
            issued_at: Millis(6_000),
            account_id: 5,
        }
    }

    #[test]
    fn resume_checks_in_the_documented_order() {
        let secret = [7u8; 32];
        let cursor = state();
        let text = cursor.encode(&secret);
        let lifetimes = Lifetimes {
            snapshot_ms: 10_000,
            idle_ms: 2_000,
        };
        let scope = cursor.options.scope;
        let at = |now, account, scope, agrees| {
            resume(
                &text,
                &secret,
                account,
                scope,
                Millis(now),
                lifetimes,
                |_| agrees,
            )
        };
        assert_eq!(at(6_500, 5, scope, true), Ok(cursor));
        assert_eq!(
            resume("!!", &secret, 5, scope, Millis(6_500), lifetimes, |_| true),
            Err(ResumeError::Malformed(CursorError::Invalid))
        );
        // Another account wins over every later check, expiry included.
        assert_eq!(
            at(99_000, 6, Scope::Topic(1), false),
            Err(ResumeError::OtherAccount)
        );
        // Snapshot age (taken at 5 000) before idleness (issued at 6 000).
        assert_eq!(
            at(15_001, 5, Scope::Topic(1), false),
            Err(ResumeError::SnapshotExpired)
        );
        assert_eq!(at(8_001, 5, Scope::Topic(1), false), Err(ResumeError::Idle));
        assert_eq!(
            at(8_000, 5, Scope::Topic(1), false),
            Err(ResumeError::OtherCollection)
        );
        assert_eq!(at(8_000, 5, scope, false), Err(ResumeError::OptionsDiffer));
        assert!(ResumeError::Idle.is_expiry() && !ResumeError::OptionsDiffer.is_expiry());
        assert_eq!(
            lifetimes.expires_at(cursor.snapshot, Millis(6_000)),
            Millis(8_000)
        );
        assert_eq!(
            lifetimes.expires_at(cursor.snapshot, Millis(14_000)),
            Millis(15_000)
        );
    }

    #[test]
    fn round_trips_and_refuses_any_change() {
        let secret = [7u8; 32];
        let text = state().encode(&secret);
        assert!(text.len() < 300);
        assert_eq!(CursorState::decode(&text, &secret), Ok(state()));
        assert_eq!(
            CursorState::decode(&text, &[8u8; 32]),
            Err(CursorError::Invalid)
        );
        let bytes = text.as_bytes();
        for at in 0..bytes.len() {
            let mut flipped = bytes.to_vec();
            flipped[at] = if flipped[at] == b'A' { b'B' } else { b'A' };
            let flipped = String::from_utf8(flipped).unwrap();
            if flipped != text {
                assert_eq!(
                    CursorState::decode(&flipped, &secret),
                    Err(CursorError::Invalid),
                    "position {at}"
                );
            }
        }
        assert_eq!(
            CursorState::decode(&"A".repeat(5000), &secret),
            Err(CursorError::TooLong)
        );
        assert_eq!(CursorState::decode("", &secret), Err(CursorError::Invalid));
        assert_eq!(
            CursorState::decode("!!!", &secret),
            Err(CursorError::Invalid)
        );
    }
}
