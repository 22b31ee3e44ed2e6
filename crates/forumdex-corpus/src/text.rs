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
}
