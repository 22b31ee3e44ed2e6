//! Integration tests of forumdex-api: the router in-process, real stores in temp folders.

mod search;
