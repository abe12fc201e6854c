//! Cursor pagination for the MCP `*/list` methods.
//!
//! A cursor is an opaque string to the client. Ours encodes the offset of the next page as
//! `o:<offset>` so that a cursor from one list cannot be mistaken for a number the client made
//! up, and so that a stale or forged cursor is refused instead of silently restarting the list.

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
    #[error("invalid cursor {0:?}: pass back the nextCursor of a previous page, or omit it")]
    Malformed(String),
    #[error("cursor {cursor:?} is past the end of the list ({len} items)")]
    OutOfRange { cursor: String, len: usize },
}

/// Chooses the page of a list of `len` items that `cursor` asks for, `page_size` at most.
pub fn page(len: usize, cursor: Option<&str>, page_size: usize) -> Result<Page, CursorError> {
    let page_size = page_size.max(1);
    let start = match cursor {
        None => 0,
        Some(c) => {
            let offset = c
                .strip_prefix("o:")
                .filter(|digits| !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
                .and_then(|digits| digits.parse::<usize>().ok())
                .ok_or_else(|| CursorError::Malformed(c.to_owned()))?;
            // A cursor we hand out is a whole number of pages in (found in review: `o:1`
            // skipped an item and `o:0` was taken, though we issue neither).
            if offset == 0 || offset % page_size != 0 {
                return Err(CursorError::Malformed(c.to_owned()));
            }
            // It points at an item; `len` itself is accepted so a list that shrank between two
            // pages ends cleanly instead of erroring.
            if offset > len {
                return Err(CursorError::OutOfRange { cursor: c.to_owned(), len });
            }
            offset
        }
    };
    let end = start.saturating_add(page_size).min(len);
    let next_cursor = (end < len).then(|| format!("o:{end}"));
    Ok(Page { range: start..end, next_cursor })
}

/// One page of a list of `len` items under `key`; only the page's items are built.
pub fn lazy_page(
    cursor: Option<&str>,
    key: &str,
    len: usize,
    item: impl Fn(usize) -> Value,
) -> Result<Value, RpcError> {
    let page = page(len, cursor, PAGE_SIZE).map_err(RpcError::invalid_params)?;
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
        assert_eq!(page(0, None, 100), Ok(Page { range: 0..0, next_cursor: None }));
    }

    #[test]
    fn pages_follow_each_other() {
        let first = page(250, None, 100).unwrap();
        assert_eq!(first.range, 0..100);
        let second = page(250, first.next_cursor.as_deref(), 100).unwrap();
        assert_eq!(second.range, 100..200);
        let third = page(250, second.next_cursor.as_deref(), 100).unwrap();
        assert_eq!(third, Page { range: 200..250, next_cursor: None });
    }

    #[test]
    fn forged_cursors_are_refused() {
        for bad in ["", "12", "o:", "o:-1", "o:1x", "o: 1", "o:99999999999999999999999", "o:0", "o:1", "o:7"] {
            assert!(matches!(page(10, Some(bad), 5), Err(CursorError::Malformed(_))), "{bad:?}");
        }
        assert!(matches!(page(10, Some("o:15"), 5), Err(CursorError::OutOfRange { .. })));
    }

    proptest! {
        // Following nextCursor from the start visits every item exactly once, in order.
        #[test]
        fn following_cursors_covers_the_list(len in 0usize..1000, size in 1usize..200) {
            let mut seen = 0;
            let mut cursor: Option<String> = None;
            loop {
                let p = page(len, cursor.as_deref(), size).unwrap();
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
