//! The `forumdex` binary: parses the command line and hands over to [`forumdex::run`].

/// mimalloc instead of the system allocator: indexing, search and the request path allocate
/// many short-lived buffers, and glibc's malloc took 10-15% of their CPU (BENCHMARKS.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    forumdex::run()
}
