//! The JSON types clients of the forumdex API see: every response body of api-contract.md
//! and the error body, with `Serialize` and `Deserialize`, and the OpenAPI 3.1 document of
//! the contract ([`OPENAPI`]) they follow. The server builds and serves these values; a
//! client reads them back. Fixed string values (`object`, `order`, `board_scope`,
//! `rank_source`, ...) are enums that serialise to exactly the strings of the contract;
//! timestamps are RFC 3339 strings in UTC with three fractional digits.
//!
//! This crate depends on nothing of the service (no corpus, no server crate), so a client
//! can depend on it alone. A test (`tests/it/drift.rs`) fails when these types and the
//! document's component schemas disagree.
//!
//! - [`resources`]: posts, topics, profiles and their nested objects.
//! - [`collections`]: a page of a collection ([`PostList`]).
//! - [`search`]: post search; [`images`]: image search.
//! - [`error`]: the body of every non-200 response.

#![forbid(unsafe_code)]

pub mod collections;
pub mod error;
pub mod images;
pub mod resources;
pub mod search;

pub use collections::{Order, PostList, PostListFilters, PostListObject, PostListScope, ScopeKind};
pub use error::ErrorBody;
pub use images::{Image, ImageObject, ImageSearchObject, ImageSearchResponse, MimeType};
pub use resources::{
    Author, Board, DerivedFrom, Merit, Post, PostObject, PostSummary, Profile, ProfileCorpus,
    ProfileObject, Topic, TopicObject, Views,
};
pub use search::{BoardScope, DateSource, RankSource, SearchHit, SearchResponse};

/// The OpenAPI 3.1 document of the contract (`crates/forumdex-types/openapi.json`), byte for
/// byte as committed; the server serves it at `GET /api/v1/openapi.json`.
pub const OPENAPI: &str = include_str!("../openapi.json");
