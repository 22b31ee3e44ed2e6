//! Integration tests of the `forumdex` binary: the built executable run as an operator or
//! a script would run it. One binary, one module per area.

mod accounts;
mod backup_cli;
mod crawl_cli;
mod dashboard_browser;
mod faults;
mod forum;
mod helpers;
mod import_cli;
mod load;
mod nodes;
mod search_cli;
mod serve;
mod storage_cli;
mod takedown_cli;
