//! Measures language routing on a corpus file without importing it: streams the file,
//! learns boards as an import does ([`BoardLanguages`] from the records read), and for
//! every post observation without a `language` compares detection alone
//! ([`Detection::language`], the rule before board priors) with [`language::route`].
//! Prints, per board with a language, the share of posts that land in that language's
//! index before and after, then the totals, and per board without one how many posts it has
//! (they are routed by detection alone, as before), then how many of those detection calls
//! English and how many of them whatlang's trigrams alone would not
//! ([`Detection::trigram_language`]). `--misses` also prints (to stderr) the start of every
//! post that misses its board's language after routing, and of every post the function-word
//! rule calls English against the trigrams.
//!
//! `cargo run -p forumdex-ingest --example language_routing -- ../shared/data/bitcointalk-1.4m.jsonl.gz`
//! (dependencies are optimized in the dev profile too; `--release` works as well).

use std::collections::BTreeMap;
use std::io::BufRead;
use std::path::PathBuf;

use anyhow::Context;
use forumdex_corpus::text::html_to_text;
use forumdex_corpus::{Observation, Record};
use forumdex_ingest::boards::BoardLanguages;
use forumdex_ingest::language::{self, Detection};
use forumdex_ingest::source::Source;

/// Posts of one board.
#[derive(Default)]
struct Tally {
    name: String,
    language: Option<&'static str>,
    posts: u64,
    before: u64,
    after: u64,
    /// Where the posts that miss the board's language went after routing.
    elsewhere: BTreeMap<String, u64>,
}

fn main() -> anyhow::Result<()> {
    let mut args: Vec<_> = std::env::args_os().skip(1).collect();
    let show_misses = args.first().is_some_and(|arg| arg == "--misses");
    if show_misses {
        args.remove(0);
    }
    let path: PathBuf = args
        .pop()
        .context("usage: language_routing [--misses] <corpus file>")?
        .into();
    let started = std::time::Instant::now();
    let mut reader = Source::from_arg(&path).open(|raw| raw)?;
    let mut boards = BoardLanguages::from_records();
    let mut names: BTreeMap<i64, String> = BTreeMap::new();
    let mut tallies: BTreeMap<i64, Tally> = BTreeMap::new();
    // Posts without a board language that detection calls English, and those of them
    // whatlang's trigrams alone would not (the function-word rule's disagreements).
    let mut english_without_prior = 0u64;
    let mut english_unlike_trigrams: BTreeMap<&str, u64> = BTreeMap::new();
    let mut line = Vec::new();
    loop {
        line.clear();
        if reader.read_until(b'\n', &mut line)? == 0 {
            break;
        }
        let Ok(observation) = Observation::parse_line(line.trim_ascii_end()) else {
            continue;
        };
        boards.observe(&observation.record);
        let post = match observation.record {
            Record::Board(board) => {
                names.insert(board.board_id.get(), board.name);
                continue;
            }
            Record::Post(post) if post.language.is_none() => post,
            _ => continue,
        };
        let detection = Detection::of(&html_to_text(&post.content_html));
        let prior = boards.of_post(&post)?;
        let board = post.board_id.map_or(0, |id| id.get());
        let tally = tallies.entry(board).or_default();
        tally.language = prior.and_then(language::code);
        tally.posts += 1;
        let Some(expected) = tally.language else {
            if detection.language() == Some("en") && detection.trigram_language() != Some("en") {
                let whatlang = detection.trigram_language().unwrap_or("none");
                if show_misses {
                    let text: String = html_to_text(&post.content_html).chars().take(200).collect();
                    eprintln!("{board}	en, trigrams {whatlang}	{text}");
                }
                *english_unlike_trigrams.entry(whatlang).or_default() += 1;
            }
            english_without_prior += u64::from(detection.language() == Some("en"));
            continue;
        };
        tally.before += u64::from(detection.language() == Some(expected));
        let routed = language::route(prior, &detection);
        if routed == Some(expected) {
            tally.after += 1;
        } else {
            if show_misses {
                let text: String = html_to_text(&post.content_html).chars().take(200).collect();
                eprintln!("{board}\t{}\t{text}", routed.unwrap_or("none"));
            }
            *tally
                .elsewhere
                .entry(routed.unwrap_or("none").to_owned())
                .or_default() += 1;
        }
    }
    let (mut posts, mut before, mut after) = (0, 0, 0);
    println!("board\tname\tlanguage\tposts\tbefore\tafter\tafter elsewhere");
    for (board, tally) in &mut tallies {
        tally.name = names.get(board).cloned().unwrap_or_default();
        let Some(language) = tally.language else {
            continue;
        };
        posts += tally.posts;
        before += tally.before;
        after += tally.after;
        println!(
            "{board}\t{}\t{language}\t{}\t{}\t{}\t{:?}",
            tally.name,
            tally.posts,
            percent(tally.before, tally.posts),
            percent(tally.after, tally.posts),
            tally.elsewhere,
        );
    }
    println!(
        "all boards with a language\t\t\t{posts}\t{}\t{}",
        percent(before, posts),
        percent(after, posts)
    );
    println!("boards without a language (detection alone, unchanged):");
    for (board, tally) in tallies.iter().filter(|(_, t)| t.language.is_none()) {
        println!("{board}\t{}\t{} posts", tally.name, tally.posts);
    }
    println!(
        "detected as English without a board language: {english_without_prior} posts, of which whatlang's trigrams alone say otherwise: {english_unlike_trigrams:?}"
    );
    eprintln!("{:.1} s", started.elapsed().as_secs_f64());
    Ok(())
}

fn percent(part: u64, whole: u64) -> String {
    if whole == 0 {
        return "-".to_owned();
    }
    format!("{:.1}% ({part})", 100.0 * part as f64 / whole as f64)
}
