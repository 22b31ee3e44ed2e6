//! The landing page (`/`): what forumdex is, what a credit buys, the rate limit, the free
//! credits of a new account, one example call, and the way in.

use maud::{Markup, html};

/// The landing page's content: `rate_limit_per_minute` (requests per key per rolling minute),
/// `signup_credits` (granted once an address is verified; not mentioned when 0) and whether
/// the visitor is `signed_in` (which calls to action to show).
pub fn render(rate_limit_per_minute: u32, signup_credits: u64, signed_in: bool) -> Markup {
    html! {
        section.hero {
            h1 { "Bitcointalk's history, as a JSON API" }
            p.lead {
                "forumdex is a read-only, prepaid, pay-as-you-go JSON API over an indexed corpus "
                "of Bitcointalk forum posts."
            }
            @if signup_credits > 0 {
                p.free-credits { (credits(signup_credits)) " free once you verify your email." }
            }
            p.actions {
                @if signed_in {
                    a.button.primary href="/dashboard" { "Go to your dashboard" }
                } @else {
                    a #cta-signup.button.primary href="/signup" { "Create an account" }
                    a.button.secondary href="/login" { "Sign in" }
                }
                a href="/docs" { "API reference" }
            }
        }
        h2 { "What it answers" }
        section.cards.features {
            div.card {
                h3 { "Post search" }
                p { "Ranked post-level results for a query, with language selection and "
                    "spam and quality filtering." }
            }
            div.card {
                h3 { "Image search" }
                p { "Images found in matching posts, deduplicated and served as AVIF from a CDN." }
            }
            div.card {
                h3 { "Lookups" }
                p { "Posts, topics and profiles by their forum ID." }
            }
            div.card {
                h3 { "Collections" }
                p { "A topic's or an author's posts in chronological order, paged with a cursor "
                    "over a frozen snapshot, so no post is skipped or repeated." }
            }
        }
        section.pricing {
            h2 { "What a credit buys" }
            ul {
                li { "One credit per successful (" code { "200" } ") operation; each page of a "
                     "collection is one operation." }
                li { "Errors are free: a call that does not answer " code { "200" } " costs nothing." }
                li { "When the balance is empty, calls answer " code { "402" }
                     " until you top up. Credits are prepaid; there is no subscription." }
            }
            h2 { "Rate limit" }
            p {
                (rate_limit_per_minute) " requests per key per rolling minute. Responses carry "
                code { "X-RateLimit-Limit" } ", " code { "X-RateLimit-Remaining" } " and "
                code { "X-RateLimit-Reset" } "; a request over the limit gets " code { "429" }
                " and is not charged."
            }
        }
        section.example {
            h2 { "One call" }
            pre { code {
                "curl -H \"Authorization: Bearer $FORUMDEX_API_KEY\" \\\n"
                "  \"$FORUMDEX_URL/api/v1/search?q=bitcoin\""
            } }
            p.muted {
                code { "$FORUMDEX_URL" } " is this site's address; the "
                a href="/docs" { "API reference" } " lists every operation with ready-to-run calls."
            }
        }
    }
}

/// "1 credit", "500 credits".
fn credits(count: u64) -> String {
    if count == 1 {
        "1 credit".to_owned()
    } else {
        format!("{count} credits")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn states_what_forumdex_is_and_costs() {
        let page = render(120, 500, false).into_string();
        for fact in [
            "read-only, prepaid, pay-as-you-go JSON API",
            "Bitcointalk forum posts",
            "Post search",
            "Image search",
            "AVIF",
            "by their forum ID",
            "cursor",
            "frozen snapshot",
            "One credit per successful (<code>200</code>) operation",
            "Errors are free",
            "<code>402</code>",
            "120 requests per key per rolling minute",
            "X-RateLimit-Limit",
            "X-RateLimit-Remaining",
            "X-RateLimit-Reset",
            "<code>429</code>",
            "500 credits free once you verify your email",
            "/api/v1/search?q=bitcoin",
        ] {
            assert!(page.contains(fact), "missing {fact:?}");
        }
    }

    #[test]
    fn free_credits_only_when_there_are_some() {
        assert!(
            !render(60, 0, false)
                .into_string()
                .contains("free once you verify")
        );
        assert!(
            render(60, 1, false)
                .into_string()
                .contains("1 credit free once")
        );
    }

    #[test]
    fn visitors_are_invited_to_sign_up_or_in() {
        let page = render(120, 0, false).into_string();
        assert!(page.contains(r#"id="cta-signup" href="/signup">Create an account</a>"#));
        assert!(page.contains(r#"href="/login">Sign in</a>"#));
        assert!(page.contains(r#"href="/docs">API reference</a>"#));
        assert!(!page.contains(r#"href="/dashboard""#));
    }

    #[test]
    fn developers_are_sent_to_their_dashboard() {
        let page = render(120, 500, true).into_string();
        assert!(page.contains(r#"href="/dashboard""#));
        assert!(page.contains(r#"href="/docs">API reference</a>"#));
        assert!(!page.contains("cta-signup"));
        assert!(!page.contains(r#"href="/login""#));
    }
}
