//! Pages that are not the forum page asked for: anti-bot interstitials and captchas, the
//! guest login wall, SMF's own error box, and pages cut short in transfer.
//!
//! Text markers are only trusted outside SMF pages: on a forum page, a post may well talk
//! about "DDoS-Guard" or quote "you are not allowed to access this section". There the
//! checks look at elements posts cannot make (forms, error boxes, captcha widgets).

use scraper::Html;

use super::ParseError;
use super::dom::{selector, text_of};

/// Lowercase markers of Cloudflare / DDoS-Guard interstitials and captcha pages.
const CHALLENGE_MARKERS: &[&str] = &[
    "cf-browser-verification",
    "cf_chl_",
    "challenge-platform",
    "cf-turnstile",
    "<title>just a moment...</title>",
    "attention required! | cloudflare",
    "checking your browser before accessing",
    "ddos-guard",
    "g-recaptcha",
    "h-captcha",
];

/// What every SMF 1.x page declares in its head.
const SMF_MARKER: &str = "var smf_scripturl";

/// Checks on the raw text, before parsing: a page that is not an SMF page is a challenge
/// (when it looks like one) or a layout error; an SMF page must be complete (its footer and
/// closing `</html>` there), else it was cut short.
pub(crate) fn check_text(html: &str) -> Result<(), ParseError> {
    let lower = html.to_ascii_lowercase();
    if !lower.contains(SMF_MARKER) {
        if CHALLENGE_MARKERS.iter().any(|m| lower.contains(m)) {
            return Err(ParseError::Challenge);
        }
        return Err(ParseError::layout("not an SMF page"));
    }
    if !lower.trim_end().ends_with("</html>") {
        return Err(ParseError::layout("truncated page: no closing </html>"));
    }
    if !lower.contains("id=\"footerarea\"") {
        return Err(ParseError::layout("truncated page: no footer"));
    }
    Ok(())
}

/// Checks on a parsed SMF page: a captcha widget, a login form in the page body (the
/// header's guest login form does not count), or SMF's error box ("An Error Has
/// Occurred!") in place of the content; an error box saying the guest may not see the
/// section is the login wall.
pub(crate) fn check_doc(doc: &Html) -> Result<(), ParseError> {
    let captcha = selector(".g-recaptcha, .h-captcha, .cf-turnstile, #cf-challenge-running");
    if doc.select(&captcha).next().is_some() {
        return Err(ParseError::Challenge);
    }
    if doc
        .select(&selector("#bodyarea form[action*=\"action=login2\"]"))
        .next()
        .is_some()
    {
        return Err(ParseError::LoginWall);
    }
    for title in doc.select(&selector("tr.titlebg > td")) {
        if text_of(title) != "An Error Has Occurred!" {
            continue;
        }
        let message = title
            .parent()
            .and_then(|row| row.next_siblings().find_map(scraper::ElementRef::wrap))
            .map(text_of)
            .unwrap_or_default();
        let lower = message.to_lowercase();
        if lower.contains("not allowed to access") || lower.contains("only registered members") {
            return Err(ParseError::LoginWall);
        }
        return Err(ParseError::ForumError(message));
    }
    Ok(())
}
