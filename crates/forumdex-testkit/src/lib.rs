//! Conformance suites for forumdex's storage seams (DESIGN.md "Shape": one suite per trait,
//! run by every implementation). A dev-dependency only: cases panic like tests do.
//!
//! Each suite is a module of named cases plus a macro that expands, inside a module of the
//! caller, to one `#[test]` per case. The macro takes a factory `|dir: &Path| -> Backend`
//! that builds a fresh, empty backend; `dir` is a temporary folder of its own, kept until the
//! case is over (a backend without files ignores it). One line runs a whole suite:
//!
//! ```
//! use forumdex_sqlite::SqliteAccountStore;
//!
//! forumdex_testkit::account_store_conformance!(|dir| {
//!     SqliteAccountStore::open_in(dir).expect("open accounts")
//! });
//! ```
//!
//! - [`accounts`]: `AccountStore` ([`account_store_conformance!`]).
//! - [`developer`]: `DeveloperStore` ([`developer_store_conformance!`]).
//! - [`corpus`]: `CorpusRead` + `CorpusWrite` + `CorpusMaintenance`
//!   ([`corpus_store_conformance!`]).
//! - [`rate`]: `RateLimiter` ([`rate_limiter_conformance!`]).
//! - [`images`]: `ImageObjects` ([`image_objects_conformance!`]).
//!
//! With the `app` feature, `app` is the one test app: a whole API server over a temporary
//! data folder, on the embedded storage or PostgreSQL, for the API's and the client SDK's
//! tests.
//!
//! [`postgres`] starts the real PostgreSQL servers the PostgreSQL backends' tests run on,
//! [`redis`] the Redis servers of the Redis limiter's and the nodes' tests, [`s3`] the real
//! S3-compatible object store the S3 image objects' tests run on.

pub mod accounts;
#[cfg(feature = "app")]
pub mod app;
pub mod corpus;
pub mod developer;
pub mod faults;
pub mod images;
mod keeper;
#[cfg(feature = "app")]
pub mod locks;
pub mod postgres;
pub mod rate;
pub mod redis;
pub mod s3;

use std::cell::RefCell;
use std::path::Path;

use tempfile::TempDir;

/// Makes fresh, empty backends of one kind for a case, each in a temporary folder of its
/// own that lives as long as this value (so drop the backends first: declare them after it,
/// or take it as a parameter).
pub struct Fresh<'a, B> {
    make: Box<dyn Fn(&Path) -> B + 'a>,
    dirs: RefCell<Vec<TempDir>>,
}

impl<'a, B> Fresh<'a, B> {
    /// A factory over `make`, which builds an empty backend from a fresh temporary folder.
    pub fn new(make: impl Fn(&Path) -> B + 'a) -> Self {
        Self {
            make: Box::new(make),
            dirs: RefCell::new(Vec::new()),
        }
    }

    /// A new, empty backend.
    pub fn backend(&self) -> B {
        let dir = tempfile::tempdir().expect("temp dir for a backend");
        let backend = (self.make)(dir.path());
        self.dirs.borrow_mut().push(dir);
        backend
    }
}

/// Expands to `mod $module { #[test] fn $case() { ... } ... }`, each test calling
/// `$suite::$case` with a [`Fresh`] factory over `$make`. The suites' macros use it.
#[doc(hidden)]
#[macro_export]
macro_rules! __conformance_tests {
    ($module:ident, [$($suite:tt)+], $make:expr; $($case:ident),+ $(,)?) => {
        mod $module {
            #[allow(
                unused_imports,
                reason = "the factory names the caller's imports, or none of them"
            )]
            use super::*;
            use $($suite)+ as suite;
            $(
                #[test]
                fn $case() {
                    suite::$case(&$crate::Fresh::new($make));
                }
            )+
        }
    };
}
