//! The parser on the five real Bitcointalk pages in `shared/data/smf-pages` (2014), field by
//! field, and on variants made from them here by string edits (truncation, interstitials,
//! login wall, "Today at", windows-1252 bytes, a merit line). Skips when the pages are absent.

use std::path::PathBuf;

use chrono::{DateTime, Utc};
use forumdex_corpus::{ForumId, Observation, Record};
use forumdex_crawl::observe::observations;
use forumdex_crawl::parse::{Page, PageRef, ParseError, decode, parse_page};

const PAGES: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../../shared/data/smf-pages"
);
const LATIN1: Option<&str> = Some("text/html; charset=ISO-8859-1");

fn raw(name: &str) -> Option<Vec<u8>> {
    let path = PathBuf::from(PAGES).join(name);
    match std::fs::read(&path) {
        Ok(bytes) => Some(bytes),
        Err(err) => {
            eprintln!("skipping: {} not readable ({err})", path.display());
            None
        }
    }
}

fn html(name: &str) -> Option<String> {
    raw(name).map(|bytes| decode(&bytes, LATIN1))
}

fn id(n: u64) -> ForumId {
    ForumId::new(n).expect("test ids are valid")
}

fn at(text: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(text)
        .expect("test times are valid")
        .to_utc()
}

fn reference(url: &str) -> PageRef {
    PageRef::parse(url).expect("test URLs name pages")
}

fn topic(url: &str, html: &str) -> forumdex_crawl::parse::TopicPage {
    match parse_page(&reference(url), html) {
        Ok(Page::Topic(page)) => page,
        other => panic!("{url}: expected a topic page, got {other:?}"),
    }
}

fn board(url: &str, html: &str) -> forumdex_crawl::parse::BoardPage {
    match parse_page(&reference(url), html) {
        Ok(Page::Board(page)) => page,
        other => panic!("{url}: expected a board page, got {other:?}"),
    }
}

/// IDs of `id="subject_N"` in the raw text, read without the HTML parser.
fn subject_ids(text: &str) -> Vec<u64> {
    text.match_indices("id=\"subject_")
        .filter_map(|(at, m)| {
            let digits: String = text[at + m.len()..]
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            digits.parse().ok()
        })
        .collect()
}

#[test]
fn topic_14_first_page() {
    let Some(text) = html("topic_14.html") else {
        return;
    };
    let page = topic("index.php?topic=14.0", &text);
    assert_eq!(page.topic_id, id(14));
    assert_eq!(page.title, "Break on the supply's increase");
    assert_eq!(
        (page.board.board_id, page.board.name.as_str()),
        (id(7), "Economics")
    );
    assert!(page.parents.is_empty());
    assert_eq!(page.category.as_deref(), Some("Economy"));
    assert_eq!(page.views, 3051);
    assert_eq!((page.current_page, page.page_count), (1, 1));
    let ids: Vec<u64> = page.posts.iter().map(|p| p.post_id.get() as u64).collect();
    assert_eq!(ids, vec![53, 56], "the decoy rows are left out");
    assert_eq!(ids, subject_ids(&text));
    let op = &page.posts[0];
    assert_eq!(op.post_number, 0);
    assert_eq!(op.subject, "Break on the supply's increase");
    assert_eq!(op.author.profile_id, Some(id(16)));
    assert_eq!(op.author.username, "xuO4k04c6Ng");
    assert!(!op.author.is_guest());
    assert_eq!(op.posted_at, at("2009-12-12T14:11:37Z"));
    assert!(
        op.content_html
            .starts_with("I have one suggestion (mostly for exchangers). It's about")
    );
    assert!(op.content_html.ends_with("George Hara"));
    assert_eq!((op.last_edit, op.merit.as_ref()), (None, None));
    let reply = &page.posts[1];
    assert_eq!(reply.post_number, 1);
    assert_eq!(reply.subject, "Re: Break on the supply's increase");
    assert_eq!(reply.author.profile_id, Some(id(13)));
    assert_eq!(reply.posted_at, at("2009-12-12T18:23:59Z"));
    let economics = page.directory.iter().find(|b| b.board_id == id(57));
    assert_eq!(
        economics.map(|b| (b.name.as_str(), b.parent_board_id, b.category.as_deref())),
        Some(("Speculation", Some(id(7)), Some("Economy")))
    );
}

#[test]
fn topic_602041_last_page_skips_decoys_and_resolves_today() {
    let Some(text) = html("topic_602041.12400.html") else {
        return;
    };
    let page = topic("index.php?topic=602041.12400", &text);
    assert_eq!((page.current_page, page.page_count), (621, 621));
    assert_eq!(page.views, 272662);
    assert_eq!(page.board.board_id, id(159));
    assert_eq!(page.board.name, "Announcements (Altcoins)");
    let parents: Vec<i64> = page.parents.iter().map(|b| b.board_id.get()).collect();
    assert_eq!(parents, vec![67]);
    assert_eq!(
        page.title,
        "[ANN][VRC] | VeriCoin | POS - NSDI | VeriBit | VeriSend | VeriSMS"
    );
    // The page holds decoy rows (hidden, fake IDs near 1406845589); the real rows are those
    // with a `subject_ID`, which the raw text lists independently of the parser.
    assert!(text.contains("msg1406845589"));
    let ids: Vec<u64> = page.posts.iter().map(|p| p.post_id.get() as u64).collect();
    assert_eq!(ids, subject_ids(&text));
    assert_eq!(ids.len(), 8);
    assert_eq!(ids.first(), Some(&8125509));
    let numbers: Vec<u64> = page.posts.iter().map(|p| p.post_number).collect();
    assert_eq!(numbers, (12400..12408).collect::<Vec<_>>());
    let first = &page.posts[0];
    assert_eq!(
        (first.author.profile_id, first.author.username.as_str()),
        (Some(id(352578)), "altcoinUK")
    );
    assert_eq!(
        first.posted_at,
        at("2014-07-31T21:03:11Z"),
        "Today at, header clock July 31"
    );
    assert_eq!(page.posts[7].posted_at, at("2014-07-31T22:25:50Z"));
    let quoted = page
        .posts
        .iter()
        .find(|p| p.content_html.contains("class=\"quote\""))
        .expect("a post quotes another");
    assert!(quoted.content_html.contains(
        "<div class=\"quoteheader\"><a href=\"https://bitcointalk.org/index.php?topic=602041.msg"
    ));
    // Images are kept (the HTML parser re-serializes attributes in name order).
    assert!(page.posts.iter().any(|p| {
        p.content_html.contains(
            "<img alt=\"\" border=\"0\" class=\"userimg\" src=\"https://ip.bitcointalk.org/?u=",
        )
    }));
    assert!(page.posts.iter().any(|p| p.content_html.contains(
        "<img alt=\"Smiley\" border=\"0\" src=\"https://bitcointalk.org/Smileys/default/smiley.gif\">"
    )));
}

#[test]
fn board_74_lists_40_topics() {
    let Some(text) = html("board_74.html") else {
        return;
    };
    let page = board("index.php?board=74.0", &text);
    assert_eq!(
        (page.board.board_id, page.board.name.as_str()),
        (id(74), "Legal")
    );
    assert_eq!(page.parents.first().map(|b| b.board_id), Some(id(1)));
    assert_eq!(page.category.as_deref(), Some("Bitcoin"));
    assert_eq!((page.current_page, page.page_count), (1, 23));
    assert_eq!(page.topics.len(), 40);
    assert_eq!(page.topics.first().map(|t| t.topic_id), Some(id(96118)));
    assert_eq!(page.topics.last().map(|t| t.topic_id), Some(id(684343)));
    let first = &page.topics[0];
    assert_eq!(
        first.title,
        "List of court cases, complaints, regulatory actions, etc."
    );
    assert_eq!(first.starter.profile_id, Some(id(2228)));
    assert_eq!(first.starter.username, "Stephen Gornick");
    assert_eq!((first.replies, first.views), (95, 29972));
    assert_eq!(first.last_post_at, at("2014-03-06T21:04:45Z"));
    assert_eq!(first.last_post_id, Some(id(5555254)));
    // Topics without replies link `topic=T.0#new`: no message ID to read.
    let with_id = page.topics.iter().filter(|t| t.last_post_id.is_some());
    assert_eq!(with_id.count(), 35);
    assert!(
        page.topics
            .iter()
            .filter(|t| t.last_post_id.is_none())
            .all(|t| t.replies == 0)
    );
    assert_eq!(
        page.topics[1].title,
        "Erik Voorhees Talks BitLicense Regulations & Bitcoin Privacy | Coin Brief"
    );
    assert!(page.child_boards.is_empty());
}

#[test]
fn board_5_page_16() {
    let Some(text) = html("board_5.600.html") else {
        return;
    };
    let page = board("index.php?board=5.600", &text);
    assert_eq!(
        (page.board.board_id, page.board.name.as_str()),
        (id(5), "Marketplace")
    );
    assert!(page.parents.is_empty());
    assert_eq!((page.current_page, page.page_count), (16, 128));
    assert_eq!(page.topics.len(), 40);
    let listed = text.matches("<span id=\"msg_").count();
    assert_eq!(page.topics.len(), listed);
    let goods = page.directory.iter().find(|b| b.board_id == id(51));
    assert_eq!(goods.and_then(|b| b.parent_board_id), Some(id(5)));
}

#[test]
fn profile_12() {
    let Some(text) = html("profile_12.html") else {
        return;
    };
    let Ok(Page::Profile(page)) = parse_page(&reference("index.php?action=profile;u=12"), &text)
    else {
        panic!("profile_12 parses as a profile");
    };
    assert_eq!(page.profile_id, id(12));
    assert_eq!(page.username, "nanaimogold");
    assert_eq!(
        (page.posts, page.activity, page.merit),
        (Some(406), Some(406), None)
    );
    assert_eq!(page.position.as_deref(), Some("Sr. Member"));
    assert_eq!(page.registered_at, Some(at("2009-12-09T19:23:55Z")));
    // "Today at 12:38:01 AM" on a page whose header clock reads July 30, 2014, 12:02:50 AM.
    assert_eq!(page.last_active, Some(at("2014-07-30T00:38:01Z")));
    let wrong = parse_page(&reference("index.php?action=profile;u=13"), &text);
    assert!(matches!(wrong, Err(ParseError::Layout(_))), "{wrong:?}");
}

#[test]
fn every_line_from_the_real_pages_is_a_valid_observation() {
    let cases = [
        ("board_5.600.html", "index.php?board=5.600"),
        ("board_74.html", "index.php?board=74.0"),
        ("profile_12.html", "index.php?action=profile;u=12"),
        ("topic_14.html", "index.php?topic=14.0"),
        ("topic_602041.12400.html", "index.php?topic=602041.12400"),
    ];
    let observed_at = at("2014-08-01T00:00:00Z");
    let mut posts = 0;
    for (name, url) in cases {
        let Some(text) = html(name) else {
            return;
        };
        let page = parse_page(&reference(url), &text).expect("real pages parse");
        let lines = observations(&page, observed_at);
        assert!(!lines.is_empty(), "{name}");
        for line in lines {
            let observation = Observation::parse_line(line.as_bytes())
                .unwrap_or_else(|err| panic!("{name}: {err}: {line}"));
            assert_eq!(observation.observed_at.to_datetime(), observed_at);
            if let Record::Post(post) = observation.record {
                posts += 1;
                assert_eq!(post.is_op, Some(post.post_number == Some(0)));
                assert!(post.language.is_none() && post.merit_senders.is_none());
            }
        }
    }
    assert_eq!(posts, 10);
}

#[test]
fn truncated_pages_are_layout_errors() {
    let Some(text) = html("topic_602041.12400.html") else {
        return;
    };
    let footer = text
        .find("<div id=\"footerarea\"")
        .expect("the page has a footer");
    let cuts = [
        &text[..text.len() / 2],
        &text[..footer],
        text.trim_end().trim_end_matches("</html>"),
    ];
    for cut in cuts {
        let result = parse_page(&reference("index.php?topic=602041.12400"), cut);
        assert!(matches!(result, Err(ParseError::Layout(_))), "{result:?}");
    }
    // The end of the page intact but posts missing from the middle: still not "fewer posts".
    let start = text.find("<div class=\"post\">").expect("a post body");
    let gutted = format!("{}{}", &text[..start], &text[footer..]);
    let result = parse_page(&reference("index.php?topic=602041.12400"), &gutted);
    assert!(matches!(result, Err(ParseError::Layout(_))), "{result:?}");
}

#[test]
fn no_prefix_of_a_real_page_panics() {
    let cases = [
        ("board_74.html", "index.php?board=74.0"),
        ("profile_12.html", "index.php?action=profile;u=12"),
        ("topic_14.html", "index.php?topic=14.0"),
        ("topic_602041.12400.html", "index.php?topic=602041.12400"),
    ];
    for (name, url) in cases {
        let Some(text) = html(name) else {
            return;
        };
        let page = reference(url);
        let cuts = (0..text.len())
            .step_by(1499)
            .filter(|i| text.is_char_boundary(*i));
        for cut in cuts {
            assert!(
                parse_page(&page, &text[..cut]).is_err(),
                "{name} cut at {cut}"
            );
        }
        // Every page kind read as every other kind fails cleanly too.
        for other in [
            "index.php",
            "index.php?board=74.0",
            "index.php?topic=14.0",
            "index.php?action=profile;u=12",
        ] {
            let _ = parse_page(&reference(other), &text);
        }
    }
}

#[test]
fn challenge_and_login_wall_pages() {
    let cloudflare = "<!DOCTYPE html><html lang=\"en-US\"><head><title>Just a moment...</title>\
        </head><body><div id=\"challenge-stage\"></div><script src=\"/cdn-cgi/challenge-platform/h/b/orchestrate/chl_page/v1\"></script></body></html>";
    let ddos_guard = "<html><head><title>DDoS-Guard</title></head><body>Checking your browser before accessing bitcointalk.org</body></html>";
    let not_forum = "<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>";
    assert!(matches!(
        parse_page(&reference("index.php?topic=14.0"), not_forum),
        Err(ParseError::Layout(_))
    ));
    for page in [cloudflare, ddos_guard] {
        assert_eq!(
            parse_page(&reference("index.php?topic=14.0"), page),
            Err(ParseError::Challenge)
        );
    }
    let Some(text) = html("topic_14.html") else {
        return;
    };
    let body = text.find("<div id=\"bodyarea\"").expect("a body");
    let footer = text.find("<div id=\"footerarea\"").expect("a footer");
    let wall = format!(
        "{}<div id=\"bodyarea\"><table class=\"tborder\"><tr class=\"titlebg\"><td>Warning!</td></tr>\
         <tr><td class=\"windowbg\">Only registered members are allowed to access this section.<br />\
         Please login below or <a href=\"https://bitcointalk.org/index.php?action=register\">register</a>.</td></tr></table>\
         <form action=\"https://bitcointalk.org/index.php?action=login2\" method=\"post\"><input type=\"text\" name=\"user\" /></form></div>{}",
        &text[..body],
        &text[footer..]
    );
    assert_eq!(
        parse_page(&reference("index.php?topic=14.0"), &wall),
        Err(ParseError::LoginWall)
    );
    let error = format!(
        "{}<div id=\"bodyarea\"><table class=\"tborder\"><tr class=\"titlebg\"><td>An Error Has Occurred!</td></tr>\
         <tr class=\"windowbg\"><td>The topic or board you are looking for appears to be either missing or off limits to you.</td></tr></table></div>{}",
        &text[..body],
        &text[footer..]
    );
    assert_eq!(
        parse_page(&reference("index.php?topic=14.0"), &error),
        Err(ParseError::ForumError(
            "The topic or board you are looking for appears to be either missing or off limits to you."
                .to_owned()
        ))
    );
    let not_allowed = error.replace(
        "The topic or board you are looking for appears to be either missing or off limits to you.",
        "Sorry, you are not allowed to access this section.",
    );
    assert_eq!(
        parse_page(&reference("index.php?topic=14.0"), &not_allowed),
        Err(ParseError::LoginWall)
    );
    // A post may talk about a challenge or quote the login wall's words: still a topic page.
    let chatty = text.replacen(
        "George Hara",
        "Behind DDoS-Guard, a g-recaptcha: you are not allowed to access this section",
        1,
    );
    assert_eq!(topic("index.php?topic=14.0", &chatty).posts.len(), 2);
    let captcha = format!(
        "{}<div id=\"bodyarea\"><div class=\"g-recaptcha\" data-sitekey=\"x\"></div></div>{}",
        &text[..body],
        &text[footer..]
    );
    assert_eq!(
        parse_page(&reference("index.php?topic=14.0"), &captcha),
        Err(ParseError::Challenge)
    );
    let other_topic = parse_page(&reference("index.php?topic=15.0"), &text);
    assert!(
        matches!(other_topic, Err(ParseError::Layout(_))),
        "{other_topic:?}"
    );
}

#[test]
fn today_resolves_with_the_header_clock() {
    let Some(text) = html("topic_14.html") else {
        return;
    };
    let today = text.replacen(
        "December 12, 2009, 02:11:37 PM",
        "<b>Today</b> at 02:11:37 PM",
        1,
    );
    let page = topic("index.php?topic=14.0", &today);
    assert_eq!(page.posts[0].posted_at, at("2014-07-31T14:11:37Z"));
    let no_clock = today.replacen("July 31, 2014, 10:26:28 PM", "", 1);
    let result = parse_page(&reference("index.php?topic=14.0"), &no_clock);
    assert!(matches!(result, Err(ParseError::Layout(_))), "{result:?}");
}

#[test]
fn windows_1252_bytes_decode() {
    let Some(bytes) = raw("topic_14.html") else {
        return;
    };
    let needle: &[u8] = b"It&#039;s about creating";
    let at_byte = bytes
        .windows(needle.len())
        .position(|w| w == needle)
        .expect("the post text is there");
    let mut edited = bytes[..at_byte].to_vec();
    edited.extend_from_slice(b"It\x92s \x93caf\xe9\x94 about creating");
    edited.extend_from_slice(&bytes[at_byte + needle.len()..]);
    // Once from the header, once from the page's own http-equiv declaration.
    for content_type in [LATIN1, None] {
        let text = decode(&edited, content_type);
        let page = topic("index.php?topic=14.0", &text);
        assert!(
            page.posts[0]
                .content_html
                .contains("It\u{2019}s \u{201c}caf\u{e9}\u{201d} about creating"),
            "{content_type:?}"
        );
    }
}

#[test]
fn merit_line_and_edit_note() {
    let Some(text) = html("topic_14.html") else {
        return;
    };
    let merit = "<td colspan=\"2\" class=\"smalltext\" width=\"100%\">\
        Merited by <a href=\"https://bitcointalk.org/index.php?action=profile;u=3\">satoshi</a> (10), \
        <a href=\"https://bitcointalk.org/index.php?action=profile;u=35\">theymos</a> (1)";
    let edited = text
        .replacen("<td colspan=\"2\" class=\"smalltext\" width=\"100%\">", merit, 1)
        .replacen(
            "id=\"modified_53\">",
            "id=\"modified_53\">&#171; <i>Last edit: December 13, 2009, 01:00:00 AM by xuO4k04c6Ng</i> &#187;",
            1,
        );
    let page = topic("index.php?topic=14.0", &edited);
    let post = &page.posts[0];
    let senders: Vec<(i64, u64)> = post
        .merit
        .iter()
        .flatten()
        .map(|s| (s.profile_id.get(), s.amount))
        .collect();
    assert_eq!(senders, vec![(3, 10), (35, 1)]);
    assert_eq!(post.last_edit, Some(at("2009-12-13T01:00:00Z")));
    let lines = observations(&Page::Topic(page), at("2026-01-01T00:00:00Z"));
    let merits: Vec<_> = lines
        .iter()
        .filter_map(|line| match Observation::parse_line(line.as_bytes()) {
            Ok(Observation {
                record: Record::Post(post),
                ..
            }) => Some(post.merit),
            _ => None,
        })
        .collect();
    assert_eq!(merits.len(), 2);
    assert_eq!(
        (merits[1].total, merits[1].transactions),
        (0, 0),
        "post 56 has no merit line"
    );
    assert_eq!(
        (
            merits[0].total,
            merits[0].distinct_senders,
            merits[0].transactions
        ),
        (11, 2, 2)
    );
}

#[test]
fn a_row_hidden_by_the_page_css_is_no_post_even_with_a_subject_id() {
    let Some(text) = html("topic_14.html") else {
        return;
    };
    // topic_14's style hides `.m92cad35`; give the second real row (post 56) that class.
    assert!(text.contains(".m92cad35 {display:none}"));
    let second = text
        .match_indices("<tr class=\"n92cad35\">")
        .nth(1)
        .map(|(at, _)| at)
        .expect("two real rows");
    let edited = format!(
        "{}<tr class=\"m92cad35\">{}",
        &text[..second],
        &text[second + "<tr class=\"n92cad35\">".len()..]
    );
    let page = topic("index.php?topic=14.0", &edited);
    let ids: Vec<i64> = page.posts.iter().map(|p| p.post_id.get()).collect();
    assert_eq!(ids, vec![53]);
}
