//! Posts that cannot answer: a report form (a bounty participant's "proof of
//! authentication", a weekly report) answers nothing, and when the query asks a question,
//! a post that only asks one too (the other people who asked the same) is no answer. On
//! the semantic path the first [`LOOKED_AT`] posts of the fused order that do not hold
//! every word are read, and those that cannot answer have their fusion score multiplied
//! by [`NON_ANSWER_FACTOR`] (BENCHMARKS.md, "Answers before questions", "Weekly reports
//! and negations").

/// Fused posts read to tell answers from the rest.
pub const LOOKED_AT: usize = 40;
/// What a post that cannot answer keeps of its fusion score.
pub const NON_ANSWER_FACTOR: f64 = 0.5;
/// A post of fewer words than this that holds a question mark is a question.
const SHORT_QUESTION_WORDS: usize = 40;
/// What report forms say (in a text lowercased, `-` read as a space, no space before `:`).
const FORM_MARKS: &[&str] = &[
    "proof of auth",
    "proof of submission",
    "username:",
    "telegram:",
    "eth address:",
    "ethereum address:",
    "eth wallet:",
    "bitcointalk profile",
    "profile link:",
    "link to article",
    "link article",
    "facebook url:",
    "twitter url:",
    "facebook link:",
    "twitter link:",
    "facebook account:",
    "twitter account:",
    "facebook profile:",
    "twitter profile:",
];
/// A weekly report names its week in its first this many characters ("Week 8 (June 18 -
/// June 24) Twitter campaign", "FACEBOOK CAMPAIGN Week #6", "week: 16"), and links to
/// what was done that week.
const WEEK_MARK_CHARS: usize = 40;

/// Whether `text` (a post's plain text) cannot answer; `question_asked`: the query asks
/// a question.
pub fn cannot_answer(text: &str, question_asked: bool) -> bool {
    is_form(text) || (question_asked && is_question(text))
}

/// A report form.
fn is_form(text: &str) -> bool {
    let head: String = text
        .chars()
        .take(400)
        .collect::<String>()
        .to_lowercase()
        .replace('-', " ");
    let head = head
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace(" :", ":");
    FORM_MARKS.iter().any(|mark| head.contains(mark))
        || (names_its_week(&head) && text.contains("http"))
}

/// Whether `head` (lowercased) opens with a week's number: "week" then a number, with at
/// most a `#`, `:`, `-`, `*`, `.`, "no" or spaces between, within [`WEEK_MARK_CHARS`].
fn names_its_week(head: &str) -> bool {
    let opening: String = head.chars().take(WEEK_MARK_CHARS).collect();
    opening.match_indices("week").any(|(at, _)| {
        let after = opening[at + "week".len()..].trim_start_matches(|c: char| {
            c.is_whitespace() || matches!(c, '#' | ':' | '-' | '*' | '.')
        });
        let after = after
            .strip_prefix("no")
            .map_or(after, |rest| rest.trim_start_matches(['#', '.', ' ']));
        after.starts_with(|c: char| c.is_ascii_digit())
    })
}

/// A post that asks rather than answers: it ends with a question mark, or it is short and
/// holds one.
fn is_question(text: &str) -> bool {
    let text = text.trim_end();
    text.ends_with('?')
        || (text.contains('?') && text.split_whitespace().count() < SHORT_QUESTION_WORDS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn report_forms_never_answer() {
        let form = "#Proof of Authentication Bitcointalk Username: alener Telegram Username: @x";
        assert!(cannot_answer(form, false));
        assert!(cannot_answer("Week 3 report. ETH address: 0xabc", false));
        assert!(cannot_answer(
            "#Proof-of-authentication Campaign joined",
            false
        ));
        assert!(cannot_answer(
            "User Telegram : @x Link Url : https://a.b",
            false
        ));
        assert!(!cannot_answer(
            "The bounty rewards were sent yesterday.",
            false
        ));
    }

    #[test]
    fn weekly_reports_never_answer() {
        for report in [
            "Week 8 (June 18 - June 24) Twitter campaign Twitter Url: https://twitter.com/x",
            "FACEBOOK CAMPAIGN Week 7 (11.06. - 17.06.) 1. https://web.facebook.com/x",
            "Facebook Campaign week: 16 (26/11 - 02/12) Facebook url: https//facebook.com/x",
            "Week No#6 Date (03.06.2018 - 09.06.2018) Twitter Bounty https://twitter.com/x",
            "Week - 6#(04.06.18-10.06.18) Twitter Campaign https://twitter.com/x",
            "Week**Date***Details Week #11* (9 July - 15 July) *Twitter Campaign* http://x.y",
            "Name of Campaign : Facebook Facebook URL: https://www.facebook.com/x",
        ] {
            assert!(cannot_answer(report, false), "{report}");
        }
        for answer in [
            "ASOBI IS DISTRIBUTING BOUNTY REWARD IN BATCHES. EVERY WEEK 500K ABX ARE SENT.",
            "Rewards go out next week, 12 May at the latest.",
            "The weekly reports end on Sunday; week numbers are in the sheet.",
            "The last week of the campaign was counted and 2 batches were sent.",
            "Paid every week 2 batches, nothing to do on your side.",
        ] {
            assert!(!cannot_answer(answer, false), "{answer}");
        }
    }

    #[test]
    fn questions_are_no_answer_to_a_question() {
        let asked = "Do you know the date when the rewards will be paid? Thanks.";
        assert!(cannot_answer(asked, true));
        assert!(!cannot_answer(asked, false), "only when the query asks");
        assert!(cannot_answer("When is the payout?", true));
        let answer = "Rewards were sent on 12 May. Did you get yours? Check the sheet, \
                      then the token contract, and add it to your wallet: the balance \
                      shows once the token is added, whatever the explorer says about \
                      the transfer, which can lag for a day or two after the team sends \
                      the whole batch of payments at once.";
        assert!(
            !cannot_answer(answer, true),
            "a long answer with a question inside"
        );
    }
}
