//! An async client of the forumdex API (contract 1.2.0) that uses it the way the contract
//! asks: it follows `next_cursor` until it is null and never stops on an empty page, starts
//! a walk again on 410 without yielding a post twice, waits for `X-RateLimit-Reset` instead
//! of spending requests on 429s, retries only what is safe (503, connection failures before
//! a response, 429 after the reset) with a bound and jittered backoff, surfaces `topupUrl`,
//! `sourceIp` and the request id in its errors, and never constructs a cursor.
//!
//! Response bodies are the shared wire types of [`forumdex_types`] (re-exported as
//! [`types`]).
//!
//! ```no_run
//! use forumdex_client::{Client, ForumId, TopicPostsOptions};
//! use futures_util::StreamExt;
//!
//! # async fn run() -> Result<(), forumdex_client::Error> {
//! let client = Client::new("https://api.example.com", "fdx_live_...")?;
//! let mut walk = client.walk_topic_posts(ForumId::new(5)?, &TopicPostsOptions::default());
//! while let Some(post) = walk.next().await {
//!     println!("{}", post?.summary.post_id);
//! }
//! let stats = walk.stats();
//! println!("pages {} credits {}", stats.pages, stats.credits);
//! println!("credits left: {:?}", client.credits_remaining());
//! # Ok(())
//! # }
//! ```
//!
//! - [`client`]: [`Client`], [`ClientBuilder`], the metering state ([`Meter`], [`RateLimit`]).
//! - [`options`]: typed options whose constructors enforce the contract's ranges.
//! - [`walk`]: [`Walk`], collections as a `Stream` of posts.
//! - [`error`]: [`Error`], one variant per status, with [`ApiError`] details.
//! - [`clock`]: [`Clock`], the time source and timer (replaceable in tests).

#![forbid(unsafe_code)]

pub mod client;
pub mod clock;
pub mod error;
pub mod options;
pub mod walk;

pub use forumdex_types as types;

pub use client::{Client, ClientBuilder, DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT, Meter, RateLimit};
pub use clock::{Clock, Sleep, SystemClock};
pub use error::{ApiError, Error};
pub use options::{
    DateBound, ForumId, ImageCount, ImageSearchOptions, InvalidOption, Lang, Limit, MAX_ID,
    PageOptions, ProfilePostsOptions, Query, SearchOptions, TopicPostsOptions,
};
pub use walk::{MAX_CONSECUTIVE_RESTARTS, Walk, WalkStats};
