//! Every command honours the storage settings (`--config` file or `FORUMDEX_*`), and a bad
//! one stops a command before it touches the data folder.

use std::process::Command;

use crate::helpers::{fails, json_ok};

#[test]
fn an_unknown_storage_kind_stops_every_command_before_it_writes() {
    let dir = tempfile::tempdir().expect("temp dir");
    let data = dir.path().join("data");
    let config = dir.path().join("forumdex.toml");
    std::fs::write(&config, "storage = \"cloud\"\n").expect("write config");
    let config = config.to_str().expect("utf-8 path");
    for args in [
        &[
            "--config",
            config,
            "accounts",
            "create",
            "--email",
            "a@example.com",
        ][..],
        &["--config", config, "reindex"][..],
        &["keys", "list", "--account", "1", "--config", config][..],
    ] {
        let message = fails(&data, args);
        assert!(message.contains("storage"), "{args:?}: {message}");
    }
    assert!(!data.exists(), "nothing was created");

    let out = Command::new(env!("CARGO_BIN_EXE_forumdex"))
        .args(["--data", data.to_str().expect("utf-8 path"), "--json"])
        .args(["accounts", "create", "--email", "a@example.com"])
        .env("FORUMDEX_STORAGE", "cloud")
        .output()
        .expect("run forumdex");
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("storage"));
    assert!(!data.exists(), "nothing was created");
}

#[test]
fn the_embedded_storage_named_in_a_config_file_is_the_data_folder() {
    let dir = tempfile::tempdir().expect("temp dir");
    let data = dir.path().join("data");
    let config = dir.path().join("forumdex.toml");
    std::fs::write(&config, "storage = \"embedded\"\n").expect("write config");
    let config = config.to_str().expect("utf-8 path");
    let created = json_ok(
        &data,
        &[
            "--config",
            config,
            "accounts",
            "create",
            "--email",
            "a@example.com",
        ],
    );
    assert_eq!(created["credits"], 0);
    assert!(data.join("accounts.sqlite").is_file());
}

#[test]
fn db_commands_need_postgres_and_say_so() {
    let dir = tempfile::tempdir().expect("temp dir");
    let data = dir.path().join("data");
    let message = fails(&data, &["db", "migrate"]);
    assert!(message.contains("storage = \"postgres\""), "{message}");
    let message = fails(&data, &["db", "copy", "--from", "/nonexistent"]);
    assert!(message.contains("storage = \"postgres\""), "{message}");
    assert!(!data.exists(), "nothing was created");

    let config = dir.path().join("forumdex.toml");
    std::fs::write(&config, "storage = \"postgres\"\n").expect("write config");
    let message = fails(
        &data,
        &["--config", config.to_str().unwrap(), "db", "migrate"],
    );
    assert!(message.contains("database_url"), "{message}");
}

/// What a command creates in the data folder is the operator's alone (accounts, key hashes,
/// the corpus, the cursor secret), and a data folder open to other users gets a warning.
#[test]
fn the_data_folder_is_created_owner_only_and_a_shared_one_is_named() {
    use std::os::unix::fs::PermissionsExt;

    let mode = |path: &std::path::Path| {
        std::fs::metadata(path)
            .unwrap_or_else(|err| panic!("{}: {err}", path.display()))
            .permissions()
            .mode()
            & 0o777
    };
    let dir = tempfile::tempdir().expect("temp dir");
    let data = dir.path().join("data");
    json_ok(&data, &["accounts", "create", "--email", "ops@example.com"]);
    assert_eq!(mode(&data), 0o700, "the data folder");
    for entry in std::fs::read_dir(&data).expect("list") {
        let path = entry.expect("entry").path();
        let want = if path.is_dir() { 0o700 } else { 0o600 };
        assert_eq!(mode(&path), want, "{}", path.display());
    }

    let shared = dir.path().join("shared");
    std::fs::create_dir(&shared).expect("create");
    std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let out =
        crate::helpers::forumdex(&shared, &["accounts", "create", "--email", "a@example.com"]);
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("mode 755") && stderr.contains("chmod 700"),
        "{stderr}"
    );
    assert_eq!(mode(&shared.join("accounts.sqlite")), 0o600);
}
