use std::path::Path;

use forumdex_storage::{RateLimiterKind, StorageKind, StorageSettings};

use super::*;

#[test]
fn defaults_then_file_then_env_then_flags() {
    let defaults = Settings::default();
    assert_eq!(defaults.server.base_url, "http://127.0.0.1:8080");
    assert_eq!(defaults.server.cdn_url, "http://127.0.0.1:8080/cdn");
    assert_eq!(
        defaults.server.topup_url,
        "http://127.0.0.1:8080/dashboard/billing"
    );
    assert_eq!(defaults.server.rate_limit_per_minute, 120);

    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("forumdex.toml");
    std::fs::write(&file, "rate_limit_per_minute = 5\nforum_url = \"https://f.example/\"\ntrusted_proxies = [\"10.0.0.0/8\"]\nsnapshot_seconds = 60\n").unwrap();
    let env = [
        ("FORUMDEX_RATE_LIMIT_PER_MINUTE".to_owned(), "7".to_owned()),
        (
            "FORUMDEX_TRUSTED_PROXIES".to_owned(),
            "127.0.0.1, ::1".to_owned(),
        ),
        ("OTHER".to_owned(), "x".to_owned()),
    ];
    let settings =
        Settings::load(Some(&file), env, &[("listen", "0.0.0.0:9000".to_owned())]).unwrap();
    assert_eq!(settings.server.rate_limit_per_minute, 7);
    assert_eq!(settings.server.forum_url, "https://f.example");
    assert_eq!(settings.server.snapshot_seconds, 60);
    assert_eq!(settings.server.listen, "0.0.0.0:9000".parse().unwrap());
    assert_eq!(settings.server.base_url, "http://0.0.0.0:9000");
    let proxies: Vec<String> = settings
        .server
        .trusted_proxies
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(proxies, ["127.0.0.1/32", "::1/128"]);
}

#[test]
fn storage_is_embedded_in_the_data_folder_unless_set() {
    let data = Path::new("/srv/forumdex");
    let defaults = Settings::default().storage.resolve(data);
    assert_eq!(defaults, StorageSettings::embedded(data));
    assert_eq!(defaults.cursor_secret_file, data.join("cursor-secret"));
    let env = vec![
        ("FORUMDEX_STORAGE".to_owned(), "embedded".to_owned()),
        (
            "FORUMDEX_CURSOR_SECRET_FILE".to_owned(),
            "/etc/forumdex/cursor-secret".to_owned(),
        ),
    ];
    let settings = Settings::load(None, env, &[])
        .unwrap()
        .storage
        .resolve(data);
    assert_eq!(settings.kind, StorageKind::Embedded);
    assert_eq!(
        settings.cursor_secret_file,
        Path::new("/etc/forumdex/cursor-secret")
    );
    assert_eq!(settings.data_dir, data);
    assert_eq!(settings.rate_limiter, RateLimiterKind::Local);

    let env = vec![
        ("FORUMDEX_RATE_LIMITER".to_owned(), "redis".to_owned()),
        (
            "FORUMDEX_REDIS_URL".to_owned(),
            "redis://127.0.0.1:6379/2".to_owned(),
        ),
    ];
    let settings = Settings::load(None, env, &[])
        .unwrap()
        .storage
        .resolve(data);
    assert_eq!(
        settings.rate_limiter,
        RateLimiterKind::Redis {
            url: "redis://127.0.0.1:6379/2".to_owned(),
            prefix: "forumdex:rate:".to_owned(),
            local_fallback: false,
        }
    );
}

#[test]
fn postgres_storage_shares_rate_limits_through_redis_unless_told_otherwise() {
    let data = Path::new("/srv/forumdex");
    let env = |pairs: &[(&str, &str)]| -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    };
    let postgres = [
        ("FORUMDEX_STORAGE", "postgres"),
        (
            "FORUMDEX_DATABASE_URL",
            "postgres://fdx:pw@db:5432/forumdex",
        ),
    ];
    let err = format!(
        "{:#}",
        Settings::load(None, env(&postgres), &[]).unwrap_err()
    );
    assert!(err.contains("redis_url") && err.contains("local"), "{err}");
    assert!(!err.contains("pw@"), "{err}");

    let with_redis = [
        postgres[0],
        postgres[1],
        ("FORUMDEX_REDIS_URL", "redis://r:6379/0"),
    ];
    let settings = Settings::load(None, env(&with_redis), &[]).unwrap();
    assert!(!format!("{settings:?}").contains("pw@"), "{settings:?}");
    let storage = settings.storage.resolve(data);
    assert_eq!(
        storage.kind,
        StorageKind::Postgres {
            url: "postgres://fdx:pw@db:5432/forumdex".to_owned()
        }
    );
    assert_eq!(
        storage.rate_limiter,
        RateLimiterKind::Redis {
            url: "redis://r:6379/0".to_owned(),
            prefix: "forumdex:rate:".to_owned(),
            local_fallback: false,
        }
    );
    let admitting = [
        with_redis[0],
        with_redis[1],
        with_redis[2],
        ("FORUMDEX_RATE_LIMITER_FALLBACK", "local"),
    ];
    let storage = Settings::load(None, env(&admitting), &[])
        .unwrap()
        .storage
        .resolve(data);
    assert_eq!(
        storage.rate_limiter,
        RateLimiterKind::Redis {
            url: "redis://r:6379/0".to_owned(),
            prefix: "forumdex:rate:".to_owned(),
            local_fallback: true,
        }
    );

    let prefixed = [
        with_redis[0],
        with_redis[1],
        with_redis[2],
        ("FORUMDEX_REDIS_PREFIX", "staging:rate:"),
    ];
    let storage = Settings::load(None, env(&prefixed), &[])
        .unwrap()
        .storage
        .resolve(data);
    assert_eq!(
        storage.rate_limiter,
        RateLimiterKind::Redis {
            url: "redis://r:6379/0".to_owned(),
            prefix: "staging:rate:".to_owned(),
            local_fallback: false,
        }
    );
    for bad in ["", "two words", "tab\tbed"] {
        let refused = [
            with_redis[0],
            with_redis[1],
            with_redis[2],
            ("FORUMDEX_REDIS_PREFIX", bad),
        ];
        let err = format!(
            "{:#}",
            Settings::load(None, env(&refused), &[]).unwrap_err()
        );
        assert!(err.contains("redis_prefix must be"), "{bad:?}: {err}");
    }

    let per_node = [postgres[0], postgres[1], ("FORUMDEX_RATE_LIMITER", "local")];
    let storage = Settings::load(None, env(&per_node), &[])
        .unwrap()
        .storage
        .resolve(data);
    assert_eq!(storage.rate_limiter, RateLimiterKind::Local);

    let not_a_url = [postgres[0], ("FORUMDEX_DATABASE_URL", "mysql://db/x")];
    let err = format!(
        "{:#}",
        Settings::load(None, env(&not_a_url), &[]).unwrap_err()
    );
    assert!(err.contains("database_url must be"), "{err}");
}

#[test]
fn port_zero_urls_follow_the_bound_address() {
    let flags = [("listen", "127.0.0.1:0".to_owned())];
    let bound: SocketAddr = "127.0.0.1:4321".parse().unwrap();
    let settings = Settings::load(None, vec![], &flags)
        .unwrap()
        .with_bound_address(bound);
    assert_eq!(settings.server.listen, bound);
    assert_eq!(settings.server.base_url, "http://127.0.0.1:4321");
    assert_eq!(settings.server.cdn_url, "http://127.0.0.1:4321/cdn");
    assert_eq!(
        settings.server.topup_url,
        "http://127.0.0.1:4321/dashboard/billing"
    );

    let env = vec![(
        "FORUMDEX_TOPUP_URL".to_owned(),
        "https://pay.example.com/topup".to_owned(),
    )];
    let settings = Settings::load(None, env, &flags)
        .unwrap()
        .with_bound_address(bound);
    assert_eq!(settings.server.topup_url, "https://pay.example.com/topup");

    let fixed = Settings::default();
    assert_eq!(fixed.clone().with_bound_address(bound), fixed);
}

#[test]
fn bad_values_are_refused_with_the_setting_named() {
    let env = |k: &str, v: &str| vec![(k.to_owned(), v.to_owned())];
    for (k, v, needle) in [
        (
            "FORUMDEX_RATE_LIMIT_PER_MINUTE",
            "lots",
            "FORUMDEX_RATE_LIMIT_PER_MINUTE",
        ),
        (
            "FORUMDEX_RATE_LIMIT_PER_MINUTE",
            "0",
            "rate_limit_per_minute",
        ),
        ("FORUMDEX_SNAPSHOT_SECONDS", "7200", "snapshot_seconds"),
        ("FORUMDEX_TRUSTED_PROXIES", "nope", "not an IP"),
        ("FORUMDEX_FORUM_URL", "ftp://x", "forum_url"),
        ("FORUMDEX_TLS_CERT", "/x.pem", "tls_key"),
        ("FORUMDEX_STORAGE", "cloud", "storage"),
        ("FORUMDEX_STORAGE", "postgres", "database_url"),
        (
            "FORUMDEX_IMAGES_URL",
            "s3://Bucket/images",
            "not a bucket name",
        ),
        (
            "FORUMDEX_IMAGES_URL",
            "https://cdn.example/images",
            "not an image store",
        ),
        ("FORUMDEX_IMAGES_URL", "", "images_url"),
        (
            "FORUMDEX_DATABASE_URL",
            "postgres://db/forumdex",
            "storage = \"postgres\"",
        ),
        ("FORUMDEX_CURSOR_SECRET_FILE", "", "cursor_secret_file"),
        ("FORUMDEX_RATE_LIMITER", "redis", "redis_url"),
        ("FORUMDEX_RATE_LIMITER", "memcached", "rate_limiter"),
        (
            "FORUMDEX_RATE_LIMITER_FALLBACK",
            "admit",
            "rate_limiter_fallback",
        ),
        (
            "FORUMDEX_RATE_LIMITER_FALLBACK",
            "local",
            "rate_limiter_fallback",
        ),
        ("FORUMDEX_CRAWL_INTERVAL_MS", "999", "crawl_interval_ms"),
        ("FORUMDEX_CRAWL_DAILY_BUDGET", "0", "crawl_daily_budget"),
        (
            "FORUMDEX_CREDIT_PACKS",
            "1000 for ten dollars",
            "credit pack",
        ),
        ("FORUMDEX_PAYMENT_PROVIDER", "paypal", "payment_provider"),
        ("FORUMDEX_PAYMENT_PROVIDER", "stripe", "stripe_secret_key"),
        ("FORUMDEX_SESSION_IDLE_SECONDS", "0", "session_idle_seconds"),
        ("FORUMDEX_REQUEST_LOG_DAYS", "366", "request_log_days"),
        ("FORUMDEX_REQUEST_LOG_DAYS", "-1", "request_log_days"),
        ("FORUMDEX_RECEIPT_SELLER", " ", "receipt_seller"),
        ("FORUMDEX_RECEIPT_SELLER", "Forumdex\tLtd", "receipt_seller"),
        ("FORUMDEX_MAIL_FROM", "not an address", "mail_from"),
        ("FORUMDEX_SMTP_URL", "http://mail.example.com", "smtp_url"),
        (
            "FORUMDEX_STRIPE_WEBHOOK_SECRET",
            "",
            "stripe_webhook_secret",
        ),
        ("FORUMDEX_STRIPE_SECRET_KEY", "secret", "stripe_secret_key"),
    ] {
        let err = format!("{:#}", Settings::load(None, env(k, v), &[]).unwrap_err());
        assert!(err.contains(needle), "{k}={v}: {err}");
    }
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("f.toml");
    std::fs::write(&file, "no_such_setting = 1\n").unwrap();
    let err = format!(
        "{:#}",
        Settings::load(Some(&file), vec![], &[]).unwrap_err()
    );
    assert!(err.contains("no_such_setting"), "{err}");
}

#[test]
fn every_setting_has_one_section_and_a_variable_derived_from_it() {
    let names: Vec<&str> = Settings::names().collect();
    let mut unique = names.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), names.len(), "a name owned twice: {names:?}");
    for name in [
        "listen",
        "storage",
        "redis_prefix",
        "crawl_user_agent",
        "smtp_url",
        "credit_packs",
        "signup_credits",
    ] {
        assert!(names.contains(&name), "{name} missing from {names:?}");
    }
    // Each is set by its variable, and whole numbers are read as numbers.
    let env = vec![
        ("FORUMDEX_SIGNUP_CREDITS".to_owned(), "7".to_owned()),
        ("FORUMDEX_CRAWL_DAILY_BUDGET".to_owned(), "9".to_owned()),
        (
            "FORUMDEX_MAX_CONCURRENT_REQUESTS".to_owned(),
            "3".to_owned(),
        ),
        (
            "FORUMDEX_CRAWL_USER_AGENT".to_owned(),
            "ops@example.test".to_owned(),
        ),
        ("FORUMDEX_DATA".to_owned(), "/not/a/setting".to_owned()),
        (
            "FORUMDEX_RECEIPT_SELLER".to_owned(),
            "Forumdex Ltd | 1 Example Street, Lisbon |  | VAT PT123".to_owned(),
        ),
    ];
    let settings = Settings::load(None, env, &[]).unwrap();
    assert_eq!(settings.dashboard.signup_credits, 7);
    assert_eq!(
        settings.dashboard.receipt_seller_lines(),
        ["Forumdex Ltd", "1 Example Street, Lisbon", "VAT PT123"]
    );
    assert_eq!(settings.crawl.crawl_daily_budget, 9);
    assert_eq!(settings.server.max_concurrent_requests, 3);
    assert_eq!(
        settings.crawl.crawl_user_agent.as_deref(),
        Some("ops@example.test")
    );
}

/// Every setting operator-interface.md names is one of ours (scripts depend on the names).
#[test]
fn the_operator_interface_names_are_kept() {
    let spec =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/spec/operator-interface.md");
    let Ok(text) = std::fs::read_to_string(&spec) else {
        eprintln!("skipped: {} is absent", spec.display());
        return;
    };
    let names: Vec<&str> = Settings::names().collect();
    let mut checked = 0;
    for line in text.lines() {
        let Some(first) = line
            .strip_prefix('|')
            .and_then(|rest| rest.split('|').next())
        else {
            continue;
        };
        let cells: Vec<&str> = first.split(',').map(str::trim).collect();
        let all_names = cells.iter().all(|cell| {
            !cell.is_empty()
                && !["name", "command"].contains(cell)
                && cell.bytes().all(|b| b.is_ascii_lowercase() || b == b'_')
        });
        if !all_names {
            continue;
        }
        for cell in cells {
            assert!(names.contains(&cell), "{cell} is not a setting");
            checked += 1;
        }
    }
    assert!(checked >= 20, "only {checked} settings read from the spec");
}

#[test]
fn the_sender_defaults_to_the_host_of_base_url() {
    let settings = Settings::load(
        None,
        vec![(
            "FORUMDEX_BASE_URL".to_owned(),
            "https://api.example.com/x".to_owned(),
        )],
        &[],
    )
    .unwrap();
    let sender = settings
        .dashboard
        .sender(&settings.server.base_url)
        .unwrap();
    assert_eq!(sender.to_string(), "forumdex <no-reply@api.example.com>");
    let by_address = Settings::default();
    let sender = by_address
        .dashboard
        .sender(&by_address.server.base_url)
        .unwrap();
    assert_eq!(sender.email.domain(), "localhost");
}

/// Settings from `FORUMDEX_*` variables only.
fn from_env(vars: &[(&str, &str)]) -> anyhow::Result<Settings> {
    let env = vars
        .iter()
        .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()));
    Settings::load(None, env, &[])
}

#[test]
fn memory_limit_reads_bytes_or_a_unit_and_sizes_threads_and_caches() {
    let defaults = Settings::default().server;
    assert_eq!(defaults.memory_limit, 1536 << 20);
    let cores = std::thread::available_parallelism().map_or(2, |cores| cores.get());
    assert_eq!(defaults.blocking_threads(), (8 * cores).min(48));

    for (text, bytes) in [
        ("1.5GiB", 1536u64 << 20),
        ("512 MiB", 512 << 20),
        ("2G", 2 << 30),
        ("268435456", 256 << 20),
        ("1TiB", 1 << 40),
    ] {
        let settings = from_env(&[("FORUMDEX_MEMORY_LIMIT", text)]).expect(text);
        assert_eq!(settings.server.memory_limit, bytes, "{text}");
    }
    let toml = tempfile::tempdir().unwrap();
    let file = toml.path().join("f.toml");
    std::fs::write(&file, "memory_limit = 1073741824\n").unwrap();
    let settings = Settings::load(Some(&file), vec![], &[]).unwrap();
    assert_eq!(settings.server.memory_limit, 1 << 30);

    // A small limit derives fewer threads and smaller read caches; the default threads
    // follow it rather than being refused.
    let small = from_env(&[("FORUMDEX_MEMORY_LIMIT", "256MiB")])
        .unwrap()
        .server;
    assert_eq!(small.blocking_threads(), (8 * cores).min(8));
    assert!(small.reader_cache_kib() <= 64 << 10);
    assert!(small.reader_cache_kib() >= 2 << 10);
    let set = from_env(&[
        ("FORUMDEX_MEMORY_LIMIT", "1GiB"),
        ("FORUMDEX_MAX_BLOCKING_THREADS", "4"),
    ])
    .unwrap()
    .server;
    assert_eq!(set.blocking_threads(), 4);
    assert_eq!(
        set.reader_cache_kib(),
        64 << 10,
        "a quarter of 1 GiB over 4, capped"
    );
    let many = from_env(&[
        ("FORUMDEX_MEMORY_LIMIT", "1GiB"),
        ("FORUMDEX_MAX_BLOCKING_THREADS", "32"),
    ])
    .unwrap()
    .server;
    assert_eq!(
        many.reader_cache_kib(),
        8 << 10,
        "a quarter of 1 GiB over 32"
    );
}

#[test]
fn memory_limit_sizes_what_an_import_writes_with() {
    let defaults = Settings::default().server;
    assert_eq!(defaults.writer_cache_kib(), 64 << 10, "a 24th of 1.5 GiB");
    assert_eq!(
        defaults.index_writer_bytes(),
        192 << 20,
        "an eighth of 1.5 GiB"
    );
    let small = from_env(&[("FORUMDEX_MEMORY_LIMIT", "256MiB")])
        .unwrap()
        .server;
    assert_eq!(small.index_writer_bytes(), 32 << 20);
    assert!(
        small.index_writer_bytes() >= 15_000_000,
        "the index library's smallest writer budget"
    );
    assert_eq!(small.writer_cache_kib(), (256 << 10) / 24);
}

#[test]
fn a_memory_limit_that_cannot_hold_the_server_is_refused() {
    for (vars, expected) in [
        (
            vec![("FORUMDEX_MEMORY_LIMIT", "100MiB")],
            "memory_limit must be at least 256MiB",
        ),
        (vec![("FORUMDEX_MEMORY_LIMIT", "lots")], "is not a size"),
        (vec![("FORUMDEX_MEMORY_LIMIT", "1.5 PB")], "is not a size"),
        (vec![("FORUMDEX_MEMORY_LIMIT", "-1GiB")], "is not a size"),
        (vec![("FORUMDEX_MEMORY_LIMIT", "0.3")], "is not a size"),
        (
            vec![
                ("FORUMDEX_MEMORY_LIMIT", "512MiB"),
                ("FORUMDEX_MAX_BLOCKING_THREADS", "17"),
            ],
            "max_blocking_threads = 17 does not fit memory_limit = 512 MiB (at most 16",
        ),
        (
            vec![("FORUMDEX_MAX_BLOCKING_THREADS", "0")],
            "max_blocking_threads must be at least 1",
        ),
    ] {
        let err = format!("{:#}", from_env(&vars).unwrap_err());
        assert!(err.contains(expected), "{vars:?}: {err}");
    }
}
