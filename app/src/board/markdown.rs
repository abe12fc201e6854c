//! A record's Markdown as HTML, safely: pulldown-cmark (CommonMark, tables, strikethrough,
//! task lists) with every piece of raw HTML turned into text (escaped, shown as written), an
//! image shown as a link to its address (the page loads nothing from elsewhere), and a link
//! kept only when it is `http:`, `https:`, `mailto:` or a fragment; a relative link to a
//! record goes to that record on the board ([`link`] decides), any other is dropped.

use pulldown_cmark::{CowStr, Event, Options, Parser, Tag, TagEnd, html};

/// Renders `markdown`; `record_link` maps a relative link's target to a board URL.
pub fn render(markdown: &str, record_link: &dyn Fn(&str) -> Option<String>) -> String {
    let options = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    let events = Parser::new_ext(markdown, options).map(|event| match event {
        Event::Html(raw) | Event::InlineHtml(raw) => Event::Text(raw),
        Event::Start(Tag::Link { link_type, dest_url, title, id }) => {
            Event::Start(Tag::Link { link_type, dest_url: link(&dest_url, record_link), title, id })
        }
        Event::Start(Tag::Image { link_type, dest_url, title, id }) => {
            Event::Start(Tag::Link { link_type, dest_url: link(&dest_url, record_link), title, id })
        }
        Event::End(TagEnd::Image) => Event::End(TagEnd::Link),
        other => other,
    });
    let mut out = String::with_capacity(markdown.len() * 3 / 2);
    html::push_html(&mut out, events);
    out
}

/// Where a link may lead: a web or mail address as written, a fragment, a record on the board;
/// anything else (`javascript:`, `data:`, a file path) leads nowhere.
fn link<'a>(dest: &str, record_link: &dyn Fn(&str) -> Option<String>) -> CowStr<'a> {
    let lower = dest.trim().to_ascii_lowercase();
    if lower.starts_with("http://") || lower.starts_with("https://") || lower.starts_with("mailto:") {
        return CowStr::from(dest.trim().to_owned());
    }
    if dest.starts_with('#') {
        return CowStr::from(dest.to_owned());
    }
    if !lower.contains(':')
        && let Some(url) = record_link(dest.split('#').next().unwrap_or_default())
    {
        return CowStr::from(url);
    }
    CowStr::from("#")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn none(_: &str) -> Option<String> {
        None
    }

    #[test]
    fn raw_html_is_shown_as_text_never_passed_through() {
        let html = render("Hello <script>alert(1)</script>\n\n<img src=x onerror=alert(1)>\n", &none);
        assert!(!html.contains("<script"), "{html}");
        assert!(!html.contains("<img"), "{html}");
        assert!(html.contains("&lt;script&gt;"), "{html}");
    }

    #[test]
    fn only_safe_link_targets_are_kept() {
        let html = render(
            "[a](javascript:alert(1)) [b](https://example.com/x) [c](data:text/html,x) ![d](https://e.example/i.png)",
            &none,
        );
        assert!(!html.contains("javascript:"), "{html}");
        assert!(!html.contains("data:"), "{html}");
        assert!(html.contains(r#"href="https://example.com/x""#), "{html}");
        assert!(!html.contains("<img"), "{html}");
        assert!(html.contains(r#"href="https://e.example/i.png""#), "{html}");
    }

    #[test]
    fn a_relative_link_to_a_record_goes_to_the_board() {
        let to = |p: &str| (p == "../projects/x.md").then(|| "/records/view?id=proj-x".to_owned());
        let html = render("[x](../projects/x.md) [y](../other.md)", &to);
        assert!(html.contains(r#"href="/records/view?id=proj-x""#), "{html}");
        assert!(html.contains(r##"href="#""##), "{html}");
    }
}
