//! Language detection for posts that carry no `language`, with whatlang (trigram models
//! compiled into the crate: offline, fast), restricted to the forum's languages
//! ([`LANGUAGES`]), and routing: the board a post is in is a strong prior.
//!
//! # The routing rule
//!
//! A post's own `language` is always kept. Without one, its text is detected
//! ([`Detection::of`]) and [`route`] decides, given the language of the post's board
//! (`prior`, from the board's name or its parent's: [`crate::boards`]):
//!
//! - no prior (English-dominant but mixed boards such as "Announcements (Altcoins)"): the
//!   detected language when the guess is usable ([`Detection::language`]), else none.
//!   A text that plainly reads as English by its function words is English without
//!   asking whatlang (see `reads_as_english`);
//! - with a prior, the board's language, unless the text clearly is another one. "Clearly"
//!   means all of: the text has at least 12 letters (`MIN_CHARS`); whatlang's guess is
//!   reliable (its confidence, the margin between the two best languages, above 0.9); the
//!   guess is in another script than the board's language (English in "Русский
//!   (Russian)") or the text has at least 100 letters (`LONG_LETTERS`: an English
//!   announcement copied in "Deutsch (German)"); and no part of the text reads as the
//!   board's language: under 12 letters in the board language's script when the guess is
//!   in another one, and no stretch of about 80 characters judged the board's language by
//!   a detector choosing between the two languages only (a Russian or Indonesian reply
//!   quoting English stays Russian or Indonesian).
//!
//! So short texts, unreliable guesses and mixed posts take their board's language. In the
//! real Bitcointalk corpus 99.1% of the local-language boards' posts (6,781 of 6,841) land
//! in their board's language, 94.3% with detection alone; the rest are English posts
//! (announcements, replies of English speakers). `examples/language_routing.rs` measures
//! it on any corpus file without importing it.

use std::sync::{LazyLock, OnceLock};

use whatlang::{Detector, Lang};

/// Texts shorter than this many characters are not detected: trigram guesses on a few
/// words are noise.
const MIN_CHARS: usize = 12;
/// Only the start of a long text is examined: trigram statistics settle within a few
/// hundred characters, and detection cost grows with length.
const SAMPLE_CHARS: usize = 400;

/// The languages detection chooses from: those of the forum's boards (Bitcointalk's local
/// boards, plus Ukrainian beside Russian and a few large languages of its members).
/// Restricting the trigram models to them makes detection about a third cheaper (fewer
/// models to score: the import's main cost) and stops short or mixed texts from being
/// filed under languages nobody writes there (Latin, Javanese, Afrikaans, Bulgarian for
/// Russian, ...), each of which would get a tiny index of its own that every search visits.
pub const LANGUAGES: &[Lang] = &[
    Lang::Eng,
    Lang::Rus,
    Lang::Ukr,
    Lang::Cmn,
    Lang::Jpn,
    Lang::Kor,
    Lang::Deu,
    Lang::Fra,
    Lang::Spa,
    Lang::Por,
    Lang::Ita,
    Lang::Nld,
    Lang::Pol,
    Lang::Ron,
    Lang::Hrv,
    Lang::Tur,
    Lang::Ell,
    Lang::Ara,
    Lang::Heb,
    Lang::Hin,
    Lang::Ben,
    Lang::Urd,
    Lang::Ind,
    Lang::Tgl,
    Lang::Vie,
    Lang::Tha,
    Lang::Pes,
];

/// Letters a text needs before a guess in the board language's own script may overrule
/// the board (Ukrainian for Russian, English for German): shorter texts confuse
/// neighbouring languages too often.
const LONG_LETTERS: usize = 100;
/// Characters of the stretches [`route`] judges one by one (cut at word ends).
const STRETCH_CHARS: usize = 80;

static DETECTOR: LazyLock<Detector> =
    LazyLock::new(|| Detector::with_allowlist(LANGUAGES.to_vec()));

/// What detection found in a post's text, kept until the post's board is known: the
/// import detects on its parse workers, in parallel, and routes in line order, where board
/// records have been seen.
#[derive(Debug)]
pub struct Detection {
    /// The examined start of the text ([`SAMPLE_CHARS`], links left out).
    sample: String,
    /// Alphabetic characters in `sample`.
    letters: usize,
    /// Whether the sample reads as English by its function words ([`reads_as_english`]):
    /// then whatlang is only asked when a board prior needs its guess.
    english_by_words: bool,
    /// whatlang's best guess, when the text has enough letters and any script it knows;
    /// computed on first use.
    guess: OnceLock<Option<whatlang::Info>>,
}

impl Detection {
    /// Detects the language of `text` among [`LANGUAGES`].
    pub fn of(text: &str) -> Self {
        let sample = sample(text);
        let letters = sample.chars().filter(|c| c.is_alphabetic()).count();
        let english_by_words = letters >= MIN_CHARS && reads_as_english(&sample, letters);
        let detection = Self {
            sample,
            letters,
            english_by_words,
            guess: OnceLock::new(),
        };
        if !english_by_words {
            detection.guess();
        }
        detection
    }

    /// whatlang's guess, computed on first use (`None` for too short a text).
    fn guess(&self) -> Option<&whatlang::Info> {
        self.guess
            .get_or_init(|| {
                (self.letters >= MIN_CHARS)
                    .then(|| DETECTOR.detect(&self.sample))
                    .flatten()
            })
            .as_ref()
    }

    /// The language without a board prior, as an ISO 639-1 code: English when the text
    /// reads as English by its function words, else whatlang's guess; `None` when the text
    /// is too short or the guess is unusable (unreliable, below 0.5 confidence, and in a
    /// script that several languages share).
    pub fn language(&self) -> Option<&'static str> {
        if self.english_by_words {
            return code(Lang::Eng);
        }
        self.trigram_language()
    }

    /// What [`Detection::language`] says without the function-word rule: whatlang's
    /// guess alone (`examples/language_routing.rs` compares the two).
    pub fn trigram_language(&self) -> Option<&'static str> {
        let info = self.guess()?;
        // Scripts with one language are safe even when whatlang calls the guess unreliable.
        let single_script = matches!(
            info.script(),
            whatlang::Script::Mandarin
                | whatlang::Script::Hangul
                | whatlang::Script::Hiragana
                | whatlang::Script::Katakana
                | whatlang::Script::Greek
                | whatlang::Script::Thai
                | whatlang::Script::Georgian
                | whatlang::Script::Armenian
        );
        if !info.is_reliable() && !single_script && info.confidence() < 0.5 {
            return None;
        }
        code(info.lang())
    }

    /// Whether the text clearly is in a language other than `prior` (the rule of the
    /// module documentation); that language when it is.
    fn clearly_other_than(&self, prior: Lang) -> Option<Lang> {
        let info = self.guess()?;
        let other = info.lang();
        if other == prior || !info.is_reliable() {
            return None;
        }
        let other_script = !writes_in(prior, info.script());
        if !other_script && self.letters < LONG_LETTERS {
            return None;
        }
        // Another script's guess on a text partly in the prior's script: a mixed text.
        if other_script && self.letters_written_in(prior) >= MIN_CHARS {
            return None;
        }
        let pair = Detector::with_allowlist(vec![prior, other]);
        let reads_as_prior = stretches(&self.sample).any(|stretch| {
            pair.detect(stretch)
                .is_some_and(|info| info.lang() == prior && info.is_reliable())
        });
        (!reads_as_prior).then_some(other)
    }

    /// Letters of the sample's words written in a script of `lang`.
    fn letters_written_in(&self, lang: Lang) -> usize {
        self.sample
            .split_whitespace()
            .filter(|word| whatlang::detect_script(word).is_some_and(|s| writes_in(lang, s)))
            .map(|word| word.chars().filter(|c| c.is_alphabetic()).count())
            .sum()
    }
}

/// The language of a post without one of its own, as an ISO 639-1 code: `prior` (the
/// board's language) unless the text clearly is another language, the detected language
/// when there is no prior (the rule of the module documentation).
pub fn route(prior: Option<Lang>, detection: &Detection) -> Option<&'static str> {
    let Some(prior) = prior else {
        return detection.language();
    };
    code(detection.clearly_other_than(prior).unwrap_or(prior))
}

/// The ISO 639-1 code of one of [`LANGUAGES`] (all have one).
pub fn code(lang: Lang) -> Option<&'static str> {
    iso_639_1(lang.code())
}

/// Whether `lang` is written in `script` (Japanese also in Chinese characters).
fn writes_in(lang: Lang, script: whatlang::Script) -> bool {
    script.langs().contains(&lang) || (lang == Lang::Jpn && script == whatlang::Script::Mandarin)
}

/// English words that are frequent in any English text and are not words of the other
/// Latin-script [`LANGUAGES`] (so no "is", "in", "to", "of", "was", "will", "die", "at",
/// "by", "my", "me", "so", "also", "her", ...).
const ENGLISH_FUNCTION_WORDS: &[&str] = &[
    "about", "all", "and", "any", "are", "because", "been", "but", "can", "could", "did", "does",
    "for", "from", "had", "have", "here", "his", "how", "into", "its", "just", "like", "more",
    "much", "not", "now", "only", "our", "out", "people", "she", "should", "some", "than", "that",
    "the", "their", "them", "then", "there", "these", "they", "think", "this", "those", "very",
    "what", "when", "where", "which", "who", "why", "with", "would", "you", "your",
];
/// Function words a sample needs, at least, to read as English: one is enough for a short
/// reply ("Keep up the good work team"), since the share below decides.
const ENGLISH_MIN_HITS: usize = 1;
/// ... and the share of its words they must make up, at least (one in this many).
const ENGLISH_WORDS_PER_HIT: usize = 8;
/// Letters outside ASCII a sample may have per this many letters and still read as
/// English (names, a quoted word, a currency sign are fine; a text in another Latin-script
/// language has its accents).
const ENGLISH_LETTERS_PER_ACCENT: usize = 50;

static ENGLISH_WORDS: LazyLock<std::collections::HashSet<&'static str>> =
    LazyLock::new(|| ENGLISH_FUNCTION_WORDS.iter().copied().collect());

/// Whether `sample` (with `letters` alphabetic characters) is plainly English prose:
/// at least [`ENGLISH_MIN_HITS`] of its words, and one in [`ENGLISH_WORDS_PER_HIT`], are
/// [`ENGLISH_FUNCTION_WORDS`], and almost all of its letters are ASCII. Such texts are
/// English to whatlang too, or better judged by the rule. In the 1.4M-post corpus, of the
/// posts without a board language that the rule calls English, whatlang alone names
/// another language for 2,223 (short English replies and questions it reads as
/// French, Dutch, Romanian or German: "Can you please clarify your question?") and finds
/// no usable guess for 100,464 ("I have the same problem...", "Keep up the good work
/// team": English texts that went to `und`, out of reach of `lang=en`). Saying so costs
/// about a microsecond where whatlang's trigram scoring (300 trigrams looked up per
/// candidate language, however short the text) costs about 20 µs, and most of the forum
/// writes in English, in boards without a language.
fn reads_as_english(sample: &str, letters: usize) -> bool {
    let accented = sample
        .chars()
        .filter(|c| c.is_alphabetic() && !c.is_ascii())
        .count();
    if accented * ENGLISH_LETTERS_PER_ACCENT > letters {
        return false;
    }
    let mut words = 0;
    let mut hits = 0;
    let mut lower = String::new();
    for word in sample.split(|c: char| !c.is_ascii_alphabetic()) {
        if word.is_empty() {
            continue;
        }
        words += 1;
        lower.clear();
        lower.extend(word.chars().map(|c| c.to_ascii_lowercase()));
        hits += usize::from(ENGLISH_WORDS.contains(lower.as_str()));
    }
    hits >= ENGLISH_MIN_HITS && hits * ENGLISH_WORDS_PER_HIT >= words
}

/// `sample` cut at word ends into stretches of about [`STRETCH_CHARS`] characters, each
/// with at least [`MIN_CHARS`] letters.
fn stretches(sample: &str) -> impl Iterator<Item = &str> {
    let mut rest = sample;
    std::iter::from_fn(move || {
        while !rest.is_empty() {
            let end = rest
                .char_indices()
                .skip(STRETCH_CHARS)
                .find(|(_, c)| *c == ' ')
                .map_or(rest.len(), |(at, _)| at);
            let stretch = &rest[..end];
            rest = rest[end..].trim_start();
            if stretch.chars().filter(|c| c.is_alphabetic()).count() >= MIN_CHARS {
                return Some(stretch);
            }
        }
        None
    })
}

/// The first [`SAMPLE_CHARS`] characters of the words of `text`, links left out (a post
/// that starts with image links is still detected by its prose).
fn sample(text: &str) -> String {
    let mut out = String::with_capacity(SAMPLE_CHARS + 16);
    let mut chars = 0;
    for word in text.split_whitespace() {
        if word.contains("://") || word.starts_with("www.") {
            continue;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
        chars += word.chars().count() + 1;
        if chars >= SAMPLE_CHARS {
            break;
        }
    }
    out
}

/// Maps whatlang's ISO 639-3 codes onto ISO 639-1.
fn iso_639_1(code3: &str) -> Option<&'static str> {
    Some(match code3 {
        "afr" => "af",
        "aka" => "ak",
        "amh" => "am",
        "ara" => "ar",
        "aze" => "az",
        "bel" => "be",
        "ben" => "bn",
        "bul" => "bg",
        "cat" => "ca",
        "ces" => "cs",
        "cmn" => "zh",
        "dan" => "da",
        "deu" => "de",
        "ell" => "el",
        "eng" => "en",
        "epo" => "eo",
        "est" => "et",
        "fin" => "fi",
        "fra" => "fr",
        "guj" => "gu",
        "heb" => "he",
        "hin" => "hi",
        "hrv" => "hr",
        "hun" => "hu",
        "hye" => "hy",
        "ind" => "id",
        "ita" => "it",
        "jav" => "jv",
        "jpn" => "ja",
        "kan" => "kn",
        "kat" => "ka",
        "khm" => "km",
        "kor" => "ko",
        "lat" => "la",
        "lav" => "lv",
        "lit" => "lt",
        "mal" => "ml",
        "mar" => "mr",
        "mkd" => "mk",
        "mya" => "my",
        "nep" => "ne",
        "nld" => "nl",
        "nob" => "nb",
        "ori" => "or",
        "pan" => "pa",
        "pes" => "fa",
        "pol" => "pl",
        "por" => "pt",
        "ron" => "ro",
        "rus" => "ru",
        "sin" => "si",
        "slk" => "sk",
        "slv" => "sl",
        "sna" => "sn",
        "spa" => "es",
        "srp" => "sr",
        "swe" => "sv",
        "tam" => "ta",
        "tel" => "te",
        "tgl" => "tl",
        "tha" => "th",
        "tuk" => "tk",
        "tur" => "tr",
        "ukr" => "uk",
        "urd" => "ur",
        "uzb" => "uz",
        "vie" => "vi",
        "yid" => "yi",
        "zul" => "zu",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn detect(text: &str) -> Option<&'static str> {
        Detection::of(text).language()
    }

    #[test]
    fn detects_common_forum_languages() {
        let cases = [
            (
                "en",
                "I think this project has a strong team and the roadmap looks realistic to me.",
            ),
            (
                "ru",
                "Я думаю, что у этого проекта сильная команда и реалистичная дорожная карта.",
            ),
            (
                "de",
                "Ich denke, dieses Projekt hat ein starkes Team und eine realistische Roadmap.",
            ),
            (
                "es",
                "Creo que este proyecto tiene un equipo fuerte y una hoja de ruta realista.",
            ),
            ("zh", "我认为这个项目有一个强大的团队和一个现实的路线图。"),
        ];
        for (code, text) in cases {
            assert_eq!(detect(text), Some(code), "{text}");
        }
        assert_eq!(detect("ok"), None);
        let linked = "https://i.imgur.com/7hFIv7x.jpg https://i.imgur.com/BknOwwR.jpg https://i.imgur.com/9GiDftZ.jpg https://i.imgur.com/BaGwSN3.jpg https://i.imgur.com/WQaSivs.jpg As a globally integrated trading platform, the exchange provides reliable services such as spot trading.";
        assert_eq!(detect(linked), Some("en"), "links are left out");
    }

    #[test]
    fn plain_english_is_read_by_its_function_words() {
        // Short English questions whatlang alone reads as French, Dutch or no usable guess.
        for text in [
            "What about your biggest advantages you have unlike your competitors do?",
            "But I wonder how can I earn money using your platform?",
            "Do you have any more figures, dev?",
            // Short replies with one function word.
            "Keep up the good work team",
            "I have the same problem...",
            "Can you please clarify your question?",
        ] {
            let detection = Detection::of(text);
            assert!(detection.english_by_words, "{text}");
            assert_eq!(detection.language(), Some("en"), "{text}");
        }
        assert_ne!(
            Detection::of("Thank you. Sent some more coin your way.").trigram_language(),
            Some("en"),
            "whatlang alone misses it"
        );
        for text in [
            // Other Latin-script languages, with words English shares with them.
            "Ich denke, dieses Projekt hat ein starkes Team und eine realistische Roadmap, also was will man mehr?",
            "Creo que este proyecto tiene un equipo fuerte y una hoja de ruta realista, me gusta.",
            "Het project is goed en ik denk dat het team veel werk heeft gedaan, of niet?",
            "To jest dobry projekt i my wszyscy czekamy na aplikację, by zacząć.",
            // Too few function words to say.
            "Airdrop KYC token bounty ETH wallet address",
            "joined airdrop good luck",
            "Airdrop KYC token bounty ETH wallet address and telegram username please",
            // English with too many accented letters: a mixed text, left to whatlang.
            "Привет всем! Это наш новый проект, и у нас есть about the token",
        ] {
            assert!(!Detection::of(text).english_by_words, "{text}");
        }
    }

    #[test]
    fn a_board_prior_still_asks_whatlang_of_english_by_words() {
        // English by its words, but short and in a Latin-script board: the board's language.
        let text = "Thank you. Sent some more coin your way.";
        assert!(Detection::of(text).english_by_words);
        assert_eq!(routed(Some(Lang::Deu), text), Some("de"));
        // In another script's board, reliable English is kept.
        assert_eq!(routed(Some(Lang::Rus), ENGLISH_SHORT), Some("en"));
    }

    /// Texts from the real sample's local boards (quoted as the importer sees them).
    const ENGLISH_LONG: &str = "CoinMarketBrasil will provide a decentralization system for business project operations, which can be deployed to existing ERP systems, adding database security and implementing managed blockchain services.";
    const ENGLISH_SHORT: &str = "Where is the english translation?";

    fn routed(prior: Option<Lang>, text: &str) -> Option<&'static str> {
        route(prior, &Detection::of(text))
    }

    #[test]
    fn without_a_prior_detection_decides() {
        assert_eq!(routed(None, ENGLISH_LONG), Some("en"));
        assert_eq!(routed(None, "Reserved"), None, "too short");
        assert_eq!(routed(None, ENGLISH_SHORT), Some("en"));
    }

    #[test]
    fn short_unreliable_and_neighbouring_guesses_take_the_board_language() {
        let cases = [
            (Lang::Deu, "[reserviert]"),
            (Lang::Tgl, "Reserved"),
            (Lang::Rus, "ok +1"),
            // Unreliable guesses (Spanish, Tagalog) in Indonesian.
            (Lang::Ind, "semoga sukses ini project gan..."),
            (
                Lang::Ind,
                "Saya lihat harganya 0.000070 eth/opp. Sudah biasa jika masuk market harganya dibawah ico. Pasti nanti akan naik harganya.",
            ),
            // Russian that whatlang calls Ukrainian with full confidence: same script,
            // under LONG_LETTERS.
            (Lang::Rus, "До старта ICO REANIMATOR осталось 2 дня"),
            (
                Lang::Rus,
                "Спасибо за вашу поддержку, проект сейчас активно развивается, в мае будем запускать MVP.",
            ),
            // Reliable English, same script as German, under LONG_LETTERS.
            (
                Lang::Deu,
                "iRegMed (IRM) is already rated by Cryptolaboratory. All facts are here. Don't miss it!",
            ),
        ];
        for (prior, text) in cases {
            assert_eq!(routed(Some(prior), text), code(prior), "{text}");
        }
    }

    #[test]
    fn mixed_posts_take_the_board_language() {
        let cases = [
            // Russian with an English quote: the whole reads as English.
            (
                Lang::Rus,
                "Да! Да! У меня написано: Validation Completed Congratulations! Please wait for all users to complete theirs.",
            ),
            (
                Lang::Rus,
                "Pre Sale 26.06.2018 будет открыт в кошельке Rucoin Loyalty",
            ),
            (
                Lang::Rus,
                "Статус KYC наконец-то перешел на 4-ю стадию! Рассылают письма: KYC + AML Result Notification Congratulations! You passed the KYC&AML procedure. We appreciate your patience and we will notify you about the next steps very soon.",
            ),
            // Indonesian with an English quote.
            (
                Lang::Ind,
                "Untuk distribusi belum dimulai Om. Masih perhitungan token akhir untuk para peserta. Quote This week we have begun the final token count for each participant. We will announce the distribution date as soon as the count is complete, thank you for your patience.",
            ),
        ];
        for (prior, text) in cases {
            assert_ne!(
                Detection::of(text).language(),
                code(prior),
                "detection alone misses: {text}"
            );
            assert_eq!(routed(Some(prior), text), code(prior), "{text}");
        }
    }

    #[test]
    fn clearly_other_languages_keep_their_own() {
        // Long English in a Latin-script board, any reliable English in another script's.
        assert_eq!(routed(Some(Lang::Por), ENGLISH_LONG), Some("en"));
        assert_eq!(routed(Some(Lang::Deu), ENGLISH_LONG), Some("en"));
        assert_eq!(routed(Some(Lang::Rus), ENGLISH_SHORT), Some("en"));
        assert_eq!(routed(Some(Lang::Ell), ENGLISH_SHORT), Some("en"));
        assert_eq!(
            routed(
                Some(Lang::Deu),
                "Я думаю, что у этого проекта сильная команда и реалистичная дорожная карта."
            ),
            Some("ru")
        );
        assert_eq!(
            routed(
                Some(Lang::Rus),
                "我认为这个项目有一个强大的团队和一个现实的路线图。"
            ),
            Some("zh")
        );
    }

    #[test]
    fn stretches_cut_at_word_ends_and_skip_letterless_ones() {
        // A sample: words joined by single spaces.
        let text = ["a"; 60].join(" ") + " " + &["word"; 30].join(" ");
        let cut: Vec<&str> = stretches(&text).collect();
        assert!(cut.iter().all(|s| !s.ends_with(' ') && !s.starts_with(' ')));
        assert!(
            cut.iter()
                .all(|s| s.chars().filter(|c| c.is_alphabetic()).count() >= MIN_CHARS)
        );
        assert!(cut.iter().all(|s| s.chars().count() <= STRETCH_CHARS + 8));
        assert_eq!(stretches("1. 2. 3. 4. 5.").count(), 0);
    }
}
