//! The cursor secret file: 64 hex digits, created owner-only on first use.

use std::path::Path;

use anyhow::Context;

/// The 32-byte secret in `path`, created (hex, mode 0600) when the file does not exist.
pub fn load_or_create(path: &Path) -> anyhow::Result<[u8; 32]> {
    match std::fs::read_to_string(path) {
        Ok(text) => {
            parse(&text).with_context(|| format!("{} does not hold 64 hex digits", path.display()))
        }
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
            let secret: [u8; 32] = rand::random();
            if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
                std::fs::create_dir_all(parent)
                    .with_context(|| format!("cannot create {}", parent.display()))?;
            }
            write_private(path, &hex::encode(secret))
                .with_context(|| format!("cannot write {}", path.display()))?;
            Ok(secret)
        }
        Err(err) => Err(err).with_context(|| format!("cannot read {}", path.display())),
    }
}

fn parse(text: &str) -> Option<[u8; 32]> {
    hex::decode(text.trim())
        .ok()
        .and_then(|bytes| <[u8; 32]>::try_from(bytes).ok())
}

fn write_private(path: &Path, text: &str) -> std::io::Result<()> {
    use std::io::Write;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options.open(path)?.write_all(text.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_malformed_file_is_refused_not_replaced() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("cursor-secret");
        std::fs::write(&path, "not hex").expect("write");
        let err = format!("{:#}", load_or_create(&path).unwrap_err());
        assert!(err.contains("64 hex digits"), "{err}");
        assert_eq!(std::fs::read_to_string(&path).expect("read"), "not hex");
    }
}
