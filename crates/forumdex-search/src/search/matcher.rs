//! The best matches of a [`Plan`] in one index, in tier order ([`super::tiers`]), found
//! without placing every post that holds a query word.
//!
//! Each query word is a cursor over the postings of its terms (its own term, or the
//! neighbours of a missing word) in the text and the opening titles. The cursors are walked
//! together, one post at a time, in the manner of MaxScore (Turtle and Flood, 1995), with
//! the words tier as the bound. A word weighs 1 when common and one more than all common
//! words together otherwise, so the words tier orders posts by the weight they hold. Once
//! enough matches are kept (all `depth` of them, or the `shown` best) and the worst of
//! those holds weight `m`, no post holding less can enter (or be shown), so the commonest
//! words whose weights add up to less than `m` are only looked up (`seek`) for the posts
//! the other words lead to, never walked. A first walk takes only posts holding a word that
//! is not common, and posts holding common words alone are walked only when it found fewer
//! than `shown`. A query of rare words next to common ones ("how does X work") thus reads
//! the common words' postings only where a rare word stands. Each post that can still enter is placed exactly: its typos,
//! then its close pairs (from positions), exactness and BM25, computed only as far as its
//! place needs. The segments are walked side by side on the node's cores and what they
//! offered is replayed in segment order ([`walk_index`]): the matches kept are those of one
//! walk in order, however many threads walked.

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::sync::Mutex;

use forumdex_corpus::TakedownSet;
use tantivy::fastfield::AliveBitSet;
use tantivy::postings::{Postings, SegmentPostings};
use tantivy::query::Bm25Weight;
use tantivy::schema::{Field, IndexRecordOption};
use tantivy::{DocAddress, DocId, DocSet, Searcher, SegmentReader, TERMINATED, Term};

use super::parallel;
use super::tiers::{Plan, TITLE_WEIGHT, Tier, stand_close};
use crate::SearchError;
use crate::index::Fields;

/// Postings of the query's words worth a thread of their own in the walk: below this, one
/// thread walks every segment (spawning another costs more than it saves). The unit tests
/// walk every index on all the cores, so the replay is what they check.
const POSTINGS_PER_THREAD: u64 = if cfg!(test) { 1 } else { 100_000 };

/// A kept match.
#[derive(Debug, Clone, Copy)]
pub struct Match {
    /// Its place.
    pub tier: Tier,
    /// The document.
    pub address: DocAddress,
}

/// What a search leaves out.
#[derive(Debug, Clone, Copy)]
pub struct Filter<'a> {
    /// Leave out low-quality replies.
    pub skip_hidden: bool,
    /// Keep only posts with an image.
    pub images_only: bool,
    /// Takedowns in force.
    pub exclude: &'a TakedownSet,
}

/// How many matches [`best`] keeps.
#[derive(Debug, Clone, Copy)]
pub struct Depth {
    /// At most this many in all.
    pub kept: usize,
    /// The best this many are what can be shown; the rest serve the re-rank within their
    /// tiers.
    pub shown: usize,
    /// The words tier (missing words, missing common words) that other indexes already
    /// fill `shown` places with or better: no post lacking more is kept.
    pub bar: Option<(u32, u32)>,
}

/// The best matches of `plan` in the index of `searcher`, best first (tier, then higher
/// BM25, then document order): the `shown` best, and with them up to `kept` in all for the
/// re-rank within their tiers. Matches of a tier worse than the `shown`-th best's are left
/// out: no re-rank within a tier lifts them into view.
///
/// When the plan has both common words and others, posts holding only common words are
/// looked at only if fewer than `shown` posts hold another word.
pub fn best(
    searcher: &Searcher,
    fields: &Fields,
    plan: &Plan,
    filter: Filter<'_>,
    depth: Depth,
) -> Result<Vec<Match>, SearchError> {
    let shown = depth.shown.min(depth.kept);
    if shown == 0 {
        return Ok(Vec::new());
    }
    let weights = WordWeights::of(searcher, fields, plan)?;
    let (rare, common) = plan.word_counts();
    let rare_weight = common + 1;
    let bar_weight = depth.bar.map_or(1, |(missing, missing_common)| {
        if missing > rare {
            1
        } else {
            (rare - missing) * rare_weight + common.saturating_sub(missing_common)
        }
    });
    let new_kept = |start: u32| Kept {
        heap: BinaryHeap::with_capacity(depth.kept.min(4_096) + 1),
        leaders: BinaryHeap::with_capacity(shown.min(4_096) + 1),
        depth: depth.kept,
        shown,
        start: start.max(bar_weight),
        rare_weight,
        counts: (rare, common),
    };
    if rare > 0 && common > 0 && bar_weight < rare_weight {
        let mut kept = new_kept(rare_weight);
        walk_index(searcher, fields, plan, filter, &weights, &mut kept)?;
        if kept.leaders.len() >= shown {
            return Ok(kept.into_sorted());
        }
    }
    let mut kept = new_kept(1);
    walk_index(searcher, fields, plan, filter, &weights, &mut kept)?;
    Ok(kept.into_sorted())
}

/// Offers `kept` every post of the index that can enter it, as one walk of the segments in
/// order would. The segments are walked side by side on as many of the node's cores as
/// the words' postings are worth ([`POSTINGS_PER_THREAD`]), each listing the matches it
/// offered in its walk's order; as the lists come in, they are replayed into `kept` in
/// segment order, each match offered only if it still holds the floor `kept` has reached
/// by then ([`Replay`]). A segment's walk starts from what the replay has kept so far, so
/// its floor is never above the one a walk in order would have had there: its list holds
/// every match that walk would have offered, and the replay keeps exactly what it kept.
fn walk_index(
    searcher: &Searcher,
    fields: &Fields,
    plan: &Plan,
    filter: Filter<'_>,
    weights: &WordWeights,
    kept: &mut Kept,
) -> Result<(), SearchError> {
    let segments = searcher.segment_readers();
    let postings: u64 = plan.words.iter().map(|w| w.text_doc_freq).sum();
    let threads = parallel::threads_for(postings, POSTINGS_PER_THREAD, segments.len());
    let replay = Mutex::new(Replay {
        kept: kept.clone(),
        lists: vec![None; segments.len()],
        next: 0,
    });
    let lock = || replay.lock().expect("a walk does not panic");
    parallel::each_in_parallel(threads, segments, |ord, segment| {
        let mut own = lock().kept.clone();
        let offered = walk_segment(segment, ord, fields, plan, filter, weights, &mut own)?;
        lock().add(ord, offered);
        Ok(())
    })?;
    *kept = replay.into_inner().expect("a walk does not panic").kept;
    Ok(())
}

/// The matches each segment's walk offered, replayed into one `Kept` in segment order as
/// soon as every segment before has come in.
struct Replay {
    kept: Kept,
    /// The offered matches of each segment not replayed yet.
    lists: Vec<Option<Vec<Match>>>,
    /// The first segment not replayed.
    next: usize,
}

impl Replay {
    fn add(&mut self, ord: usize, offered: Vec<Match>) {
        self.lists[ord] = Some(offered);
        while let Some(list) = self.lists.get_mut(self.next).and_then(Option::take) {
            for candidate in list {
                if self.kept.weight(&candidate.tier) >= self.kept.floor() {
                    self.kept.offer(candidate);
                }
            }
            self.next += 1;
        }
    }
}

/// Offers `kept` every post of one segment that can enter it; the matches offered, in
/// order.
fn walk_segment(
    segment: &SegmentReader,
    ord: usize,
    fields: &Fields,
    plan: &Plan,
    filter: Filter<'_>,
    weights: &WordWeights,
    kept: &mut Kept,
) -> Result<Vec<Match>, SearchError> {
    let mut offered = Vec::new();
    let Some(mut admit) = Admission::of(segment, fields, filter)? else {
        return Ok(offered);
    };
    let mut cursors = cursors(segment, ord, fields, plan, kept.rare_weight)?;
    if cursors.is_empty() {
        return Ok(offered);
    }
    let norms = segment.get_fieldnorms_reader(fields.content)?;
    // Lightest and commonest first: the prefix that the worst kept match makes
    // non-essential.
    cursors.sort_by_key(|c| (c.weight, std::cmp::Reverse(c.doc_freq)));
    let mut walk = Walk {
        plan,
        weights,
        cursors,
        positions: Vec::new(),
    };
    loop {
        let floor = kept.floor();
        let optional = walk.optional(floor);
        if optional >= walk.cursors.len() {
            break;
        }
        let doc = walk.cursors[optional..]
            .iter()
            .map(|c| c.doc)
            .min()
            .unwrap_or(TERMINATED);
        if doc == TERMINATED {
            break;
        }
        if admit.admits(doc) {
            let fieldnorm = norms.fieldnorm_id(doc);
            let worst = kept.worst().map(|w| w.tier);
            if let Some(tier) = walk.place(doc, optional, floor, fieldnorm, worst) {
                let candidate = Match {
                    tier,
                    address: DocAddress::new(ord as u32, doc),
                };
                kept.offer(candidate);
                offered.push(candidate);
            }
        }
        for cursor in &mut walk.cursors[optional..] {
            if cursor.doc == doc {
                cursor.advance();
            }
        }
    }
    Ok(offered)
}

/// Better first: the lower tier key, then the higher BM25, then the earlier document.
fn compare(a: &Match, b: &Match) -> Ordering {
    a.tier
        .key()
        .cmp(&b.tier.key())
        .then(b.tier.bm25.total_cmp(&a.tier.bm25))
        .then(a.address.cmp(&b.address))
}

/// A kept match, ordered worst first for the heap.
#[derive(Clone)]
struct Worse(Match);

impl PartialEq for Worse {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Worse {}
impl PartialOrd for Worse {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Worse {
    fn cmp(&self, other: &Self) -> Ordering {
        compare(&self.0, &other.0)
    }
}

/// The best matches so far, the worst on top.
#[derive(Clone)]
struct Kept {
    /// The best `depth`.
    heap: BinaryHeap<Worse>,
    /// The best `shown` of them.
    leaders: BinaryHeap<Worse>,
    depth: usize,
    shown: usize,
    /// The weight every post must hold (1, or more on a first walk of the words that are
    /// not common).
    start: u32,
    /// The weight of a word that is not common.
    rare_weight: u32,
    /// The plan's words that are not common, and the common ones.
    counts: (u32, u32),
}

impl Kept {
    /// The worst kept match once `depth` are kept (a post must beat it to enter).
    fn worst(&self) -> Option<&Match> {
        (self.heap.len() >= self.depth)
            .then(|| self.heap.peek().map(|w| &w.0))
            .flatten()
    }

    /// The weight of words a post must hold to enter: at least the worst kept match's once
    /// `depth` are kept, and at least the `shown`-th best's once `shown` are (a post
    /// holding less is in a worse tier than `shown` others).
    fn floor(&self) -> u32 {
        let full = |heap: &BinaryHeap<Worse>, size: usize| {
            (heap.len() >= size)
                .then(|| heap.peek().map(|w| self.weight(&w.0.tier)))
                .flatten()
                .unwrap_or(0)
        };
        self.start
            .max(full(&self.heap, self.depth))
            .max(full(&self.leaders, self.shown))
    }

    fn weight(&self, tier: &Tier) -> u32 {
        let rare = self.counts.0 - tier.missing_words;
        let common = self.counts.1 - tier.missing_common;
        rare * self.rare_weight + common
    }

    fn offer(&mut self, candidate: Match) {
        for (heap, size) in [
            (&mut self.heap, self.depth),
            (&mut self.leaders, self.shown),
        ] {
            if heap.len() >= size {
                match heap.peek() {
                    Some(worst) if compare(&candidate, &worst.0) == Ordering::Less => {
                        heap.pop();
                    }
                    _ => return,
                }
            }
            heap.push(Worse(candidate));
        }
    }

    fn into_sorted(self) -> Vec<Match> {
        let mut best: Vec<Match> = self.heap.into_iter().map(|k| k.0).collect();
        best.sort_by(compare);
        best
    }
}

/// Per word, the BM25 weight of each text term and the score of a title match.
struct WordWeights {
    text: Vec<Vec<Bm25Weight>>,
    title: Vec<f32>,
}

impl WordWeights {
    fn of(searcher: &Searcher, fields: &Fields, plan: &Plan) -> Result<Self, SearchError> {
        let docs = searcher.num_docs() as f64;
        // BM25's statistics as tantivy's `Bm25Weight::for_terms` takes them from a
        // searcher (documents counted with the deleted ones), the document frequencies
        // from the plan's table.
        let (mut tokens, mut max_docs) = (0, 0);
        for segment in searcher.segment_readers() {
            tokens += segment.inverted_index(fields.content)?.total_num_tokens();
            max_docs += u64::from(segment.max_doc());
        }
        let average_length = tokens as f32 / max_docs as f32;
        let mut text = Vec::with_capacity(plan.words.len());
        let mut title = Vec::with_capacity(plan.words.len());
        for word in &plan.words {
            let (terms, share) = match &word.term {
                Some(term) => (std::slice::from_ref(term), 1.0),
                None => (
                    word.neighbour_terms.as_slice(),
                    1.0 / word.neighbour_terms.len().max(1) as f32,
                ),
            };
            let mut weights = Vec::with_capacity(terms.len());
            for term in terms {
                let doc_freq = plan.terms.doc_freq(fields.content, term);
                weights.push(
                    Bm25Weight::for_one_term_without_explain(doc_freq, max_docs, average_length)
                        .boost_by(share),
                );
            }
            text.push(weights);
            // Only opening posts have a searchable title, so BM25's length normalisation (an
            // average over every document) would crush title matches: a title match scores a
            // constant times the term's title IDF instead.
            let title_score = match &word.term {
                Some(term) => {
                    let df = plan.terms.doc_freq(fields.title_text, term) as f64;
                    if df > 0.0 {
                        (TITLE_WEIGHT * (1.0 + (docs - df + 0.5) / (df + 0.5)).ln()) as f32
                    } else {
                        0.0
                    }
                }
                None => 0.0,
            };
            title.push(title_score);
        }
        Ok(Self { text, title })
    }
}

/// One query word's postings in one segment: the union of its terms in the text and the
/// opening titles.
struct WordCursor {
    /// The word's place in the plan.
    word: usize,
    /// Text postings, one per term (the order of [`WordWeights::text`]).
    text: Vec<Option<SegmentPostings>>,
    /// Title postings of its terms.
    titles: Vec<SegmentPostings>,
    /// The word as typed in the `spell` field, when its term differs.
    typed: Option<SegmentPostings>,
    /// The smallest current document of `text` and `titles`.
    doc: DocId,
    /// Postings in all (to order words from common to rare).
    doc_freq: u32,
    /// What holding the word weighs in the words tier.
    weight: u32,
}

impl WordCursor {
    fn postings(&mut self) -> impl Iterator<Item = &mut SegmentPostings> {
        self.text.iter_mut().flatten().chain(self.titles.iter_mut())
    }

    fn refresh(&mut self) {
        self.doc = self.postings().map(|p| p.doc()).min().unwrap_or(TERMINATED);
    }

    /// Moves to `target` or the first document after it; whether the word is at `target`.
    fn seek(&mut self, target: DocId) -> bool {
        if self.doc < target {
            for postings in self.postings() {
                if postings.doc() < target {
                    postings.seek(target);
                }
            }
            self.refresh();
        }
        self.doc == target
    }

    /// Moves past the current document.
    fn advance(&mut self) {
        let doc = self.doc;
        for postings in self.postings() {
            if postings.doc() == doc {
                postings.advance();
            }
        }
        self.refresh();
    }

    /// The text postings of the word's own term, when it is at `doc`.
    fn own_text_at(&mut self, doc: DocId) -> Option<&mut SegmentPostings> {
        self.text
            .first_mut()?
            .as_mut()
            .filter(|postings| postings.doc() == doc)
    }
}

/// The cursors of the words of `plan` that the segment holds.
fn cursors(
    segment: &SegmentReader,
    ord: usize,
    fields: &Fields,
    plan: &Plan,
    rare_weight: u32,
) -> Result<Vec<WordCursor>, SearchError> {
    let spell_index = segment.inverted_index(fields.spell)?;
    let mut cursors = Vec::new();
    for (at, word) in plan.words.iter().enumerate() {
        let in_pair = plan.pairs.iter().any(|&(l, r)| l == at || r == at);
        let record = if in_pair {
            IndexRecordOption::WithFreqsAndPositions
        } else {
            IndexRecordOption::WithFreqs
        };
        let terms: Vec<&String> = word.term.iter().chain(&word.neighbour_terms).collect();
        let mut cursor = WordCursor {
            word: at,
            text: Vec::with_capacity(terms.len()),
            titles: Vec::new(),
            typed: None,
            doc: TERMINATED,
            doc_freq: 0,
            weight: if word.common { 1 } else { rare_weight },
        };
        for term in terms {
            let text = plan
                .terms
                .postings(segment, ord, fields.content, term, record)?;
            cursor.text.push(text);
            if let Some(title) = plan.terms.postings(
                segment,
                ord,
                fields.title_text,
                term,
                IndexRecordOption::Basic,
            )? {
                cursor.titles.push(title);
            }
        }
        if let Some(typed) = &word.typed {
            cursor.typed = spell_index.read_postings(
                &Term::from_field_text(fields.spell, typed),
                IndexRecordOption::Basic,
            )?;
        }
        cursor.doc_freq = cursor.postings().map(|p| p.doc_freq()).sum();
        cursor.refresh();
        if cursor.doc != TERMINATED {
            cursors.push(cursor);
        }
    }
    Ok(cursors)
}

/// The walk over one segment.
struct Walk<'a> {
    plan: &'a Plan,
    weights: &'a WordWeights,
    /// Commonest word first; those before the walk's `optional` mark are only sought.
    cursors: Vec<WordCursor>,
    /// Positions of each pair word at the current document, read once.
    positions: Vec<(usize, Vec<u32>)>,
}

impl Walk<'_> {
    /// How many cursors, from the first, weigh less than `floor` together: those a post
    /// cannot enter by alone.
    fn optional(&self, floor: u32) -> usize {
        let mut weight = 0;
        self.cursors
            .iter()
            .take_while(|c| {
                weight += c.weight;
                weight < floor
            })
            .count()
    }

    /// The tier of `doc` (which the walked cursors from `optional` on lead to), when it holds
    /// at least weight `floor` and can beat `worst`.
    fn place(
        &mut self,
        doc: DocId,
        optional: usize,
        floor: u32,
        fieldnorm: u8,
        worst: Option<Tier>,
    ) -> Option<Tier> {
        let (mut rare, mut common, mut weight, mut typos) = (0, 0, 0, 0);
        for (at, cursor) in self.cursors.iter_mut().enumerate() {
            let here = if at < optional {
                cursor.seek(doc)
            } else {
                cursor.doc == doc
            };
            if here {
                weight += cursor.weight;
                let word = &self.plan.words[cursor.word];
                if word.common {
                    common += 1;
                } else {
                    rare += 1;
                }
                if word.term.is_none() {
                    typos += 1;
                }
            }
        }
        if weight < floor {
            return None;
        }
        let (all_rare, all_common) = self.plan.word_counts();
        let head = (all_rare - rare, all_common - common, typos);
        let mut bm25 = None;
        if let Some(worst) = worst {
            // The best place the post could take: every word it holds as typed, every pair
            // of words it holds standing close. Only BM25 can lift it above an equal worst.
            match self.best_case(doc, head).cmp(&worst.key()) {
                Ordering::Greater => return None,
                Ordering::Equal => {
                    let score = self.bm25_at(doc, fieldnorm);
                    if f64::from(score) <= worst.bm25 {
                        return None;
                    }
                    bm25 = Some(score);
                }
                Ordering::Less => {}
            }
        }
        let bm25 = bm25.unwrap_or_else(|| self.bm25_at(doc, fieldnorm));
        let mut exact = 0;
        self.positions.clear();
        for cursor in self.cursors.iter_mut().filter(|c| c.doc == doc) {
            let word = &self.plan.words[cursor.word];
            if word.term.is_none() {
                continue;
            }
            let as_typed = cursor.typed.as_mut().is_none_or(|typed| at_doc(typed, doc));
            if as_typed {
                exact += 1;
            }
            let in_pair = self
                .plan
                .pairs
                .iter()
                .any(|&(l, r)| l == cursor.word || r == cursor.word);
            if in_pair && let Some(postings) = cursor.own_text_at(doc) {
                let mut positions = Vec::with_capacity(postings.term_freq() as usize);
                postings.positions(&mut positions);
                self.positions.push((cursor.word, positions));
            }
        }
        let at = |word: usize| {
            self.positions
                .iter()
                .find(|(w, _)| *w == word)
                .map(|(_, p)| p.as_slice())
        };
        let close = self
            .plan
            .pairs
            .iter()
            .filter(|&&(l, r)| match (at(l), at(r)) {
                (Some(left), Some(right)) => stand_close(left, right),
                _ => false,
            })
            .count() as u32;
        Some(
            self.plan
                .tier((rare, common), typos, close, exact, f64::from(bm25)),
        )
    }

    /// The key of the best tier `doc` could take, given its `head` (missing words, missing
    /// common words, typos): as if it held each word it holds as typed, and every pair of
    /// them stood close.
    fn best_case(&self, doc: DocId, head: (u32, u32, u32)) -> (u32, u32, u32, u32, u32) {
        let holds_term = |word: usize| {
            self.plan.words[word].term.is_some()
                && self.cursors.iter().any(|c| c.word == word && c.doc == doc)
        };
        let terms = self.plan.words.iter().filter(|w| w.term.is_some()).count();
        let held_terms = (0..self.plan.words.len())
            .filter(|&w| holds_term(w))
            .count();
        let close = self
            .plan
            .pairs
            .iter()
            .filter(|&&(l, r)| holds_term(l) && holds_term(r))
            .count();
        (
            head.0,
            head.1,
            head.2,
            (terms - held_terms) as u32,
            (self.plan.pairs.len() - close) as u32,
        )
    }

    /// BM25 of `doc` (which the cursors at it hold): the text terms, plus the title score
    /// of each word held as typed in an opening post's title.
    fn bm25_at(&self, doc: DocId, fieldnorm: u8) -> f32 {
        let mut bm25 = 0.0f32;
        for cursor in self.cursors.iter().filter(|c| c.doc == doc) {
            let weights = &self.weights.text[cursor.word];
            for (postings, weight) in cursor.text.iter().zip(weights) {
                if let Some(postings) = postings
                    && postings.doc() == doc
                {
                    bm25 += weight.score(fieldnorm, postings.term_freq());
                }
            }
            if self.plan.words[cursor.word].term.is_some()
                && cursor.titles.iter().any(|t| t.doc() == doc)
            {
                bm25 += self.weights.title[cursor.word];
            }
        }
        bm25
    }
}

/// Which documents of a segment the search may return.
pub(super) struct Admission<'a> {
    alive: Option<&'a AliveBitSet>,
    hidden: Option<SegmentPostings>,
    images: Option<SegmentPostings>,
    excluded: Vec<DocId>,
}

impl<'a> Admission<'a> {
    /// `None` when the segment can return nothing (image search, and no post of it has one).
    pub(super) fn of(
        segment: &'a SegmentReader,
        fields: &Fields,
        filter: Filter<'_>,
    ) -> Result<Option<Self>, SearchError> {
        let flag = |field: Field| -> Result<Option<SegmentPostings>, SearchError> {
            Ok(segment
                .inverted_index(field)?
                .read_postings(&Term::from_field_u64(field, 1), IndexRecordOption::Basic)?)
        };
        let images = if filter.images_only {
            match flag(fields.has_image)? {
                Some(postings) => Some(postings),
                None => return Ok(None),
            }
        } else {
            None
        };
        let hidden = if filter.skip_hidden {
            flag(fields.hidden)?
        } else {
            None
        };
        let excluded = taken_down(segment, fields, filter.exclude)?;
        Ok(Some(Self {
            alive: segment.alive_bitset(),
            hidden,
            images,
            excluded,
        }))
    }

    /// Whether `doc` may be returned; documents are asked in ascending order.
    pub(super) fn admits(&mut self, doc: DocId) -> bool {
        if self.alive.is_some_and(|alive| !alive.is_alive(doc)) {
            return false;
        }
        if self.hidden.as_mut().is_some_and(|p| at_doc(p, doc)) {
            return false;
        }
        if self.images.as_mut().is_some_and(|p| !at_doc(p, doc)) {
            return false;
        }
        self.excluded.binary_search(&doc).is_err()
    }
}

/// The documents of `segment` that takedowns in force leave out, ascending.
pub(super) fn taken_down(
    segment: &SegmentReader,
    fields: &Fields,
    exclude: &TakedownSet,
) -> Result<Vec<DocId>, SearchError> {
    let mut docs = Vec::new();
    let taken_down = [
        (fields.post_id, &exclude.posts),
        (fields.topic_id, &exclude.topics),
        (fields.author_uid, &exclude.profiles),
    ];
    for (field, ids) in taken_down {
        if ids.is_empty() {
            continue;
        }
        let index = segment.inverted_index(field)?;
        for &id in ids {
            if let Some(mut postings) =
                index.read_postings(&Term::from_field_i64(field, id), IndexRecordOption::Basic)?
            {
                while postings.doc() != TERMINATED {
                    docs.push(postings.doc());
                    postings.advance();
                }
            }
        }
    }
    docs.sort_unstable();
    Ok(docs)
}

/// Whether `postings` holds `doc`, moving it forward to `doc` when it is behind.
fn at_doc(postings: &mut SegmentPostings, doc: DocId) -> bool {
    if postings.doc() < doc {
        postings.seek(doc);
    }
    postings.doc() == doc
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use tantivy::{Index, TantivyDocument};

    use super::*;
    use crate::analysis;
    use crate::index::{LangIndex, schema};
    use crate::search::{Target, count, tiers, words};

    /// Words from common to rare (each one a third less likely than the one before), with a
    /// suffix that English stemming removes on some of them.
    const VOCABULARY: [&str; 14] = [
        "bitcoin",
        "mining",
        "wallet",
        "difficulty",
        "exchange",
        "hardware",
        "retarget",
        "halving",
        "mnemonic",
        "faucet",
        "scrypt",
        "coinjoin",
        "multisig",
        "lightning",
    ];

    /// A small deterministic generator (xorshift64*), enough to draw test documents.
    struct Draw(u64);

    impl Draw {
        fn below(&mut self, n: usize) -> usize {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as usize % n
        }

        fn word(&mut self) -> String {
            let mut at = 0;
            while at + 1 < VOCABULARY.len() && self.below(3) > 0 {
                at += 1;
            }
            let word = VOCABULARY[VOCABULARY.len() - 1 - at];
            if self.below(4) == 0 {
                format!("{word}s")
            } else {
                word.to_owned()
            }
        }
    }

    /// An index of `docs` random posts in three segments, some of them hidden, some opening
    /// posts with a title, some deleted.
    fn index(docs: usize, draw: &mut Draw) -> (Target, Fields) {
        let (schema, fields) = schema();
        let index = Index::create_in_ram(schema);
        analysis::register(&index, "en");
        let mut writer = index.writer_with_num_threads(1, 15_000_000).unwrap();
        for n in 0..docs {
            let length = 3 + draw.below(30);
            let text: Vec<String> = (0..length)
                .map(|_| {
                    if draw.below(3) == 0 {
                        draw.word()
                    } else {
                        format!("filler{}", draw.below(50))
                    }
                })
                .collect();
            let mut text = text.join(" ");
            // A word a handful of posts hold (fewer than are shown), half of them hidden.
            let rare = draw.below(400) == 0;
            if rare {
                text.push_str(" zyzzyva");
            }
            let mut doc = TantivyDocument::new();
            doc.add_i64(fields.post_id, n as i64);
            doc.add_i64(fields.topic_id, (n / 10) as i64);
            doc.add_text(fields.content, &text);
            doc.add_text(fields.spell, &text);
            if draw.below(5) == 0 {
                let title = format!("{} {}", draw.word(), draw.word());
                doc.add_text(fields.title_text, &title);
                doc.add_text(fields.spell, &title);
            }
            let hidden = if rare { n % 2 == 0 } else { draw.below(6) == 0 };
            doc.add_u64(fields.hidden, u64::from(hidden));
            doc.add_u64(fields.has_image, u64::from(draw.below(2) == 0));
            doc.add_i64(fields.date, n as i64);
            doc.add_u64(fields.is_op, 0);
            doc.add_f64(fields.health_score, 0.5);
            writer.add_document(doc).unwrap();
            if n % (docs / 3) == docs / 3 - 1 {
                writer.commit().unwrap();
            }
        }
        writer.delete_term(Term::from_field_i64(fields.topic_id, 7));
        writer.commit().unwrap();
        let reader = index.reader().unwrap();
        let searcher = reader.searcher();
        let target = Target {
            index: Arc::new(LangIndex {
                key: "en".to_owned(),
                index,
                reader,
            }),
            searcher,
        };
        (target, fields)
    }

    /// Every match, placed without any pruning.
    fn full_walk(
        searcher: &Searcher,
        fields: &Fields,
        plan: &Plan,
        filter: Filter<'_>,
    ) -> Vec<Match> {
        let weights = WordWeights::of(searcher, fields, plan).unwrap();
        let (rare, common) = plan.word_counts();
        let mut kept = Kept {
            heap: BinaryHeap::new(),
            leaders: BinaryHeap::new(),
            depth: usize::MAX,
            shown: usize::MAX,
            start: 1,
            rare_weight: common + 1,
            counts: (rare, common),
        };
        walk_index(searcher, fields, plan, filter, &weights, &mut kept).unwrap();
        kept.into_sorted()
    }

    /// The matches one walk of the segments in order, into one `Kept`, keeps.
    fn walk_in_order(
        searcher: &Searcher,
        fields: &Fields,
        plan: &Plan,
        filter: Filter<'_>,
        kept: &mut Kept,
    ) {
        let weights = WordWeights::of(searcher, fields, plan).unwrap();
        for (ord, segment) in searcher.segment_readers().iter().enumerate() {
            walk_segment(segment, ord, fields, plan, filter, &weights, kept).unwrap();
        }
    }

    fn same(a: &[Match], b: &[Match]) -> bool {
        a.len() == b.len()
            && a.iter().zip(b).all(|(x, y)| {
                x.address == y.address
                    && x.tier.key() == y.tier.key()
                    && (x.tier.bm25 - y.tier.bm25).abs() < 1e-4
            })
    }

    #[test]
    fn pruned_walks_keep_exactly_the_best_of_a_full_walk_and_counts_count_it() {
        let mut draw = Draw(0x9E37_79B9_7F4A_7C15);
        let (target, fields) = index(3_000, &mut draw);
        let exclude = TakedownSet {
            topics: [3].into(),
            posts: [17, 18].into(),
            ..TakedownSet::default()
        };
        let mut compared = 0;
        for round in 0..200 {
            let length = 1 + draw.below(5);
            let mut query: Vec<String> = (0..length).map(|_| draw.word()).collect();
            if round % 4 == 0 {
                // A typo of a word the index holds: matched through its neighbours.
                query.push("retargit".to_owned());
            }
            if round % 3 == 1 {
                query.push("zyzzyva".to_owned());
            }
            if round % 7 == 3 {
                // Fewer matches than hidden posts: the count seeks them one by one.
                query = vec!["zyzzyva".to_owned()];
            }
            let words =
                words::query_words(&[&target.searcher], fields.spell, &query.join(" ")).unwrap();
            let Some(plan) = tiers::plan(&target, &fields, &words) else {
                continue;
            };
            let filter = Filter {
                skip_hidden: round % 2 == 0,
                images_only: round % 5 == 0,
                exclude: &exclude,
            };
            let all = full_walk(&target.searcher, &fields, &plan, filter);
            let total = count::count(&target.searcher, &fields, &plan, filter).unwrap();
            assert_eq!(total, all.len() as u64, "the count of {query:?}");
            for (depth, shown) in [(1, 1), (7, 3), (50, 7), (50, 50)] {
                let pruned = best(
                    &target.searcher,
                    &fields,
                    &plan,
                    filter,
                    Depth {
                        kept: depth,
                        shown,
                        bar: None,
                    },
                )
                .unwrap();
                let mut expected = all[..depth.min(all.len())].to_vec();
                let mut found = pruned.clone();
                if let Some(last_shown) = all.get(shown - 1) {
                    // Beyond the tier of the last match shown, nothing needs to be kept.
                    let bar = last_shown.tier.key();
                    expected.retain(|m| m.tier.key() <= bar);
                    found.retain(|m| m.tier.key() <= bar);
                }
                assert!(
                    same(&found, &expected),
                    "query {query:?} depth {depth} shown {shown}: {found:?} != {expected:?}"
                );
                assert!(pruned.len() <= depth);
                compared += 1;
            }
            let (rare, common) = plan.word_counts();
            // The second walk of `best` and its first (of the words that are not common).
            for (depth, shown, start) in [(50, 7, 1), (20, 20, 1), (300, 20, common + 1)] {
                let kept = || Kept {
                    heap: BinaryHeap::new(),
                    leaders: BinaryHeap::new(),
                    depth,
                    shown,
                    start,
                    rare_weight: common + 1,
                    counts: (rare, common),
                };
                let (mut in_order, mut side_by_side) = (kept(), kept());
                walk_in_order(&target.searcher, &fields, &plan, filter, &mut in_order);
                let weights = WordWeights::of(&target.searcher, &fields, &plan).unwrap();
                walk_index(
                    &target.searcher,
                    &fields,
                    &plan,
                    filter,
                    &weights,
                    &mut side_by_side,
                )
                .unwrap();
                let (in_order, side_by_side) = (in_order.into_sorted(), side_by_side.into_sorted());
                assert!(
                    same(&in_order, &side_by_side),
                    "query {query:?} depth {depth} shown {shown}: the segments walked side by \
                     side kept {side_by_side:?}, in order {in_order:?}"
                );
            }
            if let Some(middle) = all.get(all.len() / 3) {
                // Other indexes already hold 7 posts this good: only better ones matter here.
                let bar = (middle.tier.missing_words, middle.tier.missing_common);
                let depth = Depth {
                    kept: 50,
                    shown: 7,
                    bar: Some(bar),
                };
                let mut found = best(&target.searcher, &fields, &plan, filter, depth).unwrap();
                let good = |m: &Match| (m.tier.missing_words, m.tier.missing_common) <= bar;
                assert!(found.iter().all(good), "{query:?}: a post below the bar");
                let mut expected: Vec<Match> = all.iter().copied().filter(good).take(50).collect();
                if let Some(last_shown) = expected.get(6) {
                    let key = last_shown.tier.key();
                    expected.retain(|m| m.tier.key() <= key);
                    found.retain(|m| m.tier.key() <= key);
                }
                assert!(
                    same(&found, &expected),
                    "query {query:?} bar {bar:?}: {found:?} != {expected:?}"
                );
            }
            let admitted = all.iter().all(|m| {
                let doc = m.address.doc_id;
                let segment = target.searcher.segment_reader(m.address.segment_ord);
                segment.alive_bitset().is_none_or(|a| a.is_alive(doc))
            });
            assert!(admitted, "a deleted document was returned for {query:?}");
        }
        assert!(compared > 300, "only {compared} comparisons");
    }
}
