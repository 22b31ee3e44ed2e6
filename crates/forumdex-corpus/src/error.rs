//! Why a corpus store operation failed: what every backend reports and the API maps to 503.

/// Why a store operation failed.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The store is busy or locked past its wait (retry later; HTTP 503).
    #[error("corpus store busy: {0}")]
    Busy(String),
    /// The store cannot be used (I/O, corruption, read-only folder; HTTP 503).
    #[error("corpus store unavailable: {0}")]
    Unavailable(String),
}
