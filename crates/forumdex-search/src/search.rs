//! Post search: BM25 over `content` plus, for opening posts, a title match worth `1.5 x IDF`
//! per term (replies repeat the topic's title, so theirs is not searched), then a re-rank of the best
//! [`RERANK_DEPTH`] matches of each searched index.
//!
//! - **Languages.** `lang` selects the index of its two-letter base (`pt-BR` -> `pt`); a
//!   language without an index gives zero hits. Without `lang` every index is searched
//!   (posts of unknown language included) and the matches are merged by score; BM25 scores
//!   of different indexes are comparable only roughly (each has its own term statistics).
//! - **Quality.** Low-quality replies (see [`crate::quality`]) are left out, and not counted
//!   in `total`, unless `include_low_quality` is set. Every hit's score is multiplied by
//!   `0.75 + 0.5 * health_score`.
//! - **Freshness** (requested, or detected from words like "latest", "news", "today" or a year
//!   such as "2024"): scores are multiplied by `0.3 + 0.7 * 0.5^(age / 180 days)`, the age
//!   counted from the newest candidate, so an archive corpus still orders by recency.
//! - **Answer seeking** ("how do I", "what is", a trailing "?"): replies get `x1.5`, so
//!   answers come before the question post.
//! - **Spelling.** When the query as typed finds fewer than [`FEW_HITS`] posts, each rare word
//!   (document frequency <= 2, at least 4 letters) is replaced by the most frequent word of
//!   the index's own dictionary within Levenshtein distance 1 (2 for words of 8+ letters) that
//!   is at least 10 times as frequent; when that query finds at least as many posts (and
//!   some), its hits are returned with `corrected_query`. When the original already found enough, the better query is only
//!   suggested as `did_you_mean`.
//! - **Order** is by final score, ties by post ID, so equal inputs give equal outputs.

use std::collections::hash_map::Entry;
use std::collections::{BTreeMap, HashMap};
use std::ops::Range;
use std::sync::Arc;

use forumdex_corpus::{LangCode, Millis, TakedownSet};
use tantivy::collector::{Count, TopDocs};
use tantivy::columnar::Column;
use tantivy::query::{
    BooleanQuery, BoostQuery, ConstScoreQuery, FuzzyTermQuery, Occur, Query, TermQuery,
};
use tantivy::schema::{Field, IndexRecordOption, Value};
use tantivy::snippet::SnippetGenerator;
use tantivy::{DocAddress, Searcher, TantivyDocument, Term};

use crate::SearchError;
use crate::analysis::{self, TEXT_ANALYZER};
use crate::index::{Fields, LangIndex, SearchIndexes};

/// Version of the ranking formula, reported with every hit.
pub const RANKING_MODEL_VERSION: &str = "fdx-rank-1";
/// Matches per index that are re-ranked.
pub const RERANK_DEPTH: usize = 300;
/// Below this many matches a spelling correction is tried.
pub const FEW_HITS: u64 = 5;
/// Hits returned.
pub const DEFAULT_LIMIT: usize = 20;
/// Score of a title match, times the term's IDF (a content match scores at most about
/// `2.2 x IDF` in BM25).
const TITLE_WEIGHT: f64 = 1.5;
/// Half-life of the freshness decay, in days.
const HALF_LIFE_DAYS: f64 = 180.0;
/// Factor of replies when the query is a question.
pub const ANSWER_BOOST: f64 = 1.5;
const DAY_MS: f64 = 86_400_000.0;

/// A validated search.
#[derive(Debug, Clone)]
pub struct SearchRequest {
    /// The query as typed (1 to 512 characters).
    pub query: String,
    /// The language index; `None` searches every index.
    pub lang: Option<LangCode>,
    /// Prefer newer posts (also detected from the query).
    pub freshness: bool,
    /// Keep low-quality replies.
    pub include_low_quality: bool,
    /// Hits to return.
    pub limit: usize,
    /// Only posts with an `<img>` (image search), without highlights.
    pub images_only: bool,
    /// What takedowns in force leave out (posts, and every post of the topics and
    /// profiles); [`SearchResults::total`] does not count them.
    pub exclude: TakedownSet,
}

impl SearchRequest {
    /// A request with the defaults: every index, no forced freshness, quality filter on.
    pub fn new(query: impl Into<String>) -> Self {
        Self {
            query: query.into(),
            lang: None,
            freshness: false,
            include_low_quality: false,
            limit: DEFAULT_LIMIT,
            images_only: false,
            exclude: TakedownSet::default(),
        }
    }
}

/// The outcome of a search.
#[derive(Debug, Clone)]
pub struct SearchResults {
    /// The query as typed.
    pub query: String,
    /// The query whose hits are returned, when it is a spelling correction.
    pub corrected_query: Option<String>,
    /// A better query, when the original one was kept.
    pub did_you_mean: Option<String>,
    /// The requested language, or `all`.
    pub lang: String,
    /// The index searched (`en`, `pt`, ...), or `all`.
    pub index: String,
    /// Whether the freshness preference was applied (requested or detected).
    pub freshness: bool,
    /// Whether the query was read as a question.
    pub answer_seeking: bool,
    /// Matching posts (after the quality filter).
    pub total: u64,
    /// The best hits, best first.
    pub hits: Vec<Hit>,
}

/// One ranked post.
#[derive(Debug, Clone)]
pub struct Hit {
    /// Post ID.
    pub post_id: i64,
    /// Topic ID.
    pub topic_id: i64,
    /// Post subject.
    pub title: String,
    /// The subject without `Re: `.
    pub topic_title: String,
    /// Plain text content, images spelled out as `alt` text and `src` URL.
    pub content: String,
    /// The `src` of each `<img>` of the post, as written in its HTML.
    pub images: Vec<String>,
    /// Author username.
    pub author: String,
    /// Author profile ID.
    pub author_uid: Option<i64>,
    /// `posted_at`, else `indexed_at`.
    pub date: Millis,
    /// Whether `date` is `indexed_at` (the post has no posting time).
    pub undated: bool,
    /// Board ID.
    pub board_id: Option<i64>,
    /// Board name (may be empty).
    pub board_name: String,
    /// The post's language, or `und`.
    pub lang: String,
    /// Whether it opens its topic.
    pub is_op: bool,
    /// Merit total.
    pub merit: i64,
    /// Fragments with `<mark>`ed terms, by field (`title`, `content`).
    pub highlight: BTreeMap<String, Vec<String>>,
    /// Final score.
    pub score: f64,
    /// BM25 before re-ranking.
    pub bm25: f64,
    /// Spam likelihood.
    pub spam_score: f64,
    /// Machine-written style likelihood.
    pub ai_score: f64,
    /// Usefulness.
    pub health_score: f64,
    /// What ranked it: BM25 and quality always, plus the factors here.
    pub rank_factors: RankFactors,
    /// The index it came from.
    pub search_index: String,
}

struct Target {
    index: Arc<LangIndex>,
    searcher: Searcher,
}

struct Outcome {
    total: u64,
    hits: Vec<Candidate>,
    queries: Vec<Option<Box<dyn Query>>>,
}

/// A match before its stored document is read: what re-ranking needs, from fast fields.
/// Only the [`SearchRequest::limit`] best candidates get their document loaded.
#[derive(Debug, Clone, Copy)]
struct Candidate {
    /// The target it came from.
    at: usize,
    address: DocAddress,
    post_id: i64,
    date: i64,
    is_op: bool,
    health_score: f64,
    bm25: f64,
    score: f64,
}

/// Runs `request` against `indexes`.
pub fn search(
    indexes: &SearchIndexes,
    request: &SearchRequest,
) -> Result<SearchResults, SearchError> {
    let fields = *indexes.fields();
    let chosen: Vec<Arc<LangIndex>> = match &request.lang {
        Some(lang) => indexes.get(lang.base()).into_iter().collect(),
        None => indexes.all(),
    };
    let targets: Vec<Target> = chosen
        .into_iter()
        .map(|index| Target {
            searcher: index.reader.searcher(),
            index,
        })
        .collect();
    let freshness = request.freshness || detects_freshness(&request.query);
    let answer_seeking = detects_answer_seeking(&request.query);
    let mut outcome = run(&targets, &fields, &request.query, request)?;
    let mut corrected_query = None;
    let mut did_you_mean = None;
    if let Some(better) = correct(&targets, &fields, &request.query)? {
        if outcome.total < FEW_HITS {
            let second = run(&targets, &fields, &better, request)?;
            if second.total > 0 && second.total >= outcome.total {
                outcome = second;
                corrected_query = Some(better);
            }
        } else {
            did_you_mean = Some(better);
        }
    }
    let (mut best, rank_factors) = rerank(outcome.hits, freshness, answer_seeking);
    best.truncate(request.limit);
    let mut hits = Vec::with_capacity(best.len());
    for candidate in best {
        let target = &targets[candidate.at];
        let doc: TantivyDocument = target.searcher.doc(candidate.address)?;
        let mut hit = hit_of(&doc, &fields, candidate.bm25, &target.index.key);
        hit.score = candidate.score;
        hit.rank_factors = rank_factors;
        hits.push((candidate.at, hit));
    }
    if !request.images_only {
        highlight(&targets, &outcome.queries, &fields, &mut hits)?;
    }
    Ok(SearchResults {
        query: request.query.clone(),
        corrected_query,
        did_you_mean,
        lang: request
            .lang
            .as_ref()
            .map_or_else(|| "all".to_owned(), |l| l.as_str().to_owned()),
        index: request
            .lang
            .as_ref()
            .map_or_else(|| "all".to_owned(), |l| l.base().to_owned()),
        freshness,
        answer_seeking,
        total: outcome.total,
        hits: hits.into_iter().map(|(_, hit)| hit).collect(),
    })
}

/// BM25 matches of `text` in every target: the count and the best [`RERANK_DEPTH`] of each.
fn run(
    targets: &[Target],
    fields: &Fields,
    text: &str,
    request: &SearchRequest,
) -> Result<Outcome, SearchError> {
    let mut outcome = Outcome {
        total: 0,
        hits: Vec::new(),
        queries: Vec::new(),
    };
    for (at, target) in targets.iter().enumerate() {
        let Some(query) = text_query(target, fields, text) else {
            outcome.queries.push(None);
            continue;
        };
        let flag = |field: Field| -> Box<dyn Query> {
            Box::new(TermQuery::new(
                Term::from_field_u64(field, 1),
                IndexRecordOption::Basic,
            ))
        };
        let mut clauses: Vec<(Occur, Box<dyn Query>)> = vec![(Occur::Must, query.box_clone())];
        if !request.include_low_quality {
            clauses.push((Occur::MustNot, flag(fields.hidden)));
        }
        if request.images_only {
            clauses.push((Occur::Must, flag(fields.has_image)));
        }
        let excluded = [
            (fields.post_id, &request.exclude.posts),
            (fields.topic_id, &request.exclude.topics),
            (fields.author_uid, &request.exclude.profiles),
        ];
        for (field, ids) in excluded {
            for &id in ids {
                let term = Term::from_field_i64(field, id);
                clauses.push((
                    Occur::MustNot,
                    Box::new(TermQuery::new(term, IndexRecordOption::Basic)),
                ));
            }
        }
        let filtered: Box<dyn Query> = if clauses.len() == 1 {
            query.box_clone()
        } else {
            Box::new(BooleanQuery::new(clauses))
        };
        let (count, top) = target.searcher.search(
            &*filtered,
            &(Count, TopDocs::with_limit(RERANK_DEPTH).order_by_score()),
        )?;
        outcome.total += count as u64;
        let mut columns: HashMap<u32, Columns> = HashMap::new();
        for (bm25, address) in top {
            let columns = match columns.entry(address.segment_ord) {
                Entry::Occupied(entry) => entry.into_mut(),
                Entry::Vacant(entry) => {
                    let fast = target
                        .searcher
                        .segment_reader(address.segment_ord)
                        .fast_fields();
                    entry.insert(Columns {
                        post_id: fast.i64("post_id")?,
                        date: fast.i64("date")?,
                        is_op: fast.u64("is_op")?,
                        health_score: fast.f64("health_score")?,
                    })
                }
            };
            let doc = address.doc_id;
            outcome.hits.push(Candidate {
                at,
                address,
                post_id: columns.post_id.first(doc).unwrap_or(0),
                date: columns.date.first(doc).unwrap_or(0),
                is_op: columns.is_op.first(doc) == Some(1),
                health_score: columns.health_score.first(doc).unwrap_or(0.0),
                bm25: f64::from(bm25),
                score: f64::from(bm25),
            });
        }
        outcome.queries.push(Some(query));
    }
    Ok(outcome)
}

/// `title OR content` over the terms the index's analyzer makes of `text`; `None` when it
/// makes none.
fn text_query(target: &Target, fields: &Fields, text: &str) -> Option<Box<dyn Query>> {
    let mut analyzer = target.index.index.tokenizers().get(TEXT_ANALYZER)?;
    let mut words: Vec<String> = analysis::terms(&mut analyzer, text)
        .into_iter()
        .map(|(t, _)| t)
        .collect();
    words.sort();
    words.dedup();
    if words.is_empty() {
        return None;
    }
    let searcher = &target.searcher;
    let docs = searcher.num_docs() as f64;
    let mut clauses: Vec<(Occur, Box<dyn Query>)> = Vec::new();
    for word in &words {
        // Only opening posts have a searchable title, so BM25's length normalisation (an
        // average over every document) would crush title matches: score them as a constant
        // times the term's title IDF instead.
        let title_term = Term::from_field_text(fields.title_text, word);
        let title_df = searcher.doc_freq(&title_term).unwrap_or(0) as f64;
        if title_df > 0.0 {
            let idf = (1.0 + (docs - title_df + 0.5) / (title_df + 0.5)).ln();
            let title = TermQuery::new(title_term, IndexRecordOption::WithFreqsAndPositions);
            clauses.push((
                Occur::Should,
                Box::new(BoostQuery::new(
                    Box::new(ConstScoreQuery::new(Box::new(title), 1.0)),
                    (TITLE_WEIGHT * idf) as f32,
                )),
            ));
        }
        clauses.push((
            Occur::Should,
            Box::new(TermQuery::new(
                Term::from_field_text(fields.content, word),
                IndexRecordOption::WithFreqsAndPositions,
            )),
        ));
    }
    Some(Box::new(BooleanQuery::new(clauses)))
}

fn hit_of(doc: &TantivyDocument, f: &Fields, bm25: f64, index: &str) -> Hit {
    let text = |field: Field| {
        doc.get_first(field)
            .and_then(|v| v.as_str())
            .unwrap_or("")
            .to_owned()
    };
    let int = |field: Field| doc.get_first(field).and_then(|v| v.as_i64());
    let flag = |field: Field| doc.get_first(field).and_then(|v| v.as_u64()) == Some(1);
    let real = |field: Field| doc.get_first(field).and_then(|v| v.as_f64()).unwrap_or(0.0);
    Hit {
        post_id: int(f.post_id).unwrap_or(0),
        topic_id: int(f.topic_id).unwrap_or(0),
        title: text(f.title),
        topic_title: text(f.topic_title),
        content: text(f.content),
        images: doc
            .get_all(f.images)
            .filter_map(|v| v.as_str().map(str::to_owned))
            .collect(),
        author: text(f.author),
        author_uid: int(f.author_uid),
        date: Millis(int(f.date).unwrap_or(0)),
        undated: flag(f.undated),
        board_id: int(f.board_id),
        board_name: text(f.board_name),
        lang: text(f.lang),
        is_op: flag(f.is_op),
        merit: int(f.merit).unwrap_or(0),
        highlight: BTreeMap::new(),
        score: bm25,
        bm25,
        spam_score: real(f.spam_score),
        ai_score: real(f.ai_score),
        health_score: real(f.health_score),
        rank_factors: RankFactors::default(),
        search_index: index.to_owned(),
    }
}

/// The fast-field columns re-ranking reads, for one segment.
struct Columns {
    post_id: Column<i64>,
    date: Column<i64>,
    is_op: Column<u64>,
    health_score: Column<f64>,
}

/// The factors besides BM25 and quality that ranked a hit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RankFactors {
    /// The freshness preference (recency decay).
    pub freshness: bool,
    /// The answer boost of a question-shaped query.
    pub answer: bool,
}

/// Multiplies BM25 by the quality, freshness and answer factors and sorts (score desc, post
/// ID asc); returns the candidates and the factors that applied.
fn rerank(
    mut hits: Vec<Candidate>,
    freshness: bool,
    answer_seeking: bool,
) -> (Vec<Candidate>, RankFactors) {
    let newest = hits.iter().map(|h| h.date).max().unwrap_or(0);
    let source = RankFactors {
        freshness,
        answer: answer_seeking,
    };
    for hit in &mut hits {
        let mut score = hit.bm25 * (0.75 + 0.5 * hit.health_score);
        if freshness {
            let age_days = (newest - hit.date).max(0) as f64 / DAY_MS;
            score *= 0.3 + 0.7 * 0.5f64.powf(age_days / HALF_LIFE_DAYS);
        }
        if answer_seeking && !hit.is_op {
            score *= ANSWER_BOOST;
        }
        hit.score = (score * 1e6).round() / 1e6;
    }
    hits.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.post_id.cmp(&b.post_id)));
    hits.dedup_by_key(|h| h.post_id);
    (hits, source)
}

/// Fills `highlight` with `<mark>`ed fragments of title and content.
fn highlight(
    targets: &[Target],
    queries: &[Option<Box<dyn Query>>],
    fields: &Fields,
    hits: &mut [(usize, Hit)],
) -> Result<(), SearchError> {
    let mut generators: HashMap<(usize, u32), SnippetGenerator> = HashMap::new();
    for (at, hit) in hits.iter_mut() {
        let Some(Some(query)) = queries.get(*at) else {
            continue;
        };
        for (name, field, max_chars) in [
            ("title", fields.title_text, 300),
            ("content", fields.content, 200),
        ] {
            let key = (*at, field.field_id());
            let generator = match generators.entry(key) {
                Entry::Occupied(entry) => entry.into_mut(),
                Entry::Vacant(entry) => {
                    let mut generator =
                        SnippetGenerator::create(&targets[*at].searcher, &**query, field)?;
                    generator.set_max_num_chars(max_chars);
                    entry.insert(generator)
                }
            };
            let source = if name == "title" {
                &hit.title
            } else {
                &hit.content
            };
            let mut snippet = generator.snippet(source);
            if snippet.highlighted().is_empty() {
                continue;
            }
            snippet.set_snippet_prefix_postfix("<mark>", "</mark>");
            hit.highlight
                .insert(name.to_owned(), vec![snippet.to_html()]);
        }
    }
    Ok(())
}

/// A spelling correction of `text` from the searched indexes' dictionaries, if any word
/// looks misspelled and a much more frequent neighbour exists.
fn correct(targets: &[Target], fields: &Fields, text: &str) -> Result<Option<String>, SearchError> {
    let mut plain = analysis::plain_analyzer();
    let mut replacements: Vec<(Range<usize>, String)> = Vec::new();
    for (word, range) in analysis::terms(&mut plain, text) {
        let letters = word.chars().count();
        if letters < 4 || word.chars().any(|c| c.is_numeric() || analysis::is_cjk(c)) {
            continue;
        }
        let frequency = doc_freq(targets, &Term::from_field_text(fields.spell, &word))?;
        if frequency > 2 {
            continue;
        }
        let mut best = neighbours(targets, fields.spell, &word, 1)?;
        if best.is_none() && letters >= 8 {
            best = neighbours(targets, fields.spell, &word, 2)?;
        }
        if let Some((candidate, candidate_frequency)) = best
            && candidate_frequency >= (10 * frequency).max(3)
        {
            replacements.push((range, candidate));
        }
    }
    if replacements.is_empty() {
        return Ok(None);
    }
    let mut corrected = text.to_owned();
    for (range, word) in replacements.into_iter().rev() {
        corrected.replace_range(range, &word);
    }
    Ok(Some(corrected))
}

fn doc_freq(targets: &[Target], term: &Term) -> Result<u64, SearchError> {
    let mut total = 0;
    for target in targets {
        total += target.searcher.doc_freq(term)?;
    }
    Ok(total)
}

/// The most frequent other dictionary word within `distance` of `word` (ties: smallest).
fn neighbours(
    targets: &[Target],
    field: Field,
    word: &str,
    distance: u8,
) -> Result<Option<(String, u64)>, SearchError> {
    let query = FuzzyTermQuery::new(Term::from_field_text(field, word), distance, true);
    // One automaton (building it is the costly part) walks every segment's dictionary.
    let automaton = query.automaton()?;
    let mut frequencies: HashMap<String, u64> = HashMap::new();
    for target in targets {
        for segment in target.searcher.segment_readers() {
            let inverted = segment.inverted_index(field)?;
            let mut stream = inverted
                .terms()
                .search(&automaton)
                .into_stream()
                .map_err(|e| SearchError::Index(e.to_string()))?;
            while stream.advance() {
                let Ok(candidate) = std::str::from_utf8(stream.key()) else {
                    continue;
                };
                if candidate != word {
                    *frequencies.entry(candidate.to_owned()).or_default() +=
                        u64::from(stream.value().doc_freq);
                }
            }
        }
    }
    Ok(frequencies
        .into_iter()
        .max_by(|(a, fa), (b, fb)| fa.cmp(fb).then(b.cmp(a))))
}

/// Whether the query asks for recent posts.
pub fn detects_freshness(query: &str) -> bool {
    const WORDS: &[&str] = &[
        "latest",
        "news",
        "today",
        "recent",
        "recently",
        "newest",
        "yesterday",
        "tonight",
        "current",
        "currently",
        "upcoming",
    ];
    let lower = query.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    words.iter().any(|w| {
        WORDS.contains(w)
            || (w.len() == 4 && w.parse::<u32>().is_ok_and(|y| (2009..=2099).contains(&y)))
    }) || lower.contains("this week")
        || lower.contains("this month")
        || lower.contains("this year")
}

/// Whether the query is a question (so answers should come before the question post).
pub fn detects_answer_seeking(query: &str) -> bool {
    const STARTS: &[&str] = &[
        "how ",
        "what ",
        "what's",
        "why ",
        "where ",
        "when ",
        "which ",
        "who ",
        "can i ",
        "can you ",
        "should i ",
        "is it ",
        "is there ",
        "are there ",
        "does ",
        "do i ",
        "do you ",
        "help ",
        "как ",
        "что ",
        "почему ",
        "где ",
        "wie ",
        "was ",
        "warum ",
        "comment ",
        "pourquoi ",
        "cómo ",
        "como ",
        "qué ",
        "怎么",
        "如何",
        "为什么",
        "什么",
    ];
    const ANYWHERE: &[&str] = &["how do i", "how to", "what is", "how can i", "?", "？"];
    let lower = query.trim().to_lowercase();
    STARTS.iter().any(|s| lower.starts_with(s)) || ANYWHERE.iter().any(|s| lower.contains(s))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn freshness_is_detected_from_words_and_years() {
        assert!(detects_freshness("latest bitcoin news"));
        assert!(detects_freshness("halving 2024"));
        assert!(detects_freshness("what happened this week"));
        assert!(!detects_freshness("mining difficulty"));
        assert!(!detects_freshness("block 1000"));
    }

    #[test]
    fn questions_are_answer_seeking() {
        assert!(detects_answer_seeking("How do I recover my wallet"));
        assert!(detects_answer_seeking("wallet recovery?"));
        assert!(detects_answer_seeking("what is a merkle tree"));
        assert!(!detects_answer_seeking("merkle tree"));
    }
}
