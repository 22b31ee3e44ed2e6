//! The `<img>` tags of post HTML: reading their `src` and `alt`, and rewriting `src` to the
//! image CDN. `src` values are compared exactly as written in the HTML (corpus-format.md:
//! an image record's `source_url` is "the URL exactly as it appears in `src` attributes").

use std::ops::Range;

/// One `<img>` tag of a post.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImgTag<'a> {
    /// The `src` attribute as written (entities not decoded).
    pub src: &'a str,
    /// Where `src`'s value sits in the HTML.
    pub src_range: Range<usize>,
    /// Where the whole tag sits, `<` to `>`.
    pub tag_range: Range<usize>,
    /// The `alt` attribute with entities decoded (empty when absent).
    pub alt: String,
}

/// Every `<img>` tag of `html` that has a non-empty `src`, in document order.
pub fn img_tags(html: &str) -> Vec<ImgTag<'_>> {
    let mut tags = Vec::new();
    let bytes = html.as_bytes();
    let mut at = 0;
    while let Some(found) = html[at..].find('<') {
        let start = at + found + 1;
        let name_end = start
            + html[start..]
                .find(|c: char| c.is_ascii_whitespace() || c == '>' || c == '/')
                .unwrap_or(html.len() - start);
        let is_img = html[start..name_end].eq_ignore_ascii_case("img");
        let (attributes, end) = attributes(html, name_end);
        if is_img {
            let value = |name: &str| attributes.iter().find(|a| a.0.eq_ignore_ascii_case(name));
            if let Some((_, range)) = value("src")
                && !range.is_empty()
            {
                tags.push(ImgTag {
                    src: &html[range.clone()],
                    src_range: range.clone(),
                    tag_range: start - 1..end,
                    alt: value("alt")
                        .map(|(_, r)| html_escape::decode_html_entities(&html[r.clone()]).into())
                        .unwrap_or_default(),
                });
            }
        }
        at = end.max(start).min(bytes.len());
        if at >= html.len() {
            break;
        }
    }
    tags
}

/// `html` with the `src` of every `<img>` replaced where `replacement` returns a new value.
/// The new value is written as it is returned (it must not need escaping, as CDN URLs do not).
pub fn rewrite_img_sources(
    html: &str,
    mut replacement: impl FnMut(&str) -> Option<String>,
) -> String {
    let mut out = String::with_capacity(html.len());
    let mut copied = 0;
    for tag in img_tags(html) {
        if let Some(new) = replacement(tag.src) {
            out.push_str(&html[copied..tag.src_range.start]);
            out.push_str(&new);
            copied = tag.src_range.end;
        }
    }
    out.push_str(&html[copied..]);
    out
}

/// The attributes of the tag whose name ends at `at` (name, value range), and the offset just
/// after the tag's `>` (or the end of `html` for an unterminated tag). Quoted values may hold
/// `>`; an attribute without a value gets an empty range.
fn attributes(html: &str, mut at: usize) -> (Vec<(&str, Range<usize>)>, usize) {
    let bytes = html.as_bytes();
    let mut found = Vec::new();
    loop {
        while at < bytes.len() && (bytes[at].is_ascii_whitespace() || bytes[at] == b'/') {
            at += 1;
        }
        if at >= bytes.len() {
            return (found, bytes.len());
        }
        if bytes[at] == b'>' {
            return (found, at + 1);
        }
        let name_start = at;
        while at < bytes.len()
            && !matches!(bytes[at], b'=' | b'>' | b'/')
            && !bytes[at].is_ascii_whitespace()
        {
            at += 1;
        }
        let name = &html[name_start..at];
        while at < bytes.len() && bytes[at].is_ascii_whitespace() {
            at += 1;
        }
        if at >= bytes.len() || bytes[at] != b'=' {
            found.push((name, at..at));
            continue;
        }
        at += 1;
        while at < bytes.len() && bytes[at].is_ascii_whitespace() {
            at += 1;
        }
        let value = match bytes.get(at) {
            Some(&quote @ (b'"' | b'\'')) => {
                let start = at + 1;
                let end = html[start..]
                    .find(quote as char)
                    .map_or(html.len(), |i| start + i);
                at = (end + 1).min(bytes.len());
                start..end
            }
            _ => {
                let start = at;
                while at < bytes.len() && bytes[at] != b'>' && !bytes[at].is_ascii_whitespace() {
                    at += 1;
                }
                start..at
            }
        };
        found.push((name, value));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_src_and_alt_in_every_quoting() {
        let html = r#"a<IMG SRC="https://x.org/a.png?x=1&amp;y=2" alt="A &amp; B">b<img src='/b.gif'/><img alt=c src=https://c.org/c.jpg><img src="">"#;
        let tags = img_tags(html);
        let found: Vec<(&str, &str)> = tags.iter().map(|t| (t.src, t.alt.as_str())).collect();
        assert_eq!(
            found,
            vec![
                ("https://x.org/a.png?x=1&amp;y=2", "A & B"),
                ("/b.gif", ""),
                ("https://c.org/c.jpg", "c"),
            ]
        );
        assert_eq!(&html[tags[1].src_range.clone()], "/b.gif");
    }

    #[test]
    fn ignores_other_tags_and_quoted_angle_brackets() {
        let html = r#"<a href="x.png" title="<img src=no>">link</a><imgx src="no"><img title="a>b" src="yes.png">"#;
        let srcs: Vec<&str> = img_tags(html).iter().map(|t| t.src).collect();
        assert_eq!(srcs, vec!["yes.png"]);
    }

    #[test]
    fn unterminated_tags_end_the_scan_without_panicking() {
        for html in [
            "<img src=\"a.png",
            "<img src=",
            "<img",
            "<",
            "x<img src='a' alt",
        ] {
            let _ = img_tags(html);
            assert_eq!(
                rewrite_img_sources(html, |_| Some("z".into())).is_empty(),
                html.is_empty()
            );
        }
    }

    #[test]
    fn rewrites_only_the_sources_it_is_given() {
        let html = r#"<p>x</p><img src="a.png" alt="a"><img src="b.png"><img src="a.png">"#;
        let out = rewrite_img_sources(html, |src| {
            (src == "a.png").then(|| "https://cdn/1.avif".to_owned())
        });
        assert_eq!(
            out,
            r#"<p>x</p><img src="https://cdn/1.avif" alt="a"><img src="b.png"><img src="https://cdn/1.avif">"#
        );
        assert_eq!(rewrite_img_sources(html, |_| None), html);
    }
}
