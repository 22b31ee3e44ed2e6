//! The generator's view of a corpus file, read in one streaming pass: the canonical version of
//! every post (corpus-format.md: latest `observed_at`, ties to the smallest SHA-256 of the
//! line), the distinct tokens of each, their document frequencies, and who quotes whom.
//! Texts are not kept: [`texts`] reads the few that are needed in a second pass.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::BufRead;

use anyhow::Context;
use forumdex_corpus::text::{html_to_search_text, html_to_text};
use forumdex_corpus::{Millis, Observation, Record};
use forumdex_ingest::import::MAX_LINE_BYTES;
use forumdex_ingest::source::Source;

use super::quotes::{QuoteRef, quote_refs};
use super::words::{lowercase_into, query_words, tokens};

/// A canonical post that is served (its canonical version is not a deletion).
#[derive(Debug, Clone)]
pub struct Post {
    /// Forum message ID.
    pub post_id: i64,
    /// Number of the line (from 0) that holds its canonical version.
    pub line: u64,
    /// Its distinct tokens (ids, ascending): searchable content, and the title of an
    /// opening post (the only posts whose title is searched).
    pub words: Box<[u32]>,
    /// Its distinct query words (ids, ascending): words a user would type, not usernames.
    pub query_words: Box<[u32]>,
    /// Tokens in its plain text (its length in words).
    pub length: u32,
}

/// What one pass over a corpus file found.
#[derive(Debug, Default)]
pub struct Corpus {
    /// Every distinct token (lowercase) by id.
    pub vocabulary: Vec<Box<str>>,
    ids: HashMap<Box<str>, u32>,
    /// Posts (of [`Corpus::posts`]) holding each token.
    pub df: Vec<u32>,
    /// Tokens found in some served post's text or title (any post's title: the spelling
    /// dictionary reads every title).
    present: Vec<bool>,
    /// The served canonical posts, by ascending post ID.
    pub posts: Vec<Post>,
    /// Posts (indexes into [`Corpus::posts`]) quoted by others, with the posts quoting them,
    /// for quote headers that name exactly one post.
    pub quoted_by: BTreeMap<u32, Vec<u32>>,
    /// Lines read, and lines that are not valid corpus records (the importer rejects them).
    pub lines: u64,
    /// Lines rejected.
    pub rejected: u64,
}

/// A post's latest observation while the pass runs.
struct Seen {
    observed_at: Millis,
    line_sha256: [u8; 32],
    line: u64,
    deleted: bool,
    topic_id: i64,
    is_op: Option<bool>,
    author: u32,
    posted_at: Option<i64>,
    words: Vec<u32>,
    title_words: Vec<u32>,
    query_words: Vec<u32>,
    length: u32,
    quotes: Vec<QuoteRef>,
}

/// Calls `line` with the number (from 0) and bytes of every line of `source`, without its
/// line terminator, as the importer reads them (lines over its cap are skipped).
pub fn for_each_line(
    source: &Source,
    mut line: impl FnMut(u64, &[u8]) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let mut reader = source.open(|raw| raw)?;
    let mut buf = Vec::new();
    let mut number = 0;
    loop {
        buf.clear();
        let read = reader
            .read_until(b'\n', &mut buf)
            .with_context(|| format!("reading {}", source.display_name()))?;
        if read == 0 {
            return Ok(());
        }
        if buf.last() == Some(&b'\n') {
            buf.pop();
        }
        if buf.last() == Some(&b'\r') {
            buf.pop();
        }
        if buf.len() <= MAX_LINE_BYTES {
            line(number, &buf)?;
        }
        number += 1;
    }
}

impl Corpus {
    /// Reads `source` once (plain, gzip or zstd JSON Lines, corpus format v1).
    pub fn read(source: &Source) -> anyhow::Result<Self> {
        let mut corpus = Self::default();
        let mut authors: HashMap<String, u32> = HashMap::new();
        let mut seen: HashMap<i64, Seen> = HashMap::new();
        for_each_line(source, |number, line| {
            corpus.lines += 1;
            let Ok(observation) = Observation::parse_line(line) else {
                corpus.rejected += 1;
                return Ok(());
            };
            let Record::Post(post) = &observation.record else {
                return Ok(());
            };
            let post_id = post.post_id.get();
            if let Some(old) = seen.get(&post_id) {
                let newer = (
                    observation.observed_at,
                    std::cmp::Reverse(observation.line_sha256),
                ) > (old.observed_at, std::cmp::Reverse(old.line_sha256));
                if !newer {
                    return Ok(());
                }
            }
            let next = authors.len() as u32;
            let author = *authors.entry(post.author_name.clone()).or_insert(next);
            let plain = html_to_text(&post.content_html);
            let entry = Seen {
                observed_at: observation.observed_at,
                line_sha256: observation.line_sha256,
                line: number,
                deleted: post.deleted,
                topic_id: post.topic_id.get(),
                is_op: post.is_op,
                author,
                posted_at: post.posted_at.map(|m| m.0),
                words: corpus.intern_all(tokens(&html_to_search_text(&post.content_html))),
                title_words: corpus.intern_all(tokens(&post.title)),
                query_words: corpus.intern_all(query_words(&plain)),
                length: tokens(&plain).count() as u32,
                quotes: quote_refs(&plain),
            };
            seen.insert(post_id, entry);
            Ok(())
        })?;
        corpus.finish(seen, &authors);
        Ok(corpus)
    }

    /// Ids of the distinct lowercase forms of `words`, ascending.
    fn intern_all<'a>(&mut self, words: impl Iterator<Item = &'a str>) -> Vec<u32> {
        let mut lower = String::new();
        let mut out: Vec<u32> = words
            .map(|word| {
                lowercase_into(word, &mut lower);
                self.intern(&lower)
            })
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    fn intern(&mut self, word: &str) -> u32 {
        if let Some(&id) = self.ids.get(word) {
            return id;
        }
        let id = self.vocabulary.len() as u32;
        self.vocabulary.push(word.into());
        self.ids.insert(word.into(), id);
        id
    }

    /// The id of a lowercase token, when some observation held it.
    pub fn id(&self, word: &str) -> Option<u32> {
        self.ids.get(word).copied()
    }

    /// Whether the lowercase token `word` occurs in some served post (text or any title).
    pub fn occurs(&self, word: &str) -> bool {
        self.id(word).is_some_and(|id| self.present[id as usize])
    }

    /// Keeps the served canonical posts, adds opening posts' titles, counts document
    /// frequencies, drops usernames from query words and resolves quotes.
    fn finish(&mut self, seen: HashMap<i64, Seen>, authors: &HashMap<String, u32>) {
        let mut seen: Vec<(i64, Seen)> = seen.into_iter().filter(|(_, s)| !s.deleted).collect();
        seen.sort_unstable_by_key(|(post_id, _)| *post_id);
        // A missing `is_op` is derived: the smallest served post ID of the topic.
        let mut first_of_topic: HashMap<i64, i64> = HashMap::new();
        for (post_id, s) in &seen {
            first_of_topic.entry(s.topic_id).or_insert(*post_id);
        }
        let usernames: HashSet<u32> = authors
            .keys()
            .filter_map(|name| self.id(&name.to_lowercase()))
            .collect();
        self.df = vec![0; self.vocabulary.len()];
        self.present = vec![false; self.vocabulary.len()];
        let mut by_author_time: HashMap<(u32, i64), Vec<u32>> = HashMap::new();
        let mut quotes = Vec::new();
        for (index, (post_id, s)) in seen.into_iter().enumerate() {
            let index = index as u32;
            for &id in &s.title_words {
                self.present[id as usize] = true;
            }
            let mut words = s.words;
            if s.is_op.unwrap_or(first_of_topic[&s.topic_id] == post_id) {
                words.extend(&s.title_words);
                words.sort_unstable();
                words.dedup();
            }
            for &id in &words {
                self.df[id as usize] += 1;
                self.present[id as usize] = true;
            }
            if let Some(at) = s.posted_at {
                by_author_time
                    .entry((s.author, at))
                    .or_default()
                    .push(index);
            }
            quotes.extend(s.quotes.into_iter().map(|q| (index, q)));
            self.posts.push(Post {
                post_id,
                line: s.line,
                words: words.into(),
                query_words: s
                    .query_words
                    .into_iter()
                    .filter(|id| !usernames.contains(id))
                    .collect(),
                length: s.length,
            });
        }
        for (quoting, quoted) in quotes {
            let Some(&author) = authors.get(&quoted.author) else {
                continue;
            };
            if let Some([target]) = by_author_time
                .get(&(author, quoted.posted_at))
                .map(Vec::as_slice)
                && *target != quoting
            {
                let by = self.quoted_by.entry(*target).or_default();
                if !by.contains(&quoting) {
                    by.push(quoting);
                }
            }
        }
    }

    /// The posts holding every token of `words` (ids), given the posts holding the rarest of
    /// them (`holding_rarest`).
    pub fn holding_all(&self, holding_rarest: &[u32], words: &[u32]) -> Vec<u32> {
        holding_rarest
            .iter()
            .copied()
            .filter(|&p| {
                let have = &self.posts[p as usize].words;
                words.iter().all(|w| have.binary_search(w).is_ok())
            })
            .collect()
    }
}

/// The plain texts of the posts at `lines` (line numbers of canonical versions), read in a
/// second pass over `source`.
pub fn texts(source: &Source, lines: &HashSet<u64>) -> anyhow::Result<HashMap<u64, String>> {
    let mut out = HashMap::with_capacity(lines.len());
    for_each_line(source, |number, line| {
        if !lines.contains(&number) {
            return Ok(());
        }
        let observation = Observation::parse_line(line).map_err(|err| {
            anyhow::anyhow!("line {} changed since the first pass: {err}", number + 1)
        })?;
        if let Record::Post(post) = observation.record {
            out.insert(number, html_to_text(&post.content_html));
        }
        Ok(())
    })?;
    Ok(out)
}
