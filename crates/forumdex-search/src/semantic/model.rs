//! The static semantic model: a word -> vector table (file format `FDXSEM1`, written by
//! `semantic-model/modelfile.py`), and the embedding of a text as the normalised sum of its
//! words' rows. No transformer runs here: a post embeds in microseconds.

use std::collections::HashMap;
use std::path::Path;

use sha2::{Digest, Sha256};

use super::tokenizer::{TOKENIZER_VERSION, tokenize};
use crate::SearchError;

const MAGIC: &[u8; 8] = b"FDXSEM1\0";
const FORMAT_VERSION: u32 = 1;
const HEADER: usize = 32;

/// A loaded model.
pub struct SemanticModel {
    rows: HashMap<String, u32>,
    /// The vocabulary as the file holds it (for [`SemanticModel::to_bytes`]).
    vocab: String,
    dim: usize,
    matrix: Vec<i8>,
    scales: Vec<f32>,
    center: Option<Vec<f32>>,
    version: String,
}

impl std::fmt::Debug for SemanticModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SemanticModel")
            .field("version", &self.version)
            .field("words", &self.rows.len())
            .field("dim", &self.dim)
            .finish_non_exhaustive()
    }
}

/// A text's embedding, quantised: `codes[i] * scale` is the unit vector's component `i`.
#[derive(Debug, Clone, PartialEq)]
pub struct Embedding {
    /// Components scaled so the largest magnitude is 127.
    pub codes: Vec<i8>,
    /// The factor back to the unit vector.
    pub scale: f32,
}

impl SemanticModel {
    /// Reads the model file at `path`.
    pub fn open(path: &Path) -> Result<Self, SearchError> {
        let bytes = std::fs::read(path)
            .map_err(|e| SearchError::Index(format!("semantic model {}: {e}", path.display())))?;
        Self::from_bytes(&bytes)
            .map_err(|e| SearchError::Index(format!("semantic model {}: {e}", path.display())))
    }

    /// Parses a model file's bytes.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, String> {
        if bytes.len() < HEADER || &bytes[..8] != MAGIC {
            return Err("not an FDXSEM1 file".into());
        }
        let word = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"));
        let (format, tokenizer) = (word(8), word(12));
        if format != FORMAT_VERSION || tokenizer != TOKENIZER_VERSION {
            return Err(format!(
                "format {format}, tokenizer {tokenizer}: this build reads format \
                 {FORMAT_VERSION}, tokenizer {TOKENIZER_VERSION}"
            ));
        }
        let (dim, words, flags, vocab_len) = (
            word(16) as usize,
            word(20) as usize,
            word(24),
            word(28) as usize,
        );
        let matrix_at = HEADER + vocab_len + (4 - vocab_len % 4) % 4;
        let scales_at = matrix_at + words * dim;
        let center_at = scales_at + words * 4;
        let end = center_at + if flags & 1 == 1 { dim * 4 } else { 0 };
        if dim == 0 || bytes.len() != end {
            return Err(format!("{} bytes, expected {end}", bytes.len()));
        }
        let vocab = std::str::from_utf8(&bytes[HEADER..HEADER + vocab_len])
            .map_err(|e| format!("vocabulary: {e}"))?;
        let list: Vec<&str> = vocab
            .strip_suffix('\n')
            .unwrap_or(vocab)
            .split('\n')
            .collect();
        if list.len() != words {
            return Err(format!("{} words listed, header says {words}", list.len()));
        }
        let floats = |from: usize, count: usize| -> Vec<f32> {
            bytes[from..from + count * 4]
                .chunks_exact(4)
                .map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes")))
                .collect()
        };
        let digest = Sha256::digest(bytes);
        Ok(Self {
            vocab: vocab.to_owned(),
            rows: list
                .iter()
                .enumerate()
                .map(|(row, w)| ((*w).to_owned(), row as u32))
                .collect(),
            dim,
            matrix: bytes[matrix_at..scales_at]
                .iter()
                .map(|&b| b as i8)
                .collect(),
            scales: floats(scales_at, words),
            center: (flags & 1 == 1).then(|| floats(center_at, dim)),
            version: format!(
                "fdxsem1-{}",
                digest[..4]
                    .iter()
                    .map(|b| format!("{b:02x}"))
                    .collect::<String>()
            ),
        })
    }

    /// `fdxsem1-` and the first 8 hex digits of the file's SHA-256: what vectors made with
    /// this model are labelled with.
    pub fn version(&self) -> &str {
        &self.version
    }

    /// The model file this model was read from, in format 1: byte for byte the same for
    /// every file this build reads and writes (a file with other padding or flag bits gives
    /// other bytes, so the caller compares the [`SemanticModel::version`] of what it wrote).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = MAGIC.to_vec();
        for value in [
            FORMAT_VERSION,
            TOKENIZER_VERSION,
            self.dim as u32,
            self.scales.len() as u32,
            u32::from(self.center.is_some()),
            self.vocab.len() as u32,
        ] {
            out.extend(value.to_le_bytes());
        }
        out.extend(self.vocab.as_bytes());
        out.resize(out.len() + (4 - self.vocab.len() % 4) % 4, 0);
        out.extend(self.matrix.iter().map(|&c| c as u8));
        let floats = self.scales.iter().chain(self.center.iter().flatten());
        for value in floats {
            out.extend(value.to_le_bytes());
        }
        out
    }

    /// Components per vector.
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// The unit vector of `text`: the sum of the rows of its known words (each occurrence),
    /// normalised; `None` when no word of it is known.
    pub fn embed(&self, text: &str) -> Option<Vec<f32>> {
        let mut sum = vec![0f32; self.dim];
        let mut known = false;
        for word in tokenize(text) {
            let Some(&row) = self.rows.get(&word) else {
                continue;
            };
            known = true;
            let row = row as usize;
            let scale = self.scales[row];
            let codes = &self.matrix[row * self.dim..(row + 1) * self.dim];
            for (total, &code) in sum.iter_mut().zip(codes) {
                *total += f32::from(code) * scale;
            }
        }
        if !known {
            return None;
        }
        let mut unit = normalised(sum)?;
        if let Some(center) = &self.center {
            unit.iter_mut().zip(center).for_each(|(x, c)| *x -= c);
            unit = normalised(unit)?;
        }
        Some(unit)
    }

    /// [`SemanticModel::embed`], quantised.
    pub fn embed_quantised(&self, text: &str) -> Option<Embedding> {
        self.embed(text).map(|unit| quantise(&unit))
    }
}

fn normalised(mut v: Vec<f32>) -> Option<Vec<f32>> {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm == 0.0 || !norm.is_finite() {
        return None;
    }
    v.iter_mut().for_each(|x| *x /= norm);
    Some(v)
}

/// `unit` as codes whose largest magnitude is 127, and the scale back.
pub fn quantise(unit: &[f32]) -> Embedding {
    let largest = unit.iter().fold(0f32, |m, x| m.max(x.abs()));
    let scale = if largest > 0.0 { largest / 127.0 } else { 1.0 };
    Embedding {
        codes: unit
            .iter()
            .map(|x| (x / scale).round().clamp(-127.0, 127.0) as i8)
            .collect(),
        scale,
    }
}

/// A model file (format 1, tokenizer 1, no center) of `words` with the vectors `rows`
/// (one per word, all of one length; idf weights already folded in), quantised as
/// `semantic-model/modelfile.py` writes it: for small models made in tests and tools.
pub fn encode(words: &[&str], rows: &[Vec<f32>]) -> Vec<u8> {
    let dim = rows.first().map_or(0, Vec::len);
    let vocab: String = words.iter().map(|w| format!("{w}\n")).collect();
    let mut out = MAGIC.to_vec();
    for value in [1, 1, dim as u32, words.len() as u32, 0, vocab.len() as u32] {
        out.extend(value.to_le_bytes());
    }
    out.extend(vocab.as_bytes());
    out.resize(out.len() + (4 - vocab.len() % 4) % 4, 0);
    let scales: Vec<f32> = rows
        .iter()
        .map(|r| match r.iter().fold(0f32, |m, x| m.max(x.abs())) {
            0.0 => 1.0,
            largest => largest / 127.0,
        })
        .collect();
    for (row, scale) in rows.iter().zip(&scales) {
        out.extend(
            row.iter()
                .map(|x| (x / scale).round().clamp(-127.0, 127.0) as i8 as u8),
        );
    }
    for scale in scales {
        out.extend(scale.to_le_bytes());
    }
    out
}

/// The dot product of two code vectors (the caller applies both scales).
pub fn dot(a: &[i8], b: &[i8]) -> i32 {
    a.iter()
        .zip(b)
        .map(|(&x, &y)| i32::from(x) * i32::from(y))
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tiny() -> SemanticModel {
        let file = encode(
            &["wallet", "кошелек", "payout"],
            &[
                vec![1.0, 0.0, 0.0],
                vec![0.9, 0.1, 0.0],
                vec![0.0, 0.0, 2.0],
            ],
        );
        SemanticModel::from_bytes(&file).expect("valid")
    }

    #[test]
    fn embeds_the_normalised_sum_of_known_words() {
        let model = tiny();
        let unit = model
            .embed("Wallet payout, unknown words")
            .expect("known words");
        let expected = [1.0 / 5f32.sqrt(), 0.0, 2.0 / 5f32.sqrt()];
        for (got, want) in unit.iter().zip(expected) {
            assert!((got - want).abs() < 0.01, "{unit:?}");
        }
        assert_eq!(model.embed("nothing known here"), None);
        assert_eq!(model.dim(), 3);
        assert!(model.version().starts_with("fdxsem1-"));
    }

    #[test]
    fn words_of_two_languages_meet() {
        let model = tiny();
        let en = model.embed_quantised("wallet").expect("known");
        let ru = model.embed_quantised("Кошелек").expect("known");
        let cosine = dot(&en.codes, &ru.codes) as f32 * en.scale * ru.scale;
        assert!(cosine > 0.99, "{cosine}");
    }

    #[test]
    fn a_model_gives_back_the_file_it_was_read_from() {
        let file = encode(&["wallet", "payout"], &[vec![1.0, 0.5], vec![0.0, 2.0]]);
        let model = SemanticModel::from_bytes(&file).expect("valid");
        assert_eq!(model.to_bytes(), file);
        let bundled = std::fs::read(crate::semantic::bundled_model_path()).expect("shipped");
        let model = SemanticModel::from_bytes(&bundled).expect("valid");
        assert!(model.to_bytes() == bundled, "the bundled model's bytes");
    }

    #[test]
    fn refuses_damaged_files() {
        let file = encode(&["a"], &[vec![1.0]]);
        assert!(SemanticModel::from_bytes(&file[..file.len() - 1]).is_err());
        assert!(SemanticModel::from_bytes(b"FDXSEM2\0").is_err());
        let mut other_tokenizer = file.clone();
        other_tokenizer[12] = 2;
        let err = SemanticModel::from_bytes(&other_tokenizer).expect_err("tokenizer 2");
        assert!(err.contains("tokenizer 2"), "{err}");
    }
}
