//! `forumdex backup`: an online, consistent copy of an embedded data folder that is itself a
//! data folder (`forumdex --data DIR` opens it; restoring is pointing at it or copying it
//! back).

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use forumdex_images::{ImagesLocation, LocalImageObjects};
use forumdex_sqlite::backup::copy_database;
use forumdex_sqlite::{SqliteAccountStore, SqliteCorpusStore};

use crate::{CURSOR_SECRET_FILE, Storage, StorageKind};

/// What a backup holds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BackupReport {
    /// The databases copied, by path inside the backup (`corpus.sqlite`, ...).
    pub databases: Vec<String>,
    /// Whether the cursor secret was copied (it was there to copy).
    pub cursor_secret: bool,
    /// Image objects copied (none when left out, or when they live in an object store).
    pub image_objects: u64,
    /// Bytes written in all.
    pub bytes: u64,
}

impl Storage {
    /// Copies this embedded data folder into `out` (a new or empty folder) while `serve`,
    /// `import` and `crawl` run: the corpus and accounts databases and the `extra_databases`
    /// (paths inside the data folder, such as the crawl state), each consistent as of one
    /// instant; the cursor secret; and, with `images`, the image objects of a folder
    /// `images_url`. The search indexes are not copied: a node on the backup rebuilds them
    /// from its corpus (or copies another node's with `reindex --from`).
    pub fn backup_embedded(
        &self,
        out: &Path,
        extra_databases: &[&str],
        images: bool,
    ) -> anyhow::Result<BackupReport> {
        if self.settings.kind != StorageKind::Embedded {
            bail!(
                "forumdex backup copies an embedded data folder; back up a PostgreSQL \
                 deployment with pg_dump or point-in-time recovery (README \"Backups\")"
            );
        }
        let data = self.data_dir();
        if !data.join(SqliteAccountStore::FILE_NAME).is_file()
            && !data.join(SqliteCorpusStore::FILE_NAME).is_file()
        {
            bail!("{} holds no data folder to back up", data.display());
        }
        prepare_empty(out)?;
        let mut report = BackupReport::default();
        let databases = [SqliteCorpusStore::FILE_NAME, SqliteAccountStore::FILE_NAME];
        for relative in databases.iter().chain(extra_databases) {
            let from = data.join(relative);
            if !from.is_file() {
                continue;
            }
            let to = out.join(relative);
            if let Some(parent) = to.parent() {
                std::fs::create_dir_all(parent)
                    .with_context(|| format!("creating {}", parent.display()))?;
            }
            report.bytes += copy_database(&from, &to)
                .with_context(|| format!("copying {} into {}", from.display(), to.display()))?;
            report.databases.push((*relative).to_owned());
        }
        let secret = &self.settings.cursor_secret_file;
        if secret.is_file() {
            report.bytes += std::fs::copy(secret, out.join(CURSOR_SECRET_FILE))
                .with_context(|| format!("copying {}", secret.display()))?;
            report.cursor_secret = true;
        }
        if let (true, ImagesLocation::Folder(folder)) = (images, &self.settings.images) {
            let target = out.join(LocalImageObjects::FOLDER);
            let (objects, bytes) = copy_tree(folder, &target)?;
            report.image_objects = objects;
            report.bytes += bytes;
        }
        Ok(report)
    }
}

/// Creates `out`, or accepts it when it is an empty folder; anything else is refused, so a
/// backup never mixes with another.
fn prepare_empty(out: &Path) -> anyhow::Result<()> {
    match std::fs::read_dir(out) {
        Ok(mut entries) => {
            if entries.next().is_some() {
                bail!("{} is not empty: back up into a new folder", out.display());
            }
            Ok(())
        }
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
            std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))
        }
        Err(err) => Err(err).with_context(|| format!("reading {}", out.display())),
    }
}

/// Copies the files below `from` into `to` (the image objects are immutable, named by their
/// content; hidden temporary files are left out); returns the files and bytes copied. A missing `from` copies nothing.
fn copy_tree(from: &Path, to: &Path) -> anyhow::Result<(u64, u64)> {
    let mut pending: Vec<PathBuf> = vec![PathBuf::new()];
    let (mut files, mut bytes) = (0, 0);
    while let Some(relative) = pending.pop() {
        let entries = match std::fs::read_dir(from.join(&relative)) {
            Ok(entries) => entries,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => continue,
            Err(err) => return Err(err).with_context(|| format!("reading {}", from.display())),
        };
        std::fs::create_dir_all(to.join(&relative))
            .with_context(|| format!("creating {}", to.join(&relative).display()))?;
        for entry in entries {
            let entry = entry.with_context(|| format!("reading {}", from.display()))?;
            // An object being written is a hidden temporary file until it is renamed.
            if entry.file_name().to_string_lossy().starts_with('.') {
                continue;
            }
            let path = relative.join(entry.file_name());
            if entry.file_type()?.is_dir() {
                pending.push(path);
            } else {
                bytes += std::fs::copy(from.join(&path), to.join(&path))
                    .with_context(|| format!("copying {}", from.join(&path).display()))?;
                files += 1;
            }
        }
    }
    Ok((files, bytes))
}
