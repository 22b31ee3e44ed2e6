//! The client against a real `forumdex` server started by each test (walks, restarts, rate
//! limits, the contract's errors) and against a server that misbehaves on purpose (faults).

mod errors;
mod faults;
mod helpers;
mod operations;
mod rate;
mod walks;
