//! The server's clock, passed in rather than read ad hoc, so expiry (cursor idle lifetime,
//! snapshot age, key expiry, rate-limit windows) is testable without sleeping: the
//! workspace's one clock, [`forumdex_clock`].

pub use forumdex_clock::{Clock, ManualClock, SharedClock, SystemClock};
