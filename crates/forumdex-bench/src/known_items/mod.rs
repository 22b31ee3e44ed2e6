//! Known-item queries generated from a corpus file: queries whose answer is known because
//! they are made from the answer (BENCHMARKS.md "Known-item relevance"). `fdx-queries`
//! writes them as the TSV `forumdex relevance --queries` reads.
//!
//! One streaming pass ([`Corpus::read`]) keeps the canonical version of every post (latest
//! `observed_at`, as the importer chooses) that is not a deletion, with its distinct
//! lowercase tokens (runs of letters and digits of the searchable text, plus the title of
//! opening posts), the words a user would type (letters only, 4+ of them, not inside a URL,
//! domain or e-mail, not a username), and the quote headers it holds. A word is
//! **distinctive** when 2 to `max_df` posts hold it, `max_df` = max(50, posts / 1000): no
//! single word names a post, the combination does. Posts with fewer than 20 words are
//! skipped. Each kind walks the posts in its own seeded random order (ChaCha8, seed + kind)
//! and takes at most `per_kind` queries:
//!
//! - `words3`: three distinctive words of the post, drawn at random, that occur together in
//!   no other post (exact lowercase words); `words2`: the same with two.
//! - `phrase`: 4 to 6 consecutive words copied from the post's plain text (no mark, number or
//!   address inside), holding a distinctive word, whose words occur together in no other post.
//! - `typo`: the `words3`, `words2` and `phrase` queries in turn, each with one letter of one
//!   word of 5+ letters changed (substitution, deletion, insertion or transposition, never the
//!   first letter) into a word that occurs in no post.
//! - `question`: a question (a sentence ending with `?`, 4 to 14 words) asked in a post that
//!   other posts quote (an SMF header `Quote from: NAME on DATE` naming exactly one post by
//!   author and time): the question's words of 4+ letters, two of them distinctive, occur
//!   together only in that post and the posts quoting it, which are the expected posts (the
//!   question and its known answers; finding either counts).
//! - `question-template`: "how does W1 W2 work?" and four other templates around two
//!   distinctive words that occur together in exactly one post, the expected one.
//!
//! Every query searches every index (`lang` = `-`).

mod corpus;
mod make;
mod quotes;
mod typo;
mod words;

use std::collections::HashSet;
use std::fmt::Write as _;

use forumdex_ingest::source::Source;
use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;

pub use corpus::Corpus;
use make::Maker;

/// Fewest words of a post that queries are made from.
const MIN_POST_WORDS: u32 = 20;

/// The kinds of known-item query, in the order they are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    /// Three distinctive words that occur together in exactly one post.
    Words3,
    /// Two distinctive words that occur together in exactly one post.
    Words2,
    /// 4 to 6 consecutive words copied from a post.
    Phrase,
    /// A `words3`, `words2` or `phrase` query with one letter of one word mistyped.
    Typo,
    /// A question asked in a post that others quote (answer).
    Question,
    /// A question template around two distinctive words of a post.
    QuestionTemplate,
}

impl Kind {
    /// Every kind.
    pub const ALL: [Kind; 6] = [
        Kind::Words3,
        Kind::Words2,
        Kind::Phrase,
        Kind::Typo,
        Kind::Question,
        Kind::QuestionTemplate,
    ];

    /// The name in the query file's `kind` column.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Words3 => "words3",
            Kind::Words2 => "words2",
            Kind::Phrase => "phrase",
            Kind::Typo => "typo",
            Kind::Question => "question",
            Kind::QuestionTemplate => "question-template",
        }
    }

    /// Whether queries of this kind carry a typo (the others are exact).
    pub fn is_typo(self) -> bool {
        self == Kind::Typo
    }

    /// The seed of this kind's random stream, from the set's seed.
    fn seed(self, seed: u64) -> u64 {
        seed.wrapping_add(1 + self as u64)
    }
}

/// One query and what answers it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KnownItem {
    /// What kind of query it is.
    pub kind: Kind,
    /// The query as a user types it (no tab or line break).
    pub query: String,
    /// The post IDs that answer it, ascending.
    pub expected: Vec<i64>,
}

/// How many queries, from which random stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// Most queries of each kind.
    pub per_kind: usize,
    /// Seed of every random choice: the same corpus and seed give the same queries.
    pub seed: u64,
}

/// A generated query set with the facts of its corpus.
#[derive(Debug, Clone)]
pub struct QuerySet {
    /// The queries, kind by kind in [`Kind::ALL`]'s order.
    pub items: Vec<KnownItem>,
    /// Served canonical posts of the corpus.
    pub posts: usize,
    /// Most posts a distinctive word is in.
    pub max_df: u32,
    /// Posts quoted by others (the material of `question` queries).
    pub quoted_posts: usize,
    /// The options it was made with.
    pub options: Options,
}

impl QuerySet {
    /// Queries of `kind`.
    pub fn count(&self, kind: Kind) -> usize {
        self.items.iter().filter(|i| i.kind == kind).count()
    }

    /// The set as `forumdex relevance` reads it: comment lines naming `corpus` and the
    /// options, then `query`, `lang` (`-`), expected post IDs, `kind`, tab-separated.
    pub fn to_tsv(&self, corpus: &str) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "# Known-item queries made by fdx-queries (crates/forumdex-bench/src/known_items) from \
             {corpus}: {} posts, seed {}, at most {} per kind; distinctive words are in 2 to {} posts.",
            self.posts, self.options.seed, self.options.per_kind, self.max_df
        );
        out.push_str("# query\tlang\texpected post ids\tkind\n");
        for item in &self.items {
            let expected: Vec<String> = item.expected.iter().map(i64::to_string).collect();
            let _ = writeln!(
                out,
                "{}\t-\t{}\t{}",
                item.query,
                expected.join(","),
                item.kind.as_str()
            );
        }
        out
    }
}

/// Reads `source` (twice: a second pass fetches the texts of the posts that phrases and
/// questions are copied from) and makes the queries.
pub fn generate(source: &Source, options: Options) -> anyhow::Result<QuerySet> {
    let corpus = Corpus::read(source)?;
    let max_df = 50.max(corpus.posts.len() as u32 / 1000);
    let maker = Maker::new(&corpus, max_df);
    let eligible: Vec<u32> = (0..corpus.posts.len() as u32)
        .filter(|&p| {
            corpus.posts[p as usize].length >= MIN_POST_WORDS
                && maker.distinctive_words(p).len() >= 2
        })
        .collect();
    let order = |kind: Kind| {
        let mut rng = ChaCha8Rng::seed_from_u64(kind.seed(options.seed));
        let mut posts = eligible.clone();
        posts.shuffle(&mut rng);
        (rng, posts)
    };
    let id = |post: u32| corpus.posts[post as usize].post_id;
    let n = options.per_kind;
    let mut sets: Vec<Vec<KnownItem>> = vec![Vec::new(); Kind::ALL.len()];
    for (kind, words) in [(Kind::Words3, 3), (Kind::Words2, 2)] {
        let (mut rng, posts) = order(kind);
        sets[kind as usize] = posts
            .into_iter()
            .filter_map(|p| Some((p, maker.words(&mut rng, p, words)?.join(" "))))
            .take(n)
            .map(|(p, query)| item(kind, query, vec![id(p)]))
            .collect();
    }
    let (mut rng, posts) = order(Kind::QuestionTemplate);
    sets[Kind::QuestionTemplate as usize] = posts
        .into_iter()
        .filter_map(|p| Some((p, maker.template(&mut rng, p)?)))
        .take(n)
        .map(|(p, query)| item(Kind::QuestionTemplate, query, vec![id(p)]))
        .collect();

    // Phrases and questions need texts: those of the first posts of the phrase order (more
    // than enough: most posts give a phrase) and of every quoted post.
    let (mut phrase_rng, mut phrase_posts) = order(Kind::Phrase);
    phrase_posts.truncate(3 * n + 50);
    let mut quoted: Vec<(u32, &Vec<u32>)> =
        corpus.quoted_by.iter().map(|(&q, by)| (q, by)).collect();
    quoted.shuffle(&mut ChaCha8Rng::seed_from_u64(
        Kind::Question.seed(options.seed),
    ));
    let line = |post: u32| corpus.posts[post as usize].line;
    let lines: HashSet<u64> = phrase_posts
        .iter()
        .copied()
        .chain(quoted.iter().map(|(q, _)| *q))
        .map(line)
        .collect();
    let texts = corpus::texts(source, &lines)?;
    let text = |post: u32| texts.get(&line(post)).map_or("", String::as_str);
    sets[Kind::Phrase as usize] = phrase_posts
        .into_iter()
        .filter_map(|p| Some((p, maker.phrase(&mut phrase_rng, p, text(p))?)))
        .take(n)
        .map(|(p, query)| item(Kind::Phrase, query, vec![id(p)]))
        .collect();
    sets[Kind::Question as usize] = quoted
        .into_iter()
        .filter_map(|(q, by)| {
            let query = maker.question(q, by, text(q))?;
            Some(item(
                Kind::Question,
                query,
                by.iter().chain([&q]).map(|&p| id(p)).collect(),
            ))
        })
        .take(n)
        .collect();
    sets[Kind::Typo as usize] = typos(&maker, &sets, options);
    Ok(QuerySet {
        items: sets.into_iter().flatten().collect(),
        posts: corpus.posts.len(),
        max_df,
        quoted_posts: corpus.quoted_by.len(),
        options,
    })
}

/// Typo variants of the `words3`, `words2` and `phrase` queries, taken in turn.
fn typos(maker: &Maker<'_>, sets: &[Vec<KnownItem>], options: Options) -> Vec<KnownItem> {
    let mut rng = ChaCha8Rng::seed_from_u64(Kind::Typo.seed(options.seed));
    let sources = [Kind::Words3, Kind::Words2, Kind::Phrase].map(|k| &sets[k as usize]);
    let longest = sources.iter().map(|s| s.len()).max().unwrap_or(0);
    (0..longest)
        .flat_map(|i| sources.iter().filter_map(move |s| s.get(i)))
        .filter_map(|exact| {
            let query = maker.typo(&mut rng, &exact.query)?;
            Some(item(Kind::Typo, query, exact.expected.clone()))
        })
        .take(options.per_kind)
        .collect()
}

fn item(kind: Kind, query: String, mut expected: Vec<i64>) -> KnownItem {
    expected.sort_unstable();
    expected.dedup();
    KnownItem {
        kind,
        query,
        expected,
    }
}
