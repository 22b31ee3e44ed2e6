//! What a query asks for besides its words: recent posts, or an answer.

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
