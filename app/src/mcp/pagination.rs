//! Cursor pagination for the MCP `*/list` methods.
//!
//! A cursor is an opaque string to the client. Ours encodes the offset of the next page as
//! `o:<offset>` so that a cursor from one list cannot be mistaken for a number the client made
//! up, and so that a forged cursor is refused instead of silently restarting the list. The
//! skills extension's lists prefix it with what they list (`skills/list#o:100`,
//! `skill://a/refs#o:100`), so a cursor of one is refused by another (found in review: a
//! `skills/list` cursor was taken by a directory read). A cursor past the end of a list that
//! shrank between two pages gets an empty last page.

use std::ops::Range;

use serde_json::{Map, Value};

use super::jsonrpc::RpcError;

/// The most items one page of a `*/list` answer carries.
pub const PAGE_SIZE: usize = 100;

/// A page of a list: which items to send and the cursor for the rest, if any.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page {
    pub range: Range<usize>,
    pub next_cursor: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CursorError {
    #[error("invalid cursor {0:?}: pass back the nextCursor of a previous page of this list, or omit it")]
    Malformed(String),
}

/// Chooses the page of a list of `len` items that `cursor` asks for, `page_size` at most. With a
/// `scope`, the list's cursors are `<scope>#o:<offset>`, and a cursor of another list is
/// malformed; without one, `o:<offset>`.
pub fn page_in(scope: Option<&str>, len: usize, cursor: Option<&str>, page_size: usize) -> Result<Page, CursorError> {
    let page_size = page_size.max(1);
    let start = match cursor {
        None => 0,
        Some(c) => {
            let own = match scope {
                None => Some(c),
                Some(s) => c.strip_prefix(s).and_then(|rest| rest.strip_prefix('#')),
            };
            let offset = own
                .and_then(|c| c.strip_prefix("o:"))
                .filter(|digits| !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
                .and_then(|digits| digits.parse::<usize>().ok())
                .ok_or_else(|| CursorError::Malformed(c.to_owned()))?;
            // A cursor we hand out is a whole number of pages in (found in review: `o:1`
            // skipped an item and `o:0` was taken, though we issue neither).
            if offset == 0 || offset % page_size != 0 {
                return Err(CursorError::Malformed(c.to_owned()));
            }
            // Past the end of a list that shrank between two pages: an empty last page, as the
            // list now ends before it (found in review: -32602 "past the end" mid-pagination).
            offset.min(len)
        }
    };
    let end = start.saturating_add(page_size).min(len);
    let next_cursor = (end < len).then(|| match scope {
        None => format!("o:{end}"),
        Some(s) => format!("{s}#o:{end}"),
    });
    Ok(Page { range: start..end, next_cursor })
}

/// One page of a list of `len` items under `key`; only the page's items are built.
pub fn lazy_page(
    cursor: Option<&str>,
    key: &str,
    len: usize,
    item: impl Fn(usize) -> Value,
) -> Result<Value, RpcError> {
    lazy_page_in(None, cursor, key, len, item)
}

/// [`lazy_page`] of the list `scope` names (see [`page_in`]).
pub fn lazy_page_in(
    scope: Option<&str>,
    cursor: Option<&str>,
    key: &str,
    len: usize,
    item: impl Fn(usize) -> Value,
) -> Result<Value, RpcError> {
    let page = page_in(scope, len, cursor, PAGE_SIZE).map_err(RpcError::invalid_params)?;
    let mut result = Map::new();
    result.insert(key.into(), Value::Array(page.range.clone().map(item).collect()));
    if let Some(next) = page.next_cursor {
        result.insert("nextCursor".into(), next.into());
    }
    Ok(Value::Object(result))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn empty_list_is_one_empty_page() {
        assert_eq!(page_in(None, 0, None, 100), Ok(Page { range: 0..0, next_cursor: None }));
    }

    #[test]
    fn pages_follow_each_other() {
        let first = page_in(None, 250, None, 100).unwrap();
        assert_eq!(first.range, 0..100);
        let second = page_in(None, 250, first.next_cursor.as_deref(), 100).unwrap();
        assert_eq!(second.range, 100..200);
        let third = page_in(None, 250, second.next_cursor.as_deref(), 100).unwrap();
        assert_eq!(third, Page { range: 200..250, next_cursor: None });
    }

    #[test]
    fn forged_cursors_are_refused() {
        for bad in ["", "12", "o:", "o:-1", "o:1x", "o: 1", "o:99999999999999999999999", "o:0", "o:1", "o:7"] {
            assert!(matches!(page_in(None, 10, Some(bad), 5), Err(CursorError::Malformed(_))), "{bad:?}");
        }
    }

    /// Found in review: a list that shrank between two pages answered -32602 "past the end".
    #[test]
    fn a_cursor_past_the_end_of_a_shrunk_list_is_an_empty_last_page() {
        assert_eq!(page_in(None, 10, Some("o:15"), 5), Ok(Page { range: 10..10, next_cursor: None }));
        assert_eq!(page_in(Some("l"), 0, Some("l#o:100"), 100), Ok(Page { range: 0..0, next_cursor: None }));
    }

    /// Found in review: a `skills/list` cursor was taken by a directory read.
    #[test]
    fn a_scoped_cursor_is_refused_by_another_list() {
        let first = page_in(Some("skills/list"), 250, None, 100).unwrap();
        assert_eq!(first.next_cursor.as_deref(), Some("skills/list#o:100"));
        assert_eq!(page_in(Some("skills/list"), 250, first.next_cursor.as_deref(), 100).unwrap().range, 100..200);
        for other in [Some("skill://a"), None] {
            let e = page_in(other, 250, first.next_cursor.as_deref(), 100);
            assert!(matches!(e, Err(CursorError::Malformed(_))), "{other:?}");
        }
        assert!(matches!(page_in(Some("skill://a"), 250, Some("o:100"), 100), Err(CursorError::Malformed(_))));
        assert!(page_in(Some("skill://a"), 250, Some("skill://a/b#o:100"), 100).is_err());
    }

    proptest! {
        // Following nextCursor from the start visits every item exactly once, in order.
        #[test]
        fn following_cursors_covers_the_list(len in 0usize..1000, size in 1usize..200) {
            let mut seen = 0;
            let mut cursor: Option<String> = None;
            loop {
                let p = page_in(None, len, cursor.as_deref(), size).unwrap();
                prop_assert_eq!(p.range.start, seen);
                prop_assert!(p.range.len() <= size);
                seen = p.range.end;
                match p.next_cursor {
                    Some(c) => cursor = Some(c),
                    None => break,
                }
            }
            prop_assert_eq!(seen, len);
        }
    }
}
