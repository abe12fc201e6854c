//! Markdown links `[text](target)` found in linear time.
//!
//! The format states links as regexes (`!?\[[^\]]*\]\(([^)]+)\)` and its relatives). Tried at
//! every `[`, "the next `]`" and "the next `)`" would be searched again from each start, which is
//! quadratic on a record of one million `[`. Starts only move forward, and so do the closing
//! brackets they find, so each search resumes where the previous one stopped ([`NextByte`]):
//! every byte is looked at a bounded number of times. Property tests prove the scanners equal
//! the regexes.

use std::borrow::Cow;

/// The next position of one byte at or after a point, for points that never go back.
pub(crate) struct NextByte<'a> {
    hay: &'a [u8],
    byte: u8,
    /// The first `byte` at or after the previous point (`hay.len()` for none), once searched.
    next: Option<usize>,
}

impl<'a> NextByte<'a> {
    pub(crate) fn new(hay: &'a [u8], byte: u8) -> Self {
        NextByte { hay, byte, next: None }
    }

    /// The first `byte` at or after `from`; `from` must not be less than in the previous call.
    /// A point at or before the previous answer has the same answer (nothing lies between), so
    /// only a point past it searches, and only from there.
    pub(crate) fn at_or_after(&mut self, from: usize) -> Option<usize> {
        let len = self.hay.len();
        let next = match self.next {
            Some(next) if from <= next => next,
            _ => {
                let start = from.min(len);
                let found = memchr::memchr(self.byte, &self.hay[start..]).map_or(len, |i| start + i);
                crate::steps::add(if found < len { found - start + 1 } else { len - start });
                self.next = Some(found);
                found
            }
        };
        (next < len).then_some(next)
    }
}

/// The closing brackets of the text, looked up as the starts move forward.
pub(crate) struct Closers<'a> {
    bytes: &'a [u8],
    bracket: NextByte<'a>,
    paren: NextByte<'a>,
}

impl<'a> Closers<'a> {
    pub(crate) fn new(s: &'a str) -> Self {
        let bytes = s.as_bytes();
        Closers { bytes, bracket: NextByte::new(bytes, b']'), paren: NextByte::new(bytes, b')') }
    }

    /// At `open` (a `[`), `\[[^\]]{min_text,}\]\([^)]+\)`: the index of the closing `]` and of the
    /// closing `)`. Calls must come with non-decreasing `open`.
    pub(crate) fn link_at(&mut self, open: usize, min_text: usize) -> Option<(usize, usize)> {
        let close = self.bracket.at_or_after(open + 1)?;
        if close - (open + 1) < min_text || self.bytes.get(close + 1) != Some(&b'(') {
            return None;
        }
        let paren = self.paren.at_or_after(close + 2)?;
        (paren > close + 2).then_some((close, paren))
    }
}

/// Every `!?\[[^\]]*\]\(([^)]+)\)` of the text, leftmost first and not overlapping: the target.
pub fn targets(s: &str) -> Vec<&str> {
    let mut closers = Closers::new(s);
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(open) = memchr::memchr(b'[', &s.as_bytes()[i..]).map(|a| a + i) {
        crate::steps::add(open - i + 1);
        match closers.link_at(open, 0) {
            Some((close, paren)) => {
                out.push(&s[close + 2..paren]);
                i = paren + 1;
            }
            None => i = open + 1,
        }
    }
    out
}

/// `![alt](target)` -> one space; then `[text](target)` -> `text`, as the format's two regexes
/// `!\[[^\]]*\]\([^)]+\)` and `\[([^\]]+)\]\([^)]+\)` applied one after the other.
/// Text without a `[` is returned as it is (most record bodies have no link).
pub fn strip(s: &str) -> Cow<'_, str> {
    if memchr::memchr(b'[', s.as_bytes()).is_none() {
        return Cow::Borrowed(s);
    }
    let no_images = strip_images(s);
    let s = no_images.as_ref();
    let mut out = String::with_capacity(s.len());
    let mut closers = Closers::new(s);
    let mut i = 0;
    while let Some(a) = memchr::memchr(b'[', &s.as_bytes()[i..]).map(|a| a + i) {
        crate::steps::add(a - i + 1);
        match closers.link_at(a, 1) {
            Some((close, paren)) => {
                out.push_str(&s[i..a]);
                out.push_str(&s[a + 1..close]);
                i = paren + 1;
            }
            None => {
                out.push_str(&s[i..a + 1]);
                i = a + 1;
            }
        }
    }
    out.push_str(&s[i..]);
    Cow::Owned(out)
}

/// `![alt](target)` -> one space (text without `![` is returned as it is).
fn strip_images(s: &str) -> Cow<'_, str> {
    let Some(first) = memchr::memmem::find(s.as_bytes(), b"![") else { return Cow::Borrowed(s) };
    let mut no_images = String::with_capacity(s.len());
    let mut closers = Closers::new(s);
    let mut i = 0;
    let mut next = Some(first);
    while let Some(a) = next {
        crate::steps::add(a - i + 2);
        match closers.link_at(a + 1, 0) {
            Some((_, paren)) => {
                no_images.push_str(&s[i..a]);
                no_images.push(' ');
                i = paren + 1;
            }
            None => {
                no_images.push_str(&s[i..a + 1]);
                i = a + 1;
            }
        }
        next = memchr::memmem::find(&s.as_bytes()[i..], b"![").map(|a| a + i);
    }
    no_images.push_str(&s[i..]);
    Cow::Owned(no_images)
}

#[cfg(test)]
mod tests {
    use super::*;
    use regex::Regex;
    use std::sync::LazyLock;

    static LINK: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"!?\[[^\]]*\]\(([^)]+)\)").unwrap());
    static IMAGE: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"!\[[^\]]*\]\([^)]+\)").unwrap());
    static TEXT_LINK: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\[([^\]]+)\]\([^)]+\)").unwrap());

    fn strip_by_regex(s: &str) -> String {
        let s = IMAGE.replace_all(s, " ");
        TEXT_LINK.replace_all(&s, "$1").into_owned()
    }

    /// Steps per byte on the largest input, after checking that quadrupling the input at most
    /// quadruples the work (plus a little).
    fn steps_per_byte(unit: &str, f: impl Fn(&str)) -> f64 {
        let measure = |n: usize| {
            let s = unit.repeat(n / unit.len());
            let ((), steps) = crate::steps::count(|| f(&s));
            (s.len(), steps)
        };
        let (small_len, small) = measure(16 * 1024);
        let (large_len, large) = measure(64 * 1024);
        let growth = large as f64 / small.max(1) as f64;
        let size_growth = large_len as f64 / small_len as f64;
        assert!(growth <= size_growth * 1.1, "{unit:?}: work grew {growth:.1}x for {size_growth:.1}x the input");
        large as f64 / large_len as f64
    }

    /// Regression: one million `[` (or `![`, `[a](`...) took 50 s to index, each start
    /// searching to the end of the text again for its `]` or `)`.
    #[test]
    fn the_scanners_look_at_each_byte_a_bounded_number_of_times() {
        for unit in ["[", "![", "[a](", "[](", "![](", "]", "[]", "[a]", "([", "[a](b", "![a](b)x", "a"] {
            let strip_cost = steps_per_byte(unit, |s| {
                strip(s);
            });
            let target_cost = steps_per_byte(unit, |s| {
                targets(s);
            });
            assert!(strip_cost <= 8.0, "{unit:?}: strip looked at each byte {strip_cost:.1} times");
            assert!(target_cost <= 4.0, "{unit:?}: targets looked at each byte {target_cost:.1} times");
        }
    }

    #[test]
    fn links_and_images() {
        assert_eq!(targets("a [x](b.md) ![i]( p.png ) [](c) [d]() [[e](f)"), ["b.md", " p.png ", "c", "f"]);
        assert_eq!(strip("See [the docs](x.md) and ![alt](i.png)."), "See the docs and  .");
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 1000, ..Default::default() })]
        #[test]
        fn targets_equal_the_regex(s in "[a!\\[\\]() \n]{0,60}") {
            let expected: Vec<&str> = LINK.captures_iter(&s).map(|c| c.get(1).unwrap().as_str()).collect();
            proptest::prop_assert_eq!(targets(&s), expected);
        }

        #[test]
        fn strip_equals_the_regexes(s in "[a!\\[\\]() \n]{0,60}") {
            proptest::prop_assert_eq!(strip(&s), strip_by_regex(&s));
        }

        /// Long runs of the characters that made the old scanner quadratic.
        #[test]
        fn strip_and_targets_equal_the_regexes_on_bracket_runs(
            parts in proptest::collection::vec(("[\\[\\]()!a]", 1usize..40), 0..12)
        ) {
            let s: String = parts.iter().map(|(c, n)| c.repeat(*n)).collect();
            let expected: Vec<&str> = LINK.captures_iter(&s).map(|c| c.get(1).unwrap().as_str()).collect();
            proptest::prop_assert_eq!(targets(&s), expected);
            proptest::prop_assert_eq!(strip(&s), strip_by_regex(&s));
        }
    }
}
