//! Corpus inputs: a path (`.jsonl`, `.jsonl.gz`, `.jsonl.zst`) or `-` for stdin, opened as a
//! buffered line reader.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use anyhow::Context;

/// One corpus input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// Standard input (`-`), read as plain JSON Lines.
    Stdin,
    /// A file; its name decides the compression.
    File(PathBuf),
}

/// How a file is compressed, from its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    /// Plain JSON Lines.
    None,
    /// `*.gz`.
    Gzip,
    /// `*.zst`.
    Zstd,
}

impl Source {
    /// `-` is stdin; anything else a file path.
    pub fn from_arg(arg: &Path) -> Self {
        if arg == Path::new("-") {
            Self::Stdin
        } else {
            Self::File(arg.to_path_buf())
        }
    }

    /// The name used in rejection reports (`-` for stdin).
    pub fn display_name(&self) -> String {
        match self {
            Self::Stdin => "-".to_owned(),
            Self::File(path) => path.display().to_string(),
        }
    }

    /// The folder that relative image `file` paths start from.
    pub fn base_dir(&self) -> PathBuf {
        let dir = match self {
            Self::Stdin => PathBuf::from("."),
            Self::File(path) => path
                .parent()
                .map(Path::to_path_buf)
                .unwrap_or_else(|| PathBuf::from(".")),
        };
        let dir = if dir.as_os_str().is_empty() {
            PathBuf::from(".")
        } else {
            dir
        };
        std::path::absolute(&dir).unwrap_or(dir)
    }

    /// The compression implied by the name.
    pub fn compression(&self) -> Compression {
        match self {
            Self::File(path) => match path.extension().and_then(|e| e.to_str()) {
                Some("gz") => Compression::Gzip,
                Some("zst") => Compression::Zstd,
                _ => Compression::None,
            },
            Self::Stdin => Compression::None,
        }
    }

    /// Size on disk, when known (for progress).
    pub fn size_on_disk(&self) -> Option<u64> {
        match self {
            Self::File(path) => std::fs::metadata(path).ok().map(|m| m.len()),
            Self::Stdin => None,
        }
    }

    /// Opens the input; `wrap` sees the raw (still compressed) bytes, e.g. to count them.
    pub fn open(
        &self,
        wrap: impl FnOnce(Box<dyn Read + Send>) -> Box<dyn Read + Send>,
    ) -> anyhow::Result<Box<dyn BufRead + Send>> {
        let raw: Box<dyn Read + Send> = match self {
            Self::Stdin => Box::new(io::stdin()),
            Self::File(path) => Box::new(
                File::open(path).with_context(|| format!("cannot open {}", path.display()))?,
            ),
        };
        let raw = BufReader::with_capacity(1 << 16, wrap(raw));
        let decoded: Box<dyn Read + Send> = match self.compression() {
            Compression::None => Box::new(raw),
            Compression::Gzip => Box::new(flate2::bufread::MultiGzDecoder::new(raw)),
            Compression::Zstd => Box::new(
                zstd::stream::read::Decoder::with_buffer(raw)
                    .with_context(|| format!("cannot start zstd on {}", self.display_name()))?,
            ),
        };
        Ok(Box::new(BufReader::with_capacity(1 << 16, decoded)))
    }
}
