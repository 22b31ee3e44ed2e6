//! The `forumdex` binary: parses the command line and hands over to [`forumdex::run`].

fn main() -> std::process::ExitCode {
    forumdex::run()
}
