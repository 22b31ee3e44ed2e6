//! Collection cursors (DESIGN.md "Cursors"): stateless, opaque
//! `base64url(payload || HMAC-SHA256(payload))`. The payload carries the scope, the
//! effective options, the snapshot (sequence and creation time), the position, when the
//! cursor was issued and the account it belongs to.

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
