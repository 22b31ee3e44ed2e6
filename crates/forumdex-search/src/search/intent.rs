//! What a query asks for besides its words: recent posts, an answer, or how things stand;
//! and which of its words only say that something did not happen.

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

/// What a query asks besides its words, as the fusion reads it.
#[derive(Debug, Clone, Copy)]
pub struct Asked {
    /// A question ([`detects_answer_seeking`]): posts that only ask one too answer nothing.
    pub question: bool,
    /// How things stand ([`asks_status`]): a thread's later posts come first.
    pub status: bool,
}

/// Words that ask how things stand now or whether something happened: time and state
/// ("when", "still", "ever", "yet", "status", "dead", "what happened"), in English, Russian,
/// German, Indonesian, French and Spanish, matched as whole lowercased words. Words of
/// outcome ("paid", "listed", "payouts") were tried too and left out: descriptions use them
/// for what a project does ("holders get payouts"), not to ask (BENCHMARKS.md, "The later
/// word").
const STATUS_WORDS: &str = "
    status still yet ever now already anymore finally update updates news latest
    when happened happening happens happen dead alive abandoned delayed postponed
    когда уже ещё еще статус новости случилось произошло
    wann noch schon neuigkeiten kapan sudah masih quand encore déjà cuando todavía
";

/// Whether the query asks how things stand now or how something turned out
/// ([`STATUS_WORDS`]): "Asobi Coin bounty payout when", "ModulTrade dead?", "was X ever
/// listed". In a thread, a later post supersedes an earlier one on such a question
/// ([`super::superseding`]).
pub fn asks_status(query: &str) -> bool {
    let lower = query.to_lowercase();
    lower
        .split(|c: char| !c.is_alphanumeric())
        .any(|word| STATUS_WORDS.split_whitespace().any(|status| status == word))
}

/// Words that say something did not happen or is not so ("bounty never paid", "nothing
/// arrived", "didn't list"), as the query's words are read (lowercased, folded to ASCII,
/// split at apostrophes: "didn't" is "didn" and "t"). They give the query its polarity,
/// not its subject: a post that says "you never know" about something else is no match
/// for "X bounty never paid", so the ranking counts them with the common words
/// ([`super::words::QueryWord::common`]). Some are stop words of an index already ("not",
/// "no" in English, "не" in Russian); the list holds them for the indexes without. In
/// English with its contractions as split and as typed without the apostrophe; then
/// German, Dutch, French, Spanish, Portuguese, Italian, Indonesian, Turkish, Russian and
/// Ukrainian.
const NEGATIONS: &str = "
    no not never nothing none nobody noone nowhere neither nor cannot cant without
    didn didnt doesn doesnt don dont hasn hasnt haven havent hadn hadnt isn isnt wasn wasnt
    weren werent aren arent wouldn wouldnt couldn couldnt shouldn shouldnt ain
    nicht nie niemals kein keine keinen nichts niet nooit geen
    pas jamais rien nunca jamas nada nao non mai niente
    tidak belum tak bukan gak nggak degil
    не нет ни никогда ничего ніколи немає
";

/// Whether `word` (a query word as [`super::words::query_words`] reads it) only says that
/// something did not happen ([`NEGATIONS`]).
pub fn is_negation(word: &str) -> bool {
    NEGATIONS
        .split_whitespace()
        .any(|negation| negation == word)
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

    #[test]
    fn questions_about_how_things_stand_are_told_from_others() {
        assert!(asks_status("Asobi Coin bounty payout when"));
        assert!(asks_status("ModulTrade dead?"));
        assert!(asks_status("was Neluns ever listed on an exchange"));
        assert!(asks_status("Treon баунти КОГДА выплаты"));
        assert!(asks_status("Wann wird ausgezahlt"));
        assert!(
            !asks_status("corl: holders get payouts"),
            "outcome words alone do not ask"
        );
        assert!(!asks_status(
            "WinMiner flagged as virus by antivirus, is it safe?"
        ));
        assert!(!asks_status("how do I recover my wallet"));
        assert!(!asks_status("whenever"), "whole words only");
    }

    #[test]
    fn negation_words_are_told_from_the_subject() {
        for word in [
            "never",
            "nothing",
            "didn",
            "didnt",
            "cant",
            "nicht",
            "tidak",
            "никогда",
        ] {
            assert!(is_negation(word), "{word}");
        }
        for word in ["paid", "bounty", "t", "know", "nevermind", "notice"] {
            assert!(!is_negation(word), "{word}");
        }
    }
}
