//! Language detection for posts that carry no `language`, with whatlang (trigram models
//! compiled into the crate: offline, fast), restricted to the forum's languages ([`LANGUAGES`]).

use std::sync::LazyLock;

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

static DETECTOR: LazyLock<Detector> =
    LazyLock::new(|| Detector::with_allowlist(LANGUAGES.to_vec()));

/// Detects the language of `text` (one of [`LANGUAGES`]) as an ISO 639-1 code, or `None`
/// when the text is too short, the guess is unreliable, or the language has no two-letter
/// code.
pub fn detect(text: &str) -> Option<&'static str> {
    let sample = sample(text);
    let sample = sample.as_str();
    if sample.chars().filter(|c| c.is_alphabetic()).count() < MIN_CHARS {
        return None;
    }
    let info = DETECTOR.detect(sample)?;
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
    iso_639_1(info.lang().code())
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
}
