//! Bytes to text: the charset named by the `Content-Type` header, else by the page's own
//! `<meta charset>` / `http-equiv`, else UTF-8. Labels follow the WHATWG Encoding Standard
//! (as browsers do), so a page declared ISO-8859-1 is read as windows-1252: its 0x80-0x9F
//! bytes are the curly quotes and dashes the forum meant.

use encoding_rs::{Encoding, UTF_8};

/// How far into the page to look for a `<meta>` charset (the HTML standard's prescan).
const META_PRESCAN_BYTES: usize = 1024;

/// Decodes a fetched page. `content_type` is the response's `Content-Type` header, when
/// there is one. Never fails: undecodable bytes become U+FFFD.
pub fn decode(bytes: &[u8], content_type: Option<&str>) -> String {
    let encoding = content_type
        .and_then(charset_label)
        .and_then(|label| Encoding::for_label(label.as_bytes()))
        .or_else(|| meta_charset(bytes))
        .unwrap_or(UTF_8);
    let (text, _, _) = encoding.decode(bytes);
    text.into_owned()
}

/// The `charset=` parameter of a header or `content` attribute value, unquoted.
fn charset_label(value: &str) -> Option<String> {
    let lower = value.to_ascii_lowercase();
    let at = lower.find("charset=")?;
    let rest = lower[at + "charset=".len()..].trim_start();
    let label: String = rest
        .trim_start_matches(['"', '\''])
        .chars()
        .take_while(|c| !matches!(c, '"' | '\'' | ';' | ' ' | '>' | '/'))
        .collect();
    (!label.is_empty()).then_some(label)
}

/// The charset a `<meta>` in the page's first bytes declares (`<meta charset="...">` or
/// `<meta http-equiv="Content-Type" content="...; charset=...">`).
fn meta_charset(bytes: &[u8]) -> Option<&'static Encoding> {
    let head = &bytes[..bytes.len().min(META_PRESCAN_BYTES)];
    let head = String::from_utf8_lossy(head).to_ascii_lowercase();
    head.match_indices("<meta")
        .filter_map(|(at, _)| {
            let tag = &head[at..];
            let tag = &tag[..tag.find('>').unwrap_or(tag.len())];
            let label = match tag.find("charset=") {
                Some(_) => charset_label(tag),
                None => None,
            };
            label.and_then(|label| Encoding::for_label(label.as_bytes()))
        })
        .next()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso_8859_1_is_read_as_windows_1252() {
        let bytes = b"\x93caf\xe9\x94 \x80";
        assert_eq!(
            decode(bytes, Some("text/html; charset=ISO-8859-1")),
            "\u{201c}caf\u{e9}\u{201d} \u{20ac}"
        );
        assert_eq!(
            decode(bytes, Some("text/html; Charset=\"iso-8859-1\"")),
            "\u{201c}caf\u{e9}\u{201d} \u{20ac}"
        );
    }

    #[test]
    fn meta_declarations_and_the_utf8_default() {
        let http_equiv = b"<html><head><meta http-equiv=\"Content-Type\" content=\"text/html; charset=ISO-8859-1\" /></head>\xe9";
        assert!(decode(http_equiv, Some("text/html")).ends_with("</head>\u{e9}"));
        let meta = b"<meta charset='iso-8859-1'>\x93";
        assert_eq!(decode(meta, None), "<meta charset='iso-8859-1'>\u{201c}");
        assert_eq!(decode("caf\u{e9}".as_bytes(), None), "caf\u{e9}");
        assert_eq!(
            decode(b"\xe9", Some("text/html; charset=bogus")),
            "\u{fffd}"
        );
    }
}
