//! A burst of concurrent requests on a real `forumdex serve`: the blocking pool stays within
//! `max_blocking_threads`, or within what `memory_limit` holds when that is not set
//! (asserted on the process's thread count, not on timings), and every request is answered.

use std::path::Path;

use crate::helpers::{imported_folder, json_ok};
use crate::serve::{ServeProcess, get};

/// The process's threads, from `/proc`.
fn threads(pid: u32) -> usize {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("proc status");
    status
        .lines()
        .find_map(|line| line.strip_prefix("Threads:"))
        .and_then(|count| count.trim().parse().ok())
        .expect("a Threads: line")
}

#[test]
fn a_burst_of_requests_never_grows_the_blocking_pool_past_its_bound() {
    burst_within(3, &[("FORUMDEX_MAX_BLOCKING_THREADS", "3")]);
}

#[test]
fn a_burst_stays_within_the_threads_memory_limit_holds() {
    // 256 MiB holds 8 blocking threads of 16 MiB in its half.
    burst_within(8, &[("FORUMDEX_MEMORY_LIMIT", "256MiB")]);
}

/// Starts a server with `env`, sends 48 clients x 4 requests, and checks every request was
/// answered and the process gained at most `bound` threads.
fn burst_within(bound: usize, env: &[(&str, &str)]) {
    if !Path::new("/proc/self/status").exists() {
        eprintln!("skipped: no /proc to count threads in");
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let data = imported_folder(dir.path(), 300, 9);
    json_ok(
        &data,
        &[
            "accounts",
            "create",
            "--email",
            "load@example.com",
            "--credits",
            "100000",
        ],
    );
    let key = json_ok(&data, &["keys", "create", "--account", "1"]);
    let key = key["key"].as_str().expect("a key").to_owned();
    let mut env = env.to_vec();
    env.push(("FORUMDEX_RATE_LIMIT_PER_MINUTE", "1000000"));
    let server = ServeProcess::start_with(&data, &env);
    let (status, _) = get(server.addr, "/api/v1/posts/1", &key).expect("an answer");
    assert!(status == 200 || status == 404, "{status}");
    let before = threads(server.pid());

    let clients = 48;
    let answered: Vec<u16> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..clients)
            .map(|i| {
                let (addr, key) = (server.addr, key.clone());
                scope.spawn(move || {
                    let path = if i % 2 == 0 {
                        "/api/v1/search?q=bitcoin+wallet".to_owned()
                    } else {
                        format!("/api/v1/posts/{}", i + 1)
                    };
                    (0..4)
                        .map(|_| get(addr, &path, &key).expect("an answer").0)
                        .collect::<Vec<u16>>()
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|worker| worker.join().expect("a client"))
            .collect()
    });
    let after = threads(server.pid());
    assert_eq!(answered.len(), clients * 4);
    assert!(
        answered
            .iter()
            .all(|status| [200, 404, 503].contains(status)),
        "{answered:?}"
    );
    assert!(
        after <= before + bound,
        "{after} threads after the burst, {before} before it, blocking pool bound {bound}"
    );
}
