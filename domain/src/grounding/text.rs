//! Words and numbers of a text, with byte spans: the one tokenizer that drafts, the Career
//! Context and record texts all go through, so a fact and its evidence are compared alike.

use std::ops::Range;

/// A word: letters and digits, with `. + # ' -` kept inside (`Node.js`, `C++`, `pipeline-lens`).
#[derive(Debug, Clone, PartialEq)]
pub struct Word<'a> {
    pub text: &'a str,
    pub span: Range<usize>,
    /// A sentence, list item or clause boundary (`, ; : ( ) [ ]` or a line break) lies between
    /// this word and the previous one.
    pub after_break: bool,
}

fn is_inner(c: char) -> bool {
    matches!(c, '.' | '+' | '#' | '\'' | '-' | '’' | ',')
}

/// The words of `text` in order. Hyphens inside a word split it when either side is a number
/// (`2021-2026`, `220-engineer`), so numbers stay numbers.
pub fn words(text: &str) -> Vec<Word<'_>> {
    let mut out = Vec::new();
    let mut chars = text.char_indices().peekable();
    let mut pending_break = true;
    while let Some((i, c)) = chars.next() {
        if c.is_alphanumeric() {
            let start = i;
            let mut end = i + c.len_utf8();
            // Whether the word so far is all ASCII digits, and all digits or commas: kept as it
            // grows, since looking at the whole word at each comma or dot made a word like
            // `1,000,000,...` quadratic (found in review: 256 KB took 26 s).
            let mut digits_only = c.is_ascii_digit();
            let mut digits_commas = digits_only;
            while let Some(&(j, d)) = chars.peek() {
                if d.is_alphanumeric() {
                    end = j + d.len_utf8();
                    chars.next();
                    digits_only &= d.is_ascii_digit();
                    digits_commas &= d.is_ascii_digit();
                } else if matches!(d, '+' | '#') && text[start..end].ends_with(|c: char| c.is_alphabetic() || c == '+')
                {
                    // `C++`, `C#`, but not `5+`.
                    end = j + d.len_utf8();
                    chars.next();
                    (digits_only, digits_commas) = (false, false);
                } else if is_inner(d) {
                    // Inner punctuation only when a letter or digit follows it directly.
                    let rest = &text[j + d.len_utf8()..];
                    let next_alnum = rest.chars().next().is_some_and(char::is_alphanumeric);
                    let prev = &text[start..end];
                    let keep = next_alnum
                        && match d {
                            ',' => {
                                // Thousands separator: digits, comma, exactly three digits.
                                digits_commas
                                    && rest.chars().take(3).all(|c| c.is_ascii_digit())
                                    && rest.chars().nth(3).is_none_or(|c| !c.is_ascii_digit())
                            }
                            '.' => !(digits_only ^ rest.starts_with(|c: char| c.is_ascii_digit())),
                            '-' => {
                                let num_before = prev.chars().last().is_some_and(|c| c.is_ascii_digit());
                                let num_after = rest.starts_with(|c: char| c.is_ascii_digit());
                                !num_before && !num_after
                            }
                            _ => true,
                        };
                    if !keep {
                        break;
                    }
                    end = j + d.len_utf8();
                    chars.next();
                    digits_only = false;
                    digits_commas &= d == ',';
                } else {
                    break;
                }
            }
            out.push(Word { text: &text[start..end], span: start..end, after_break: pending_break });
            pending_break = false;
        } else if matches!(c, ',' | ';' | ':' | '(' | ')' | '[' | ']' | '\n' | '|' | '!' | '?' | '"' | '.')
            || matches!(c, '–' | '—' | '-' | '/' | '•')
        {
            pending_break = true;
        }
    }
    out
}

/// Lower case for comparison.
pub fn fold(word: &str) -> String {
    word.chars().flat_map(char::to_lowercase).map(|c| if c == '’' { '\'' } else { c }).collect()
}

/// The comparison key of a content word: folded, and cut to six characters so that
/// `mentored`/`mentoring` and `engineer`/`engineers` meet.
pub fn stem(word: &str) -> String {
    let f = fold(word);
    let f = f.strip_suffix("'s").unwrap_or(&f);
    let f = if f.chars().count() > 3 { f.strip_suffix('s').unwrap_or(f) } else { f };
    f.chars().take(6).collect()
}

const STOPWORDS: &[&str] = &[
    "a", "an", "the", "and", "or", "of", "in", "on", "at", "to", "for", "with", "from", "by", "as", "is", "are", "was",
    "were", "be", "been", "being", "has", "have", "had", "that", "this", "these", "those", "it", "its", "their", "our",
    "my", "his", "her", "i", "we", "they", "he", "she", "who", "which", "what", "than", "then", "into", "over",
    "under", "about", "per", "also", "while", "so", "but", "not", "no", "all", "any", "each", "more", "most", "less",
    "up", "out", "via", "across", "after", "before", "since", "until", "through", "where", "when", "how", "one",
    "some", "such", "very", "just", "only", "own", "both", "can", "will", "would", "using", "used", "use", "new",
    "every", "other", "them", "there", "here", "year", "years", "team", "teams", "work", "worked", "working",
];

/// Whether a word carries meaning for relevance: not a stop word, not a number, 3+ characters.
pub fn is_content(word: &str) -> bool {
    let f = fold(word);
    f.chars().count() >= 3
        && !f.chars().all(|c| c.is_ascii_digit() || c == ',' || c == '.')
        && !STOPWORDS.contains(&f.as_str())
}

const NUMBER_WORDS: &[(&str, f64)] = &[
    ("two", 2.0),
    ("three", 3.0),
    ("four", 4.0),
    ("five", 5.0),
    ("six", 6.0),
    ("seven", 7.0),
    ("eight", 8.0),
    ("nine", 9.0),
    ("ten", 10.0),
    ("eleven", 11.0),
    ("twelve", 12.0),
    ("thirteen", 13.0),
    ("fourteen", 14.0),
    ("fifteen", 15.0),
    ("sixteen", 16.0),
    ("seventeen", 17.0),
    ("eighteen", 18.0),
    ("nineteen", 19.0),
    ("twenty", 20.0),
    ("thirty", 30.0),
    ("forty", 40.0),
    ("fifty", 50.0),
    ("sixty", 60.0),
    ("seventy", 70.0),
    ("eighty", 80.0),
    ("ninety", 90.0),
    ("hundred", 100.0),
    ("dozen", 12.0),
];

/// Words that join two numbers of one quantity (`from 41 to 12 minutes`).
const JOINERS: &[&str] = &["to", "and", "or", "of"];

/// Words that can follow a number without being its unit.
const NOT_UNITS: &[&str] = &["to", "and", "or", "of", "in", "on", "at", "the", "a", "for", "with", "by", "from"];

/// A number in a text: its value, the unit that follows it (`%`, or the next word stemmed),
/// and whether it reads as a calendar year.
#[derive(Debug, Clone, PartialEq)]
pub struct Number {
    pub value: f64,
    pub unit: Option<String>,
    pub year: bool,
    pub span: Range<usize>,
}

impl Number {
    /// Whether two numbers state the same quantity in the same unit (a missing unit matches).
    pub fn same_value(&self, other: &Number) -> bool {
        (self.value - other.value).abs() < 1e-9
    }
}

fn parse_number(w: &str) -> Option<(f64, bool)> {
    let f = fold(w);
    if let Some(&(_, v)) = NUMBER_WORDS.iter().find(|(n, _)| *n == f) {
        return Some((v, false));
    }
    let (digits, mult) = match f.strip_suffix('k') {
        Some(d) if d.chars().next().is_some_and(|c| c.is_ascii_digit()) => (d.to_owned(), 1000.0),
        _ => match f.strip_suffix('m') {
            Some(d) if d.chars().next().is_some_and(|c| c.is_ascii_digit()) && !d.is_empty() => (d.to_owned(), 1e6),
            _ => (f.clone(), 1.0),
        },
    };
    let digits = digits.trim_end_matches('+');
    if digits.is_empty() || !digits.chars().next().is_some_and(|c| c.is_ascii_digit()) {
        return None;
    }
    let plain: String = digits.chars().filter(|&c| c != ',').collect();
    if !plain.chars().all(|c| c.is_ascii_digit() || c == '.') {
        return None;
    }
    let value: f64 = plain.parse().ok()?;
    let year = mult == 1.0 && !digits.contains([',', '.']) && digits.len() == 4 && (1950.0..=2100.0).contains(&value);
    Some((value * mult, year))
}

/// The numbers among `words` (digits, `1,300`, `2.5`, `1.3k`, and number words from two up).
/// `text` is the text the words were taken from, to see a `%` right after a number.
pub fn numbers(text: &str, words: &[Word<'_>]) -> Vec<Number> {
    let mut out: Vec<Number> = Vec::new();
    for (i, w) in words.iter().enumerate() {
        let Some((value, year)) = parse_number(w.text) else { continue };
        let after = &text[w.span.end..];
        let percent = after.starts_with('%') || after.trim_start().starts_with("per cent");
        let next = words.get(i + 1).filter(|n| !n.after_break);
        let unit = if percent {
            Some("%".to_owned())
        } else {
            match next {
                Some(n) if fold(n.text) == "percent" => Some("%".to_owned()),
                Some(n) if JOINERS.contains(&fold(n.text).as_str()) => {
                    // `41 to 12 minutes`: the unit of the number after the joiner.
                    match words.get(i + 2) {
                        Some(m) if parse_number(m.text).is_some() => {
                            let after_m = &text[m.span.end..];
                            if after_m.starts_with('%') {
                                Some("%".to_owned())
                            } else {
                                words.get(i + 3).filter(|u| !u.after_break).and_then(|u| unit_of(u.text))
                            }
                        }
                        _ => None,
                    }
                }
                Some(n) => unit_of(n.text),
                None => None,
            }
        };
        let year = year && unit.as_deref() != Some("%");
        out.push(Number { value, unit: if year { None } else { unit }, year, span: w.span.clone() });
    }
    out
}

/// How many content words on each side of a number say what it counts, looked for at most
/// [`NEAR_REACH`] words away: `from 41 to 12 minutes` leaves few content words within four.
const NEAR: usize = 4;
const NEAR_REACH: usize = 10;

/// The index of the word that starts at byte `at`: words are in text order.
pub fn word_at(ws: &[Word<'_>], at: usize) -> Option<usize> {
    ws.binary_search_by_key(&at, |w| w.span.start).ok()
}

/// The content stems of the [`NEAR`] nearest content words on each side of the number whose
/// word starts at byte `at` of `text`, in its sentence (across line breaks: a paragraph wraps;
/// only words from byte `from` on), other than numbers and the number's `unit`: what the
/// number is said of. `led a team of 12 engineers at Quayside` and `tooling used daily by 140
/// engineers` count different things (none in common); `Mentored six engineers` and `Mentored
/// four engineers` the same.
pub fn stems_near(
    text: &str,
    ws: &[Word<'_>],
    at: usize,
    unit: Option<&str>,
    from: usize,
) -> std::collections::HashSet<String> {
    let Some(i) = word_at(ws, at) else { return Default::default() };
    let stem_of = |j: usize| -> Option<String> {
        let w = ws[j].text;
        let s = (ws[j].span.start >= from && is_content(w) && parse_number(w).is_none()).then(|| stem(w))?;
        (Some(s.as_str()) != unit).then_some(s)
    };
    // A sentence ends between two words at `.`, `;`, `!` or `?` (found in review: `Cache hit
    // rate reached 88%; median pipeline time` made the 88% about time).
    let ends = |a: usize, b: usize| text[ws[a].span.end..ws[b].span.start].contains(['.', ';', '!', '?']);
    let before =
        (i.saturating_sub(NEAR_REACH)..i).rev().take_while(|&j| !ends(j, j + 1)).filter_map(stem_of).take(NEAR);
    let after =
        (i + 1..(i + 1 + NEAR_REACH).min(ws.len())).take_while(|&j| !ends(j - 1, j)).filter_map(stem_of).take(NEAR);
    before.chain(after).collect()
}

/// The bytes the words within [`NEAR`] words of the number at byte `at` cover, from byte
/// `from` on.
pub fn near_span(ws: &[Word<'_>], at: usize, from: usize) -> Option<Range<usize>> {
    let i = word_at(ws, at)?;
    let lo = (i.saturating_sub(NEAR)..=i).find(|&j| ws[j].span.start >= from)?;
    let hi = (i + NEAR).min(ws.len() - 1);
    Some(ws[lo].span.start..ws[hi].span.end)
}

fn unit_of(word: &str) -> Option<String> {
    let f = fold(word);
    if NOT_UNITS.contains(&f.as_str())
        || parse_number(word).is_some()
        || !f.chars().next().is_some_and(char::is_alphabetic)
    {
        return None;
    }
    Some(stem(&f))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(s: &str) -> Vec<&str> {
        words(s).into_iter().map(|w| w.text).collect()
    }

    #[test]
    fn words_keep_names_and_split_number_ranges() {
        assert_eq!(
            texts("Node.js, C++ and pipeline-lens (2021-2026)."),
            ["Node.js", "C++", "and", "pipeline-lens", "2021", "2026"]
        );
        assert_eq!(
            texts("a 220-engineer monorepo; 1,300 stars, 2.5x"),
            ["a", "220", "engineer", "monorepo", "1,300", "stars", "2.5x"]
        );
        assert_eq!(texts("one, two"), ["one", "two"]);
    }

    #[test]
    fn numbers_carry_units_and_years() {
        let t = "from 41 to 12 minutes, 88% hit rate, four engineers in 2021, 1,900 reruns";
        let n = numbers(t, &words(t));
        let got: Vec<(f64, Option<&str>, bool)> = n.iter().map(|n| (n.value, n.unit.as_deref(), n.year)).collect();
        assert_eq!(
            got,
            [
                (41.0, Some("minute"), false),
                (12.0, Some("minute"), false),
                (88.0, Some("%"), false),
                (4.0, Some("engine"), false),
                (2021.0, None, true),
                (1900.0, Some("rerun"), false)
            ]
        );
    }
}
