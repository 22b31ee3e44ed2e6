//! The simulation: plans topics, then emits posts in time order, streaming every line.
//!
//! Memory is bounded by the number of topics (about posts / 12, a few dozen bytes each,
//! plus the title of each topic still receiving posts) and a ring of 64 recent spam posts;
//! no per-post state is kept.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::io::Write;

use anyhow::Context as _;
use chrono::{DateTime, SecondsFormat};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

use crate::boards::{BOARDS, BoardKind, Lang, MEGATHREAD_BOARD};
use crate::images::{PoolImage, UNBOUND_URLS};
use crate::records::{
    AuthorRecord, BoardRecord, ImageRecord, MeritRecord, MeritSender, PostRecord, ProfileRecord,
    TopicRecord,
};
use crate::rng::{mix, skewed, unit};
use crate::text::{self, BodyKind};

/// 2011-01-01T00:00:00Z: the first topics open then.
const BASE_UNIX: i64 = 1_293_840_000;
/// 2013-01-01T00:00:00Z: the megathread opens then.
const MEGATHREAD_UNIX: i64 = 1_356_998_400;
/// 2024-01-01T00:00:00Z: topics are planned to end before this.
const END_UNIX: i64 = 1_704_067_200;
/// 2024-03-01T12:00:00Z: when boards, profiles and images are observed.
const CRAWL_UNIX: i64 = 1_709_294_400;
const DAY: i64 = 86_400;
/// Average posts per topic.
const POSTS_PER_TOPIC: u64 = 12;
/// Profiles per post (one profile per 8 posts).
const POSTS_PER_PROFILE: u64 = 8;
const RING: usize = 64;
const MEGATHREAD_TITLE: &str = "Wall Observer BTC/USD - Bitcoin price movement tracking";

/// What [`run`] wrote.
#[derive(Debug, Default)]
pub(crate) struct Counts {
    pub records: u64,
    pub post_records: u64,
    pub topics: u64,
    pub topic_records: u64,
    pub largest_topic_posts: u64,
    pub profiles: u64,
    pub boards: u64,
    pub images: u64,
}

/// A topic as planned before any post is written.
struct Plan {
    start: i64,
    size: u64,
    board: usize,
    mean_gap: i64,
}

/// Who wrote a post.
#[derive(Debug, Clone, Copy)]
enum AuthorRef {
    Profile(u64),
    Guest(u64),
}

/// What a later quote needs to regenerate a post.
#[derive(Debug, Clone, Copy)]
struct LastPost {
    author: AuthorRef,
    time: i64,
    seed: u64,
    kind: BodyKind,
}

struct Topic {
    id: u64,
    board: usize,
    size: u64,
    emitted: u64,
    mean_gap: i64,
    title: Option<Box<str>>,
    last: Option<LastPost>,
}

fn rfc3339(unix_s: i64) -> String {
    DateTime::from_timestamp(unix_s, 0)
        .expect("generated times lie between 2011 and 2030")
        .to_rfc3339_opts(SecondsFormat::Secs, true)
}

/// Topic sizes: the first holds 10% of the posts, the others follow a Lomax (Pareto II)
/// tail (alpha 4/3, drawn as u^-3/4 - 1) and are each at least 1 and below the first.
fn topic_sizes(rng: &mut ChaCha8Rng, posts: u64) -> Vec<u64> {
    let topics = posts.div_ceil(POSTS_PER_TOPIC).max(1) as usize;
    if topics == 1 {
        return vec![posts];
    }
    let big = (posts / 10).max(1);
    let rest = posts - big;
    let others = (topics - 1) as u64;
    let cap = (big - 1).max(rest.div_ceil(others)).max(1);
    let extra = rest - others;
    let weights: Vec<f64> = (0..others)
        .map(|_| {
            let u = unit(rng);
            1.0 / (u.sqrt() * u.sqrt().sqrt()) - 1.0
        })
        .collect();
    let total: f64 = weights.iter().sum();
    let mut sizes = Vec::with_capacity(topics);
    sizes.push(big);
    let mut assigned = 0;
    for w in &weights {
        let size = (1 + (w / total * extra as f64) as u64).min(cap);
        assigned += size;
        sizes.push(size);
    }
    let mut leftover = rest - assigned;
    let mut i = 1;
    while leftover > 0 {
        if sizes[i] < cap {
            sizes[i] += 1;
            leftover -= 1;
        }
        i = if i + 1 == sizes.len() { 1 } else { i + 1 };
    }
    sizes
}

fn plan_topics(rng: &mut ChaCha8Rng, posts: u64) -> Vec<Plan> {
    const GAPS: [i64; 8] = [300, 900, 1800, 3600, 4 * 3600, 12 * 3600, DAY, 3 * DAY];
    let weight_sum: u32 = BOARDS.iter().map(|b| b.weight).sum();
    let sizes = topic_sizes(rng, posts);
    let mut plans = Vec::with_capacity(sizes.len());
    for (i, &size) in sizes.iter().enumerate() {
        if i == 0 {
            let span = END_UNIX - MEGATHREAD_UNIX;
            plans.push(Plan {
                start: MEGATHREAD_UNIX,
                size,
                board: MEGATHREAD_BOARD,
                mean_gap: (span / size as i64).max(1),
            });
            continue;
        }
        let mut pick = rng.gen_range(0..weight_sum);
        let board = BOARDS
            .iter()
            .position(|b| {
                if pick < b.weight {
                    true
                } else {
                    pick -= b.weight;
                    false
                }
            })
            .expect("pick is below the weight sum");
        let start = BASE_UNIX + rng.gen_range(0..END_UNIX - BASE_UNIX - 30 * DAY);
        let room = (END_UNIX - start) / (size.max(2) as i64 - 1);
        let mean_gap = GAPS[rng.gen_range(0..GAPS.len())].min(room).max(1);
        plans.push(Plan {
            start,
            size,
            board,
            mean_gap,
        });
    }
    plans
}

/// Streams a whole corpus into `out`; `image_folder` is the pool's folder name relative
/// to the corpus file's folder.
pub(crate) fn run<W: Write>(
    posts: u64,
    seed: u64,
    pool: &[PoolImage],
    image_folder: &str,
    out: &mut W,
) -> anyhow::Result<Counts> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut plans = plan_topics(&mut rng, posts);
    let largest = plans.first().map_or(0, |p| p.size);
    // Topic IDs grow with the opening date, as on the forum.
    let mut order: Vec<usize> = (0..plans.len()).collect();
    order.sort_by_key(|&i| (plans[i].start, i));
    let mut topics = Vec::with_capacity(plans.len());
    let mut next_topic_id = 1_000;
    for &i in &order {
        let plan = &mut plans[i];
        next_topic_id += rng.gen_range(1..60);
        topics.push(Topic {
            id: next_topic_id,
            board: plan.board,
            size: plan.size,
            emitted: 0,
            mean_gap: plan.mean_gap,
            title: None,
            last: None,
        });
    }
    let starts: Vec<i64> = order.iter().map(|&i| plans[i].start).collect();
    let megathread = order
        .iter()
        .position(|&i| i == 0)
        .expect("the plan has at least one topic");
    drop(plans);
    drop(order);

    let profiles = (posts / POSTS_PER_PROFILE).max(50).div_ceil(10) * 10;
    let mut generator = Generator {
        seed,
        rng,
        out,
        profiles,
        topics,
        megathread,
        ring: Vec::with_capacity(RING),
        ring_next: 0,
        html: String::new(),
        scratch: String::new(),
        counts: Counts {
            largest_topic_posts: largest,
            ..Counts::default()
        },
    };
    generator.counts.topics = generator.topics.len() as u64;
    generator.write_boards()?;
    generator.write_images(pool, image_folder)?;
    generator.write_profiles()?;

    let mut heap: BinaryHeap<Reverse<(i64, usize)>> = starts
        .iter()
        .enumerate()
        .map(|(i, &start)| Reverse((start, i)))
        .collect();
    drop(starts);
    let mut post_id = 10_000_000 + generator.rng.gen_range(0..1000u64);
    while let Some(Reverse((time, topic))) = heap.pop() {
        post_id += generator.rng.gen_range(1..7u64);
        generator.post(topic, time, post_id, pool)?;
        let state = &generator.topics[topic];
        if state.emitted < state.size {
            let gap = state.mean_gap * i64::from(generator.rng.gen_range(0..1000u32))
                + state.mean_gap * i64::from(generator.rng.gen_range(0..1000u32));
            heap.push(Reverse((time + 1 + gap / 1000, topic)));
        }
    }
    Ok(generator.counts)
}

struct Generator<'w, W> {
    seed: u64,
    rng: ChaCha8Rng,
    out: &'w mut W,
    /// Number of profiles, a multiple of 10 (see [`Generator::profile_lang`]).
    profiles: u64,
    topics: Vec<Topic>,
    /// Index in `topics` of the largest topic.
    megathread: usize,
    /// Recent English spam by profiles, for copy-paste duplicates: (profile index, body seed, kind).
    ring: Vec<(u64, u64, BodyKind)>,
    ring_next: usize,
    html: String,
    scratch: String,
    counts: Counts,
}

impl<W: Write> Generator<'_, W> {
    fn line<T: Serialize>(&mut self, record: &T) -> anyhow::Result<()> {
        serde_json::to_writer(&mut *self.out, record).context("cannot write corpus line")?;
        self.out
            .write_all(b"\n")
            .context("cannot write corpus line")?;
        self.counts.records += 1;
        Ok(())
    }

    fn write_boards(&mut self) -> anyhow::Result<()> {
        let observed_at = rfc3339(CRAWL_UNIX);
        for board in BOARDS {
            self.line(&BoardRecord {
                kind: "board",
                board_id: board.id,
                name: board.name,
                parent_board_id: board.parent,
                observed_at: &observed_at,
            })?;
            self.counts.boards += 1;
        }
        Ok(())
    }

    fn write_images(&mut self, pool: &[PoolImage], folder: &str) -> anyhow::Result<()> {
        let observed_at = rfc3339(CRAWL_UNIX);
        for image in pool {
            let file = format!("{folder}/{}", image.file_name);
            self.line(&ImageRecord {
                kind: "image",
                source_url: &image.url,
                file: &file,
                nsfw_score: image.nsfw_score,
                observed_at: &observed_at,
            })?;
            self.counts.images += 1;
        }
        Ok(())
    }

    /// Profile records for 95% of the profiles (the rest exist only through their posts).
    fn write_profiles(&mut self) -> anyhow::Result<()> {
        for index in 0..self.profiles {
            let key = mix(self.seed ^ 0x9f0f_11e5, index);
            if key.is_multiple_of(20) {
                continue;
            }
            let name = text::username(index);
            let username = if key % 100 == 1 { None } else { Some(&*name) };
            let observed_at = rfc3339(CRAWL_UNIX + ((key >> 8) % (30 * DAY as u64)) as i64);
            self.line(&ProfileRecord {
                kind: "profile",
                profile_id: self.profile_id(index),
                username,
                observed_at: &observed_at,
            })?;
            self.counts.profiles += 1;
        }
        Ok(())
    }

    /// Forum user ID of profile `index`: increasing with the index, so distinct.
    fn profile_id(&self, index: u64) -> u64 {
        1 + index * 29 + mix(self.seed ^ 0x51de, index) % 29
    }

    /// Language of profile `index`: 4 of every 10 write English, one each the others.
    fn lang_slot(lang: Lang) -> u64 {
        match lang {
            Lang::En => 0,
            other => 3 + other.index() as u64,
        }
    }

    fn pick_author(&mut self, lang: Lang) -> AuthorRef {
        if self.rng.gen_ratio(3, 100) {
            return AuthorRef::Guest(self.rng.r#gen());
        }
        if lang == Lang::En {
            return AuthorRef::Profile(skewed(&mut self.rng, self.profiles as usize, 3) as u64);
        }
        let group = skewed(&mut self.rng, (self.profiles / 10) as usize, 3) as u64;
        AuthorRef::Profile(group * 10 + Self::lang_slot(lang))
    }

    fn author_name(author: AuthorRef) -> String {
        match author {
            AuthorRef::Profile(index) => text::username(index),
            AuthorRef::Guest(key) => text::guest_name(key),
        }
    }

    fn reply_kind(&mut self, lang: Lang, board: BoardKind) -> BodyKind {
        let r = self.rng.gen_range(0..1000);
        match (lang, board) {
            (Lang::En, BoardKind::Bounties) => match r {
                0..550 => BodyKind::Bounty,
                550..800 => BodyKind::Short,
                _ => BodyKind::Reply,
            },
            (Lang::En, BoardKind::Announcements) => match r {
                0..220 => BodyKind::Short,
                220..270 => BodyKind::Caps,
                270..310 => BodyKind::Links,
                _ => BodyKind::Reply,
            },
            (Lang::En, _) => match r {
                0..50 => BodyKind::Short,
                50..65 => BodyKind::Caps,
                65..75 => BodyKind::Links,
                75..85 => BodyKind::Bounty,
                _ => BodyKind::Reply,
            },
            (Lang::Zh, _) => match r {
                0..60 => BodyKind::Short,
                _ => BodyKind::Reply,
            },
            _ => match r {
                0..60 => BodyKind::Short,
                60..70 => BodyKind::Caps,
                _ => BodyKind::Reply,
            },
        }
    }

    fn merit(&mut self) -> MeritRecord {
        const AMOUNTS: [u64; 10] = [1, 1, 1, 1, 2, 2, 3, 5, 10, 50];
        if self.rng.gen_ratio(13, 20) {
            let count = 1 + skewed(&mut self.rng, 6, 2);
            let mut senders = Vec::with_capacity(count);
            for _ in 0..count {
                let index = self.rng.gen_range(0..self.profiles.min(400));
                senders.push(MeritSender {
                    profile_id: self.profile_id(index),
                    amount: AMOUNTS[self.rng.gen_range(0..AMOUNTS.len())],
                });
            }
            let mut ids: Vec<u64> = senders.iter().map(|s| s.profile_id).collect();
            ids.sort_unstable();
            ids.dedup();
            MeritRecord {
                total: senders.iter().map(|s| s.amount).sum(),
                distinct_senders: ids.len() as u64,
                transactions: senders.len() as u64,
                senders: Some(senders),
            }
        } else {
            let transactions = 1 + skewed(&mut self.rng, 40, 3) as u64;
            MeritRecord {
                total: transactions + self.rng.gen_range(0..transactions * 3),
                distinct_senders: 1 + self.rng.gen_range(0..transactions),
                transactions,
                senders: None,
            }
        }
    }

    /// Appends the quote block of `last`, regenerating its first paragraph from its seed.
    fn quote(&mut self, last: LastPost, lang: Lang, board: BoardKind) {
        let name = Self::author_name(last.author);
        self.scratch.clear();
        let mut body_rng = ChaCha8Rng::seed_from_u64(last.seed);
        text::body(
            &mut body_rng,
            last.kind,
            lang,
            board,
            &name,
            &mut self.scratch,
        );
        let first = self.scratch.split("<br />").next().unwrap_or("");
        self.html
            .push_str("<div class=\"quote_header\">Quote from: ");
        self.html.push_str(&name);
        self.html.push_str(" on ");
        text::smf_date(last.time, &mut self.html);
        self.html.push_str("</div><div class=\"quote\">");
        self.html.push_str(first);
        self.html.push_str("</div>");
    }

    fn image(&mut self, pool: &[PoolImage]) {
        let (url, alt) = if pool.is_empty() || self.rng.gen_ratio(1, 30) {
            (UNBOUND_URLS[self.rng.gen_range(0..UNBOUND_URLS.len())], "")
        } else {
            let image = &pool[skewed(&mut self.rng, pool.len(), 2)];
            (image.url.as_str(), image.alt)
        };
        self.html.push_str("<br /><img src=\"");
        self.html.push_str(url);
        self.html.push_str("\" alt=\"");
        self.html.push_str(alt);
        self.html.push_str("\" />");
    }

    fn post(
        &mut self,
        topic: usize,
        time: i64,
        post_id: u64,
        pool: &[PoolImage],
    ) -> anyhow::Result<()> {
        let number = self.topics[topic].emitted;
        let topic_id = self.topics[topic].id;
        let board = &BOARDS[self.topics[topic].board];
        let lang = board.lang;
        let is_op = number == 0;
        let posted_at = rfc3339(time);
        let observed = time + 3600 + self.rng.gen_range(0..400 * DAY);
        let observed_at = rfc3339(observed);

        if is_op {
            let title = if topic == self.megathread {
                MEGATHREAD_TITLE.to_owned()
            } else {
                text::topic_title(&mut self.rng, lang, board.kind)
            };
            self.topics[topic].title = Some(title.into_boxed_str());
            if self.rng.gen_ratio(92, 100) {
                let size = self.topics[topic].size;
                let views = size * self.rng.gen_range(15..250) + self.rng.gen_range(0..1000);
                let page_count = self.rng.gen_ratio(3, 10).then(|| size.div_ceil(20));
                let board_id = (!self.rng.gen_ratio(1, 20)).then_some(board.id);
                let title = self.topics[topic].title.as_deref().unwrap_or_default();
                let record = TopicRecord {
                    kind: "topic",
                    topic_id,
                    board_id,
                    title,
                    views: Some(views),
                    page_count,
                    observed_at: &observed_at,
                };
                serde_json::to_writer(&mut *self.out, &record)
                    .context("cannot write corpus line")?;
                self.out
                    .write_all(b"\n")
                    .context("cannot write corpus line")?;
                self.counts.records += 1;
                self.counts.topic_records += 1;
            }
        }

        // Kind and author; English spam is sometimes a copy-paste of the same author's.
        let mut kind = if is_op {
            BodyKind::Opening
        } else {
            self.reply_kind(lang, board.kind)
        };
        let mut author = self.pick_author(lang);
        let mut seed = mix(self.seed ^ 0xb0d1, post_id);
        if kind.is_low_quality() && lang == Lang::En {
            if !self.ring.is_empty() && self.rng.gen_ratio(1, 4) {
                let (index, old_seed, old_kind) = self.ring[self.rng.gen_range(0..self.ring.len())];
                author = AuthorRef::Profile(index);
                seed = old_seed;
                kind = old_kind;
            } else if let AuthorRef::Profile(index) = author {
                if self.ring.len() < RING {
                    self.ring.push((index, seed, kind));
                } else {
                    self.ring[self.ring_next] = (index, seed, kind);
                    self.ring_next = (self.ring_next + 1) % RING;
                }
            }
        }
        let name = Self::author_name(author);

        self.html.clear();
        if kind == BodyKind::Reply
            && self.rng.gen_ratio(3, 20)
            && let Some(last) = self.topics[topic].last
        {
            self.quote(last, lang, board.kind);
        }
        let mut body_rng = ChaCha8Rng::seed_from_u64(seed);
        text::body(&mut body_rng, kind, lang, board.kind, &name, &mut self.html);
        let image_odds = if kind.is_low_quality() {
            0
        } else if is_op && board.kind == BoardKind::Announcements {
            500
        } else if board.id == 9 {
            70
        } else {
            25
        };
        if self.rng.gen_range(0..1000) < image_odds {
            self.image(pool);
        }

        let merit_odds = match kind {
            BodyKind::Opening => 200,
            BodyKind::Reply => 60,
            _ => 5,
        };
        let merit = (self.rng.gen_range(0..1000) < merit_odds).then(|| self.merit());
        let date_roll = self.rng.gen_range(0..1000);
        let posted_at_field = match date_roll {
            0 | 1 => Some(None),
            2 | 3 => None,
            _ => Some(Some(posted_at.as_str())),
        };
        let language = self.rng.gen_ratio(35, 100).then_some(lang.code());
        let board_id = self.rng.gen_ratio(9, 10).then_some(board.id);
        let post_number = self.rng.gen_ratio(19, 20).then_some(number);
        let is_op_field = if is_op {
            self.rng.gen_bool(0.5).then_some(true)
        } else {
            self.rng.gen_ratio(1, 20).then_some(false)
        };
        let title = match self.topics[topic].title.as_deref() {
            Some(title) if is_op => title.to_owned(),
            Some(title) => format!("Re: {title}"),
            None => String::new(),
        };
        let author_id = match author {
            AuthorRef::Profile(index) => Some(self.profile_id(index)),
            AuthorRef::Guest(_) => None,
        };
        // Edits: a later observation with an edit note and/or more merit.
        let edit = if self.rng.gen_ratio(3, 100) {
            let later = rfc3339(observed + DAY + self.rng.gen_range(0..300 * DAY));
            let note = self.rng.gen_ratio(7, 10).then(|| {
                let bank = text::bank(lang);
                let template = bank.edits[self.rng.gen_range(0..bank.edits.len())];
                let mut note = String::new();
                text::fill(&mut self.rng, template, &mut note);
                note
            });
            let mut more = match &merit {
                Some(merit) => merit.clone(),
                None => self.merit(),
            };
            if note.is_none() || self.rng.gen_bool(0.5) {
                let extra = self.merit();
                more = merge_merit(more, extra);
            }
            Some((later, note, more))
        } else {
            None
        };
        let mut record = PostRecord {
            kind: "post",
            post_id,
            topic_id,
            board_id,
            post_number,
            is_op: is_op_field,
            title: &title,
            author: AuthorRecord {
                profile_id: author_id,
                username: &name,
            },
            posted_at: posted_at_field,
            content_html: &self.html,
            merit: merit.as_ref(),
            language,
            observed_at: &observed_at,
        };
        serde_json::to_writer(&mut *self.out, &record).context("cannot write corpus line")?;
        self.out
            .write_all(b"\n")
            .context("cannot write corpus line")?;
        self.counts.records += 1;
        self.counts.post_records += 1;

        if let Some((later, note, more)) = edit {
            let mut edited = String::with_capacity(self.html.len() + 80);
            edited.push_str(record.content_html);
            if let Some(note) = note {
                edited.push_str("<br /><br />");
                edited.push_str(&note);
            }
            record.content_html = &edited;
            record.merit = Some(&more);
            record.observed_at = &later;
            serde_json::to_writer(&mut *self.out, &record).context("cannot write corpus line")?;
            self.out
                .write_all(b"\n")
                .context("cannot write corpus line")?;
            self.counts.records += 1;
            self.counts.post_records += 1;
        }

        let state = &mut self.topics[topic];
        state.emitted += 1;
        state.last = Some(LastPost {
            author,
            time,
            seed,
            kind,
        });
        if state.emitted == state.size {
            state.title = None;
            state.last = None;
        }
        Ok(())
    }
}

/// Merit after more transactions arrived: senders concatenate when both lists are known,
/// otherwise the counts add up (distinct senders as an upper bound).
fn merge_merit(old: MeritRecord, new: MeritRecord) -> MeritRecord {
    match (old.senders, new.senders) {
        (Some(mut senders), Some(more)) => {
            senders.extend(more);
            let mut ids: Vec<u64> = senders.iter().map(|s| s.profile_id).collect();
            ids.sort_unstable();
            ids.dedup();
            MeritRecord {
                total: senders.iter().map(|s| s.amount).sum(),
                distinct_senders: ids.len() as u64,
                transactions: senders.len() as u64,
                senders: Some(senders),
            }
        }
        _ => MeritRecord {
            total: old.total + new.total,
            distinct_senders: old.distinct_senders + new.distinct_senders,
            transactions: old.transactions + new.transactions,
            senders: None,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn topic_sizes_sum_up_and_the_first_is_largest() {
        for posts in [1, 2, 11, 12, 13, 100, 1_000, 123_457] {
            let mut rng = ChaCha8Rng::seed_from_u64(posts);
            let sizes = topic_sizes(&mut rng, posts);
            assert_eq!(sizes.iter().sum::<u64>(), posts, "posts {posts}");
            assert!(sizes.iter().all(|&s| s >= 1));
            if posts >= 1_000 {
                assert_eq!(sizes[0], posts / 10);
                assert!(sizes[1..].iter().all(|&s| s < sizes[0]));
            }
        }
    }
}
