//! Post search: every index that holds a word of the query (or a neighbour of a missing
//! word) is searched for its best [`RERANK_DEPTH`] matches in tier order ([`tiers`],
//! [`matcher`]), which are re-ranked within their tiers ([`rerank`]), and the best [`SearchRequest::limit`] of
//! all indexes are loaded and highlighted.
//!
//! - **Words and tiers.** [`words::MAX_QUERY_WORDS`] distinct words count (of a longer
//!   query, the common ones give way first: [`words::query_words`]). A post
//!   holding more of them ranks above one holding fewer, whatever their BM25, the words that
//!   are not common ([`words::COMMON_SHARE`]) counting before the common ones; then fewer
//!   typo matches, then words as typed rather than by stem, then words standing closer,
//!   then BM25 times the quality and freshness factors. A title word of an opening post
//!   counts as a held word and adds `1.5 x IDF` to BM25, never more than a word.
//! - **Typos.** A word of 4+ letters that no searched index holds matches its dictionary
//!   neighbours within one edit (two for 8+ letters; those keeping its first letter when
//!   there are any), the four most frequent, one tier below
//!   an exact match. The query with each such word replaced by its most frequent neighbour
//!   is `corrected_query` when a returned hit matched a neighbour, else `did_you_mean`.
//!   Neighbours come from the indexes whose language the query's other words speak
//!   ([`words`]). A word the index holds is never corrected, unless the query finds
//!   nothing at all: then each rare word (held by at most 2 posts) is replaced by a
//!   neighbour 10 times as frequent, and that query's hits are returned with
//!   `corrected_query`.
//! - **Languages.** `lang` selects the index of its two-letter base (`pt-BR` -> `pt`); a
//!   language without an index gives zero hits. Without `lang` every index holding a query
//!   word is searched and the matches are merged by tier, then score (BM25 of different
//!   indexes is comparable only roughly: each has its own term statistics).
//! - **Quality.** Low-quality replies (see [`crate::quality`]) are left out, and not counted
//!   in `total`, unless `include_low_quality` is set. Within a tier every hit's BM25 is
//!   multiplied by `0.75 + 0.5 * health_score`.
//! - **Freshness** (requested, or detected from words like "latest", "news", "today" or a year
//!   such as "2024"): within a tier, scores are multiplied by `0.3 + 0.7 * 0.5^(age / 180
//!   days)`, the age counted from the newest candidate, so an archive corpus still orders by
//!   recency.
//! - **Answer seeking** ("how do I", "what is", a trailing "?"): within a tier, replies get
//!   `x1.5`, so answers come before the question post.
//! - **Score.** A hit's `score` is its tier points (a whole number: more words, fewer typos,
//!   closer, more exact give more) plus its score within the tier `s` as `s / (1 + s)`, so
//!   scores fall along the order. Ties are ordered by post ID: equal inputs give equal
//!   outputs.

mod answers;
mod count;
pub mod fusion;
mod highlight;
mod intent;
mod matcher;
mod named;
mod near_duplicates;
mod nearest;
mod parallel;
mod rerank;
mod superseding;
mod terms;
mod tiers;
pub mod words;

use std::collections::hash_map::Entry;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use forumdex_corpus::{LangCode, Millis, TakedownSet};
use tantivy::columnar::Column;
use tantivy::query::{BooleanQuery, Query, TermQuery};
use tantivy::schema::{Field, IndexRecordOption, Value};
use tantivy::{DocAddress, Searcher, TantivyDocument, Term};

pub use intent::{detects_answer_seeking, detects_freshness};
pub use rerank::ANSWER_BOOST;

use crate::SearchError;
use crate::index::{Fields, LangIndex, SearchIndexes};
use crate::semantic::Generation;
use named::NamedTopics;
use near_duplicates::Shingles;
use nearest::Near;
use rerank::{Candidate, Factors};
use tiers::{Plan, Signals};
use words::QueryWord;

/// Version of the ranking formula, reported with every hit (3: common words count after
/// the others; 5: negations count with the common words; 4 was a variant withdrawn).
pub const RANKING_MODEL_VERSION: &str = "fdx-rank-5";
/// Matches per index that are re-ranked.
pub const RERANK_DEPTH: usize = 300;
/// Version of the fusion of the lexical and semantic legs ([`fusion`]), reported in a
/// hybrid hit's `ranking_model_version` (2: the posts of a thread the query names first,
/// posts that cannot answer further down; 3: a named thread's posts ordered by the query
/// without its naming words; 4: near duplicates of the posts before them last; 5: weekly
/// reports are report forms; 6: a named thread's later posts first when the query asks how
/// things stand; 7: a named thread's opening post as a leg of its own; 8: a named thread's
/// complete matches before other threads' that do not hold the query whole).
pub const FUSION_VERSION: &str = "rrf60-8";
/// Queries of this many words or more are natural language: the semantic leg runs.
pub const SEMANTIC_MIN_WORDS: usize = 4;
/// Hits returned.
pub const DEFAULT_LIMIT: usize = 20;
/// When the query's words are held, together, more times than this share of the searched
/// posts, `total` is counted on a thread beside the walks ([`count::count`] reads every one
/// of those postings: on the 1.4M-post corpus, about 350,000 and more).
const COUNT_APART_SHARE: f64 = 0.25;

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
    /// Matching posts (after the quality filter), plus, when the semantic leg ran, its
    /// hits that are not among the lexical ones ranked.
    pub total: u64,
    /// Whether the semantic leg ran and was fused in.
    pub hybrid: bool,
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
    /// The ranking: [`RANKING_MODEL_VERSION`], and for a hybrid search the semantic
    /// model's version and [`FUSION_VERSION`].
    pub ranking_model_version: String,
}

/// An index being searched, with the searcher every step of one search uses.
struct Target {
    index: Arc<LangIndex>,
    searcher: Searcher,
}

struct Outcome {
    total: u64,
    hits: Vec<Candidate>,
    /// The query of each target, when it was searched.
    queries: Vec<Option<Box<dyn Query>>>,
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
    let searchers: Vec<&Searcher> = targets.iter().map(|t| &t.searcher).collect();
    let factors = Factors {
        freshness: request.freshness || detects_freshness(&request.query),
        answer_seeking: detects_answer_seeking(&request.query),
    };
    let query_words = words::query_words(&searchers, fields.spell, &request.query)?;
    let mut outcome = run(&targets, &fields, &query_words, request)?;
    let mut corrected_query = None;
    let mut did_you_mean = None;
    if outcome.total == 0 {
        if let Some(better) =
            words::rare_word_correction(&searchers, fields.spell, &request.query, &query_words)?
        {
            let better_words = words::query_words(&searchers, fields.spell, &better)?;
            let second = run(&targets, &fields, &better_words, request)?;
            if second.total > 0 {
                outcome = second;
                corrected_query = Some(better);
            }
        }
    } else if let Some(better) = words::suggestion(&request.query, &query_words) {
        did_you_mean = Some(better);
    }
    let best = rerank::rerank(outcome.hits, factors);
    let complete = best
        .iter()
        .take_while(|c| c.tier.missing_words == 0)
        .count();
    let serving = indexes.semantic().map(|semantic| semantic.serving());
    let semantic = match &serving {
        Some(serving) if wants_semantic(&query_words, factors, complete) => {
            let named = NamedTopics::of(&targets, &fields, &request.query, &query_words)?;
            semantic_leg(serving, &targets, &fields, request, &query_words, &named)?
                .map(|near| (near, named))
        }
        _ => None,
    }
    .filter(|(near, _)| !near.is_empty());
    let (picks, semantic_only) = match &semantic {
        Some((near, named)) => picks_of_fusion(
            &targets,
            &fields,
            intent::Asked {
                question: factors.answer_seeking,
                status: intent::asks_status(&request.query),
            },
            &best,
            complete,
            near,
            named,
        )?,
        None => (best.iter().map(|c| Pick::Lexical(*c)).collect(), 0),
    };
    let hybrid = semantic.is_some();
    let version = match serving.filter(|_| hybrid) {
        Some(serving) => format!(
            "{RANKING_MODEL_VERSION}+{}+{FUSION_VERSION}",
            serving.model().version()
        ),
        None => RANKING_MODEL_VERSION.to_owned(),
    };
    let mut hits = Vec::with_capacity(request.limit.min(picks.len()));
    // A named thread's complete match may come before a better tier of another thread's
    // ([`fusion::named_first`]): a complete match's score is at most the one's before it.
    let mut complete_floor = f64::INFINITY;
    for pick in picks.into_iter().take(request.limit) {
        let (at, address) = pick.place();
        let target = &targets[at];
        let doc: TantivyDocument = target.searcher.doc(address)?;
        let mut hit = match pick {
            Pick::Lexical(candidate)
            | Pick::Complete { candidate, .. }
            | Pick::Fused { candidate, .. } => {
                let mut hit = hit_of(&doc, &fields, candidate.tier.bm25, &target.index.key);
                hit.score = reported_score(&candidate);
                hit.rank_factors = RankFactors::of(&candidate, factors);
                hit
            }
            Pick::Semantic { .. } => {
                let mut hit = hit_of(&doc, &fields, 0.0, &target.index.key);
                hit.rank_factors = RankFactors {
                    freshness: factors.freshness,
                    answer: factors.answer_seeking,
                    ..RankFactors::default()
                };
                hit
            }
        };
        match pick {
            Pick::Fused { score, near, .. } => {
                hit.score = (score * 1e6).round() / 1e6;
                hit.rank_factors.semantic = near;
            }
            Pick::Semantic { score, .. } => {
                hit.score = (score * 1e6).round() / 1e6;
                hit.rank_factors.semantic = true;
            }
            Pick::Complete { near, .. } => {
                hit.rank_factors.semantic = near;
                hit.score = hit.score.min(complete_floor);
                complete_floor = hit.score;
            }
            Pick::Lexical(_) => {}
        }
        hit.ranking_model_version = version.clone();
        hits.push((at, hit));
    }
    if did_you_mean.is_some() && hits.iter().any(|(_, hit)| hit.rank_factors.typo) {
        corrected_query = did_you_mean.take();
    }
    if !request.images_only {
        highlight::highlight(&targets, &outcome.queries, &fields, &mut hits)?;
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
        freshness: factors.freshness,
        answer_seeking: factors.answer_seeking,
        total: outcome.total + semantic_only,
        hybrid,
        hits: hits.into_iter().map(|(_, hit)| hit).collect(),
    })
}

/// Matches of `words` in every target that holds one: the count and the best
/// [`RERANK_DEPTH`] of each, with their tiers. Targets are walked from the largest: once
/// `limit` matches are found, a target whose posts cannot reach the words tier of the
/// `limit`-th best (it lacks too many of the words) is only counted.
fn run(
    targets: &[Target],
    fields: &Fields,
    words: &[QueryWord],
    request: &SearchRequest,
) -> Result<Outcome, SearchError> {
    let mut outcome = Outcome {
        total: 0,
        hits: Vec::new(),
        queries: (0..targets.len()).map(|_| None).collect(),
    };
    let filter = matcher::Filter {
        skip_hidden: !request.include_low_quality,
        images_only: request.images_only,
        exclude: &request.exclude,
    };
    let mut order: Vec<usize> = (0..targets.len()).collect();
    order.sort_by_key(|&at| std::cmp::Reverse(targets[at].searcher.num_docs()));
    let plans: Vec<(usize, Plan)> = order
        .into_iter()
        .filter_map(|at| Some((at, tiers::plan(&targets[at], fields, words)?)))
        .collect();
    let count_all = || -> Result<u64, SearchError> {
        let mut total = 0;
        for (at, plan) in &plans {
            total += count::count(&targets[*at].searcher, fields, plan, filter)?;
        }
        Ok(total)
    };
    let postings: u64 = words.iter().map(|w| w.doc_freq).sum();
    let posts: u64 = targets.iter().map(|t| t.searcher.num_docs()).sum();
    let count_apart = postings as f64 > posts as f64 * COUNT_APART_SHARE;
    std::thread::scope(|scope| -> Result<(), SearchError> {
        // A query of common words counts hundreds of thousands of posts: on a thread of
        // its own, beside the walks, when it is that large.
        let counting = count_apart.then(|| scope.spawn(count_all));
        for (at, plan) in &plans {
            let target = &targets[*at];
            outcome.queries[*at] = Some(matching_terms(fields, plan));
            let bar = words_bar(&outcome.hits, request.limit);
            if bar.is_some_and(|bar| plan.fewest_missing() > bar) {
                continue;
            }
            let best = matcher::best(
                &target.searcher,
                fields,
                plan,
                filter,
                matcher::Depth {
                    kept: RERANK_DEPTH,
                    shown: request.limit,
                    bar,
                },
            )?;
            collect_candidates(target, *at, plan.signals, best, &mut outcome.hits)?;
        }
        outcome.total = match counting {
            Some(thread) => thread.join().expect("counting does not panic")?,
            None => count_all()?,
        };
        Ok(())
    })?;
    Ok(outcome)
}

/// The words tier (missing words, missing common words) of the `limit`-th best of `hits`:
/// a post lacking more cannot be shown.
fn words_bar(hits: &[Candidate], limit: usize) -> Option<(u32, u32)> {
    if limit == 0 || hits.len() < limit {
        return None;
    }
    let mut tiers: Vec<(u32, u32)> = hits
        .iter()
        .map(|c| (c.tier.missing_words, c.tier.missing_common))
        .collect();
    let (_, &mut bar, _) = tiers.select_nth_unstable(limit - 1);
    Some(bar)
}

/// Posts whose text or opening title holds a term of `plan`: what highlights mark.
fn matching_terms(fields: &Fields, plan: &tiers::Plan) -> Box<dyn Query> {
    let clauses: Vec<Box<dyn Query>> = plan
        .terms()
        .flat_map(|term| [fields.content, fields.title_text].map(|field| (field, term)))
        .map(|(field, term)| -> Box<dyn Query> {
            Box::new(TermQuery::new(
                Term::from_field_text(field, term),
                IndexRecordOption::Basic,
            ))
        })
        .collect();
    Box::new(BooleanQuery::union(clauses))
}

/// Reads what the re-rank needs of each match from fast fields.
fn collect_candidates(
    target: &Target,
    at: usize,
    signals: Signals,
    best: Vec<matcher::Match>,
    into: &mut Vec<Candidate>,
) -> Result<(), SearchError> {
    let mut columns: HashMap<u32, Columns> = HashMap::new();
    for found in best {
        let address = found.address;
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
        into.push(Candidate {
            at,
            address,
            post_id: columns.post_id.first(doc).unwrap_or(0),
            date: columns.date.first(doc).unwrap_or(0),
            is_op: columns.is_op.first(doc) == Some(1),
            health_score: columns.health_score.first(doc).unwrap_or(0.0),
            tier: found.tier,
            signals,
            score: found.tier.bm25,
        });
    }
    Ok(())
}

/// Tier points (higher for a better tier: each shortfall is at most
/// [`words::MAX_QUERY_WORDS`]) plus the score within the tier squashed below 1.
fn reported_score(candidate: &Candidate) -> f64 {
    let base = words::MAX_QUERY_WORDS as u64 + 1;
    let (missing, missing_common, typos, inexact, far) = candidate.tier.key();
    let shortfall = [missing, missing_common, typos, inexact, far]
        .into_iter()
        .fold(0, |sum, count| sum * base + u64::from(count));
    let top = base.pow(5) - 1;
    let points = (top - shortfall.min(top)) as f64;
    let within = candidate.score.max(0.0);
    ((points + within / (1.0 + within)) * 1e6).round() / 1e6
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
        ranking_model_version: RANKING_MODEL_VERSION.to_owned(),
    }
}

/// The fast-field columns re-ranking reads, for one segment.
struct Columns {
    post_id: Column<i64>,
    date: Column<i64>,
    is_op: Column<u64>,
    health_score: Column<f64>,
}

/// The signals that ranked a hit (BM25 and quality always do).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RankFactors {
    /// The query had several words: posts holding more of them come first.
    pub words: bool,
    /// The hit matched a neighbour of a missing word (one tier below exact matches).
    pub typo: bool,
    /// Closeness of consecutive query words counted.
    pub proximity: bool,
    /// Words held as typed, not only by their stem, counted.
    pub exactness: bool,
    /// The freshness preference (recency decay).
    pub freshness: bool,
    /// The answer boost of a question-shaped query.
    pub answer: bool,
    /// The semantic leg found the hit (its place there counted in the fusion).
    pub semantic: bool,
}

impl RankFactors {
    fn of(candidate: &Candidate, factors: Factors) -> Self {
        let signals = &candidate.signals;
        Self {
            words: signals.several_words,
            typo: candidate.tier.typos > 0,
            proximity: signals.proximity,
            exactness: signals.exactness,
            freshness: factors.freshness,
            answer: factors.answer_seeking,
            semantic: false,
        }
    }
}

/// A hit of the final order, before its document is read.
#[derive(Debug, Clone, Copy)]
enum Pick {
    /// Lexical order (no semantic leg).
    Lexical(Candidate),
    /// A lexical match holding every word, kept first by the fusion; whether the semantic
    /// leg found it too.
    Complete { candidate: Candidate, near: bool },
    /// A lexical match placed by the fusion.
    Fused {
        candidate: Candidate,
        /// Its fusion score.
        score: f64,
        /// Whether the semantic leg found it too.
        near: bool,
    },
    /// Found by the semantic leg only.
    Semantic {
        near: Near,
        /// Its fusion score.
        score: f64,
    },
}

impl Pick {
    fn place(&self) -> (usize, DocAddress) {
        match self {
            Pick::Lexical(c)
            | Pick::Complete { candidate: c, .. }
            | Pick::Fused { candidate: c, .. } => (c.at, c.address),
            Pick::Semantic { near, .. } => (near.at, near.address),
        }
    }
}

/// Whether the semantic leg may help `words`: a query of [`SEMANTIC_MIN_WORDS`] or more
/// words or a question (natural language), or one that no post holds whole (a weak lexical
/// leg). Shorter keyword queries that some post holds whole, known-item queries among
/// them, stay lexical, on the fast path.
fn wants_semantic(words: &[QueryWord], factors: Factors, complete: usize) -> bool {
    words.len() >= SEMANTIC_MIN_WORDS || factors.answer_seeking || complete == 0
}

/// Whether the document at `address` of `target` is its topic's opening post.
fn opens_topic(target: &Target, address: DocAddress) -> Result<bool, SearchError> {
    let segment = target.searcher.segment_reader(address.segment_ord);
    Ok(segment.fast_fields().u64("is_op")?.first(address.doc_id) == Some(1))
}

/// The semantic leg's hits for `request` (nearest first), or `None` when the model knows no
/// word of the query; `query_words` were read from it ([`NamedTopics::without_names`]).
fn semantic_leg(
    semantic: &Generation,
    targets: &[Target],
    fields: &Fields,
    request: &SearchRequest,
    query_words: &[QueryWord],
    named: &NamedTopics,
) -> Result<Option<Vec<Near>>, SearchError> {
    let Some(whole) = semantic.model().embed_quantised(&request.query) else {
        return Ok(None);
    };
    let query = nearest::SemanticQuery {
        whole,
        without_names: named
            .without_names(&request.query, query_words)
            .and_then(|rest| semantic.model().embed_quantised(&rest)),
    };
    let filter = matcher::Filter {
        skip_hidden: !request.include_low_quality,
        images_only: request.images_only,
        exclude: &request.exclude,
    };
    Ok(Some(nearest::nearest(
        targets,
        fields,
        semantic,
        &query,
        filter,
        named,
        fusion::LEG_DEPTH,
    )?))
}

/// The fused order of the lexical `best` (whose first `complete` hold every word) and the
/// semantic leg's `near`, the posts of the `named` threads first after the complete
/// matches, those that cannot answer ([`answers`]) further down, the named threads' later
/// posts up when the query asks how things stand ([`superseding`]), near duplicates of the
/// posts before them ([`near_duplicates`]) last, and how many of its posts only the
/// semantic leg found.
fn picks_of_fusion(
    targets: &[Target],
    fields: &Fields,
    asked: intent::Asked,
    best: &[Candidate],
    complete: usize,
    near: &[Near],
    named: &NamedTopics,
) -> Result<(Vec<Pick>, u64), SearchError> {
    let lexical_ids: Vec<i64> = best.iter().map(|c| c.post_id).collect();
    let near_ids: Vec<i64> = near.iter().map(|n| n.post_id).collect();
    let mut fused = fusion::fuse(&lexical_ids, complete, &near_ids, fusion::SEMANTIC_WEIGHT);
    let place = |f: &fusion::Fused| match (f.lexical, f.semantic) {
        (Some(at), _) => (best[at].at, best[at].address),
        (None, Some(at)) => (near[at].at, near[at].address),
        (None, None) => unreachable!("a fused post comes from a leg"),
    };
    for f in fused.iter_mut() {
        let (at, address) = place(f);
        if named.holds(at, address) {
            f.name();
            if !f.complete && !asked.status && opens_topic(&targets[at], address)? {
                f.open();
            }
        }
    }
    fusion::named_first(&mut fused, |at| best[at].tier.holds_whole());
    fused.sort_by(fusion::order);
    let mut read: HashMap<i64, Shingles> = HashMap::new();
    let mut named_dates: Vec<(i64, i64)> = Vec::new();
    for f in fused
        .iter_mut()
        .filter(|f| !f.complete)
        .take(answers::LOOKED_AT)
    {
        let (at, address) = place(f);
        let doc: TantivyDocument = targets[at].searcher.doc(address)?;
        let text = doc
            .get_first(fields.content)
            .and_then(|v| v.as_str())
            .unwrap_or("");
        if answers::cannot_answer(text, asked.question) {
            f.scale(answers::NON_ANSWER_FACTOR);
        }
        if f.named {
            let date = doc.get_first(fields.date).and_then(|v| v.as_i64());
            named_dates.extend(date.map(|date| (f.post_id, date)));
        }
        let images: Vec<&str> = doc
            .get_all(fields.images)
            .filter_map(|v| v.as_str())
            .collect();
        read.insert(f.post_id, Shingles::of(text, &images));
    }
    if asked.status {
        superseding::prefer_later(&mut fused, &named_dates);
    }
    fused.sort_by(fusion::order);
    let mut shown: Vec<&Shingles> = Vec::new();
    for f in fused.iter_mut() {
        let Some(shingles) = read.get(&f.post_id) else {
            continue;
        };
        if shown.iter().any(|seen| shingles.repeats(seen)) {
            f.scale(near_duplicates::NEAR_DUPLICATE_FACTOR);
        } else {
            shown.push(shingles);
        }
    }
    fused.sort_by(fusion::order);
    let mut semantic_only = 0;
    let picks = fused
        .into_iter()
        .map(|f| match (f.lexical, f.semantic) {
            (Some(at), near) if f.complete => Pick::Complete {
                candidate: best[at],
                near: near.is_some(),
            },
            (Some(at), near) => Pick::Fused {
                candidate: best[at],
                score: f.score,
                near: near.is_some(),
            },
            (None, Some(at)) => {
                semantic_only += 1;
                Pick::Semantic {
                    near: near[at],
                    score: f.score,
                }
            }
            (None, None) => unreachable!("a fused post comes from a leg"),
        })
        .collect();
    Ok((picks, semantic_only))
}
