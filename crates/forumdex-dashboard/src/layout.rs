//! The page shell every page shares: head (stylesheet, no inline script), header with the
//! navigation for signed-in or anonymous visitors, a flash message, the content, a footer.

use maud::{DOCTYPE, Markup, html};

/// What the header needs to know about a signed-in developer.
#[derive(Debug, Clone)]
pub struct Nav {
    /// The developer's address, shown in the header.
    pub email: String,
    /// The CSRF token of the session, for the sign-out form.
    pub csrf: String,
}

/// A notice shown above the content.
#[derive(Debug, Clone)]
pub enum Flash {
    /// Something went as asked.
    Success(String),
    /// Something was refused; what to do about it.
    Error(String),
}

/// The title of the API reference page (`/docs`).
pub const DOCS_TITLE: &str = "API reference";

/// The signed-in navigation: each link, its label, and the titles of the pages it is the
/// current section for (marked `aria-current="page"`).
/// The account page's title; the signed-in address in the header links to it.
pub const ACCOUNT_TITLE: &str = "Account";

const SECTIONS: [(&str, &str, &[&str]); 7] = [
    ("/dashboard", "Overview", &["Overview"]),
    (
        "/dashboard/keys",
        "Keys",
        &["API keys", "Key settings", "Your new key"],
    ),
    ("/dashboard/usage", "Usage", &["Usage"]),
    ("/dashboard/requests", "Requests", &["Requests"]),
    (
        "/dashboard/billing",
        "Billing",
        &["Billing", "Test checkout"],
    ),
    ("/dashboard/activity", "Activity", &["Activity"]),
    ("/docs", "API docs", &[DOCS_TITLE]),
];

/// The whole document: `title` (the page's name), the header for `nav` (signed in) or for
/// visitors, `flash`, then `content`.
pub fn page(title: &str, nav: Option<&Nav>, flash: Option<&Flash>, content: Markup) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) " · forumdex" }
                link rel="stylesheet" href="/assets/dashboard.css";
                script src="/assets/dashboard.js" defer {}
            }
            body {
                a.skip href="#content" { "Skip to content" }
                header.site {
                    a.brand href="/" { "forumdex" }
                    nav {
                        @if let Some(nav) = nav {
                            @for (href, label, titles) in SECTIONS {
                                a href=(href) aria-current=[titles.contains(&title).then_some("page")] { (label) }
                            }
                            a.who href="/dashboard/account" title="Your account"
                                aria-current=[(title == ACCOUNT_TITLE).then_some("page")] { (nav.email) }
                            form #logout method="post" action="/logout" {
                                input type="hidden" name="csrf" value=(nav.csrf);
                                button.link type="submit" { "Sign out" }
                            }
                        } @else {
                            a href="/docs" aria-current=[(title == DOCS_TITLE).then_some("page")] { "API docs" }
                            a #login href="/login" { "Sign in" }
                            a #signup.button href="/signup" { "Sign up" }
                        }
                    }
                }
                main #content tabindex="-1" {
                    @match flash {
                        Some(Flash::Success(text)) => p.flash.success role="status" { (text) },
                        Some(Flash::Error(text)) => p.flash.error role="alert" { (text) },
                        None => {},
                    }
                    (content)
                }
                footer.site {
                    "forumdex · a read-only API over the forum's history · "
                    a href="/api/v1/openapi.json" { "OpenAPI document" }
                }
            }
        }
    }
}
