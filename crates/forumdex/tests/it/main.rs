//! Integration tests of the `forumdex` binary: the built executable run as an operator or
//! a script would run it.

mod import_cli;
