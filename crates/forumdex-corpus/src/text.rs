//! Plain text from post HTML, for language detection and search.

/// The visible text of `html`: tags dropped (`<br>` and block ends become line breaks),
/// entities decoded, runs of blank space folded.
pub fn html_to_text(html: &str) -> String {
    let mut raw = String::with_capacity(html.len());
    let mut rest = html;
    while let Some(start) = rest.find('<') {
        raw.push_str(&rest[..start]);
        let after = &rest[start..];
        let Some(end) = after.find('>') else {
            raw.push_str(after);
            rest = "";
            break;
        };
        let tag = after[1..end].trim_start_matches('/').to_ascii_lowercase();
        let name = tag
            .split(|c: char| c.is_whitespace() || c == '/')
            .next()
            .unwrap_or("");
        if matches!(name, "br" | "p" | "div" | "li" | "tr" | "blockquote" | "hr") {
            raw.push('\n');
        } else {
            raw.push(' ');
        }
        rest = &after[end + 1..];
    }
    raw.push_str(rest);
    let decoded = html_escape::decode_html_entities(&raw);
    fold_space(&decoded)
}

/// The searchable text of `html`: [`html_to_text`] with the `k`-th `<img>` written out as
/// its `alt` text followed by [`image_marker`]`(k)`. A marker is a private-use character, which
/// no analyzer indexes and no highlighter marks; whoever shows the text replaces it with the
/// image's URL ([`replace_image_markers`]), so the URL can change (the CDN) without reindexing.
pub fn html_to_search_text(html: &str) -> String {
    let tags = crate::html::img_tags(html);
    if tags.is_empty() {
        return html_to_text(html);
    }
    let mut spelled_out = String::with_capacity(html.len());
    let mut copied = 0;
    for (k, tag) in tags.iter().enumerate() {
        spelled_out.push_str(&html[copied..tag.tag_range.start]);
        spelled_out.push(' ');
        spelled_out.push_str(&html_escape::encode_text(&tag.alt));
        if let Some(marker) = image_marker(k) {
            spelled_out.push(' ');
            spelled_out.push(marker);
        }
        spelled_out.push(' ');
        copied = tag.tag_range.end;
    }
    spelled_out.push_str(&html[copied..]);
    html_to_text(&spelled_out)
}

/// First character of the private-use area: the marker of a post's first image.
const FIRST_MARKER: u32 = 0xE000;
/// Images of one post that get a marker.
const MARKERS: usize = 6400;

/// The character that stands for the `k`-th image of a post in its search text (`None` past
/// the 6,400th).
pub fn image_marker(k: usize) -> Option<char> {
    (k < MARKERS)
        .then(|| char::from_u32(FIRST_MARKER + k as u32))
        .flatten()
}

/// `text` with each [`image_marker`] replaced by `url(k)`; markers without a URL are dropped.
pub fn replace_image_markers(text: &str, mut url: impl FnMut(usize) -> Option<String>) -> String {
    let range = FIRST_MARKER..FIRST_MARKER + MARKERS as u32;
    if !text.chars().any(|c| range.contains(&(c as u32))) {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len() + 64);
    for c in text.chars() {
        if range.contains(&(c as u32)) {
            if let Some(url) = url((c as u32 - FIRST_MARKER) as usize) {
                out.push_str(&url);
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Folds runs of spaces to one space and runs of line breaks to one line break.
fn fold_space(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut pending: Option<char> = None;
    for c in text.chars() {
        if c == '\n' {
            pending = Some('\n');
        } else if c.is_whitespace() {
            pending = pending.or(Some(' '));
        } else {
            if let Some(space) = pending.take()
                && !out.is_empty()
            {
                out.push(space);
            }
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_tags_and_decodes_entities() {
        let html = "Hello&nbsp;<b>world</b> &amp; all<br />second   line<img src=\"x\" alt=\"\" />";
        assert_eq!(html_to_text(html), "Hello world & all\nsecond line");
        assert_eq!(html_to_text("a < b"), "a < b");
    }

    #[test]
    fn block_tags_break_lines_in_any_case_and_with_attributes() {
        let html = "a<DIV class=\"quote\">b</P>c<bR/>d<li\tid=x>e</BlockQuote>f<hr>g";
        assert_eq!(html_to_text(html), "a\nb\nc\nd\ne\nf\ng");
        let inline = "a<pre>b<blockquotes>c<A href=\"https://x/div\">d</a>e<span/>f<>g";
        assert_eq!(html_to_text(inline), "a b c d e f g");
    }

    #[test]
    fn search_text_spells_out_images() {
        let html = "See<img src=\"https://x.org/a.png?a=1&amp;b=2\" alt=\"red &amp; blue\">here<img src=b.gif>";
        let text = html_to_search_text(html);
        assert_eq!(text, "See red & blue \u{E000} here \u{E001}");
        let shown =
            replace_image_markers(&text, |k| (k == 0).then(|| "https://cdn/a.avif".to_owned()));
        assert_eq!(shown, "See red & blue https://cdn/a.avif here ");
        assert_eq!(html_to_search_text("<b>plain</b>"), "plain");
    }
}
