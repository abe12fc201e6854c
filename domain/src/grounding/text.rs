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
            || matches!(c, '–' | '—' | '-' | '/' | '•' | '·')
        {
            pending_break = true;
        }
    }
    out
}

/// Lower case for comparison.
pub fn fold(word: &str) -> String {
    // Most words are ASCII: no Unicode case tables for them (a fifth of a long check's time).
    if word.is_ascii() {
        return word.to_ascii_lowercase();
    }
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

/// A coarser key than [`stem`], for a requirement's words against the files: the word without
/// its longest inflectional or derivational suffix that leaves five letters, cut to six, so
/// that `drives`/`driver`, `medicine`/`medical`, `speaking`/`speaker` and `publish`/`published`
/// meet; five letters keep `care` from `career` and `intern` from `interview`.
pub fn root(word: &str) -> String {
    const SUFFIXES: &[&str] = &[
        "ations", "ation", "ments", "ment", "ings", "ing", "ical", "ions", "ion", "ers", "er", "ies", "es", "ed", "al",
        "ic", "ine", "ly", "e", "s", "r", "d", "y",
    ];
    let f = fold(word);
    let f = f.strip_suffix("'s").unwrap_or(&f);
    let cut = SUFFIXES
        .iter()
        .filter_map(|s| f.strip_suffix(s))
        .filter(|r| r.chars().count() >= 5)
        .min_by_key(|r| r.len())
        .unwrap_or(f);
    // `manage`, `manager`, `management`: a final `e` left by the cut goes too.
    let cut = cut.strip_suffix('e').filter(|r| r.chars().count() >= 5).unwrap_or(cut);
    cut.chars().take(6).collect()
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

/// A number in a text: its value, the unit it is written with (`%`, a currency, one of
/// [`UNITS`] glued to it or after it, or else the next word stemmed),
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

/// Whether a word is a number (`5`, `1,300`, `five`, `80ms`): a quantity, never a term to look
/// up by its letters.
pub fn is_number(w: &str) -> bool {
    parse_glued(w).is_some()
}

fn parse_number(w: &str) -> Option<(f64, bool)> {
    parse_glued(w).map(|(value, year, _)| (value, year))
}

/// Units written after a number, each with the forms it goes by (folded): `80ms`, `80 ms` and
/// `80 milliseconds` are one quantity, `3x` and `three times` another (found in review: `Cut
/// p99 latency to 60ms` passed as supported against the file's `80ms`, since neither was read
/// as a number).
const UNITS: &[(&str, &[&str])] = &[
    ("x", &["x", "times", "fold"]),
    ("ms", &["ms", "msec", "msecs", "millisecond", "milliseconds"]),
    ("s", &["s", "sec", "secs", "second", "seconds"]),
    ("min", &["min", "mins", "minute", "minutes"]),
    ("h", &["h", "hr", "hrs", "hour", "hours"]),
    ("day", &["d", "day", "days"]),
    ("week", &["wk", "wks", "week", "weeks"]),
    ("month", &["mo", "mos", "month", "months"]),
    ("year", &["y", "yr", "yrs", "year", "years"]),
    ("kb", &["kb"]),
    ("mb", &["mb"]),
    ("gb", &["gb"]),
    ("tb", &["tb"]),
    ("km", &["km", "kilometre", "kilometres", "kilometer", "kilometers"]),
    ("kg", &["kg", "kilogram", "kilograms"]),
    ("kw", &["kw", "kilowatt", "kilowatts"]),
    ("mw", &["mw", "megawatt", "megawatts"]),
    ("kwh", &["kwh"]),
    ("pb", &["pb"]),
];

/// The unit a folded word names, when it is one of [`UNITS`].
/// Whether `unit` (as [`unit_of`] gives it) is a measure (`kW`, `ms`, a currency) rather than
/// the noun a count counts (`teacher`).
pub fn is_measure(unit: &str) -> bool {
    UNITS.iter().any(|(u, _)| *u == unit) || currency_word(unit).is_some() || unit.chars().count() == 1
}

fn known_unit(folded: &str) -> Option<&'static str> {
    UNITS.iter().find(|(_, forms)| forms.contains(&folded)).map(|(unit, _)| *unit)
}

/// A number word or a number written in digits, with a unit glued to it (`80ms`, `3x`,
/// `45min`): its value, whether it reads as a calendar year, and the unit. `1.3k` and `2.4m`
/// are thousands and millions; `1st`, `v2` or `3d-printed` are not numbers.
fn parse_glued(w: &str) -> Option<(f64, bool, Option<&'static str>)> {
    let f = fold(w);
    if let Some(&(_, v)) = NUMBER_WORDS.iter().find(|(n, _)| *n == f) {
        return Some((v, false, None));
    }
    if !f.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    let split = f.find(|c: char| !(c.is_ascii_digit() || c == ',' || c == '.' || c == '+')).unwrap_or(f.len());
    let (digits, suffix) = f.split_at(split);
    let (mult, unit) = match suffix {
        "" => (1.0, None),
        "k" => (1e3, None),
        "m" | "mn" => (1e6, None),
        "bn" => (1e9, None),
        // One letter glued to a number is a unit only as `x` or `h`: `1990s`, `90s` and `3D`
        // are a decade and a dimension, not seconds and days (found in review).
        "s" | "d" | "y" => return None,
        _ => (1.0, Some(known_unit(suffix)?)),
    };
    let digits = digits.trim_end_matches('+');
    if digits.is_empty() || digits.ends_with([',', '.']) {
        return None;
    }
    let plain: String = digits.chars().filter(|&c| c != ',').collect();
    let value: f64 = plain.parse().ok()?;
    let year = mult == 1.0
        && unit.is_none()
        && !digits.contains([',', '.'])
        && digits.len() == 4
        && (1950.0..=2100.0).contains(&value);
    Some((value * mult, year, unit))
}

/// Words after a number that multiply it (`$2.4 million` is `$2.4M`).
const MULTIPLIERS: &[(&str, f64)] = &[("thousand", 1e3), ("million", 1e6), ("billion", 1e9)];

/// The currency a number is written with (`$2.4M`, `£1.1M`, `€300k`, `EUR 310,000`): the
/// symbol just before it, or a currency code as the word before it.
fn currency_before(text: &str, at: usize) -> Option<&'static str> {
    let c = text[..at].chars().next_back()?;
    if let Some(s) = ["$", "£", "€", "¥", "₹"].into_iter().find(|s| s.starts_with(c)) {
        return Some(s);
    }
    let before = text[..at].trim_end();
    let start =
        before.char_indices().rev().find(|(_, c)| !c.is_ascii_alphabetic()).map_or(0, |(i, c)| i + c.len_utf8());
    let word = &before[start..];
    currency_word(word)
}

/// The symbol of a currency written as a word: a code (`EUR`, `USD`) or a name (`euros`).
fn currency_word(word: &str) -> Option<&'static str> {
    Some(match fold(word).as_str() {
        "eur" | "euro" | "euros" => "€",
        "usd" | "dollar" | "dollars" => "$",
        "gbp" | "pound" | "pounds" => "£",
        "jpy" | "yen" => "¥",
        "inr" | "rupees" => "₹",
        _ => return None,
    })
}

/// The numbers among `words` (digits, `1,300`, `2.5`, `1.3k`, and number words from two up).
/// `text` is the text the words were taken from, to see a `%` right after a number.
pub fn numbers(text: &str, words: &[Word<'_>]) -> Vec<Number> {
    let mut out: Vec<Number> = Vec::new();
    for (i, w) in words.iter().enumerate() {
        let Some((mut value, year, glued)) = parse_glued(w.text) else { continue };
        let after = &text[w.span.end..];
        let percent = after.starts_with('%') || after.trim_start().starts_with("per cent");
        let mut next_at = i + 1;
        if glued.is_none()
            && let Some(n) = words.get(next_at).filter(|n| !n.after_break)
            && let Some(&(_, m)) = MULTIPLIERS.iter().find(|(name, _)| fold(n.text) == *name)
        {
            value *= m;
            next_at += 1;
        }
        // `8-12 TB/day`: a range's first number takes the second's unit, as after a joiner.
        let dash = words.get(next_at).filter(|n| {
            matches!(text[w.span.end..n.span.start].trim(), "-" | "–" | "—") && parse_glued(n.text).is_some()
        });
        // `18-bed ICU`: a word joined by a hyphen is what the number counts, as the size of
        // the thing after it; its unit is marked (`-bed`), so that only another such size is
        // another value of it (`220-engineer monorepo` is no team of 12 engineers).
        let hyphened = words
            .get(next_at)
            .is_some_and(|n| n.after_break && text[w.span.end..n.span.start] == *"-" && parse_glued(n.text).is_none());
        let next = words.get(next_at).filter(|n| !n.after_break || hyphened);
        let unit = if percent {
            Some("%".to_owned())
        } else if let Some(u) = glued {
            Some(u.to_owned())
        } else if let Some(c) = currency_before(text, w.span.start) {
            Some(c.to_owned())
        } else {
            match next.or(dash) {
                Some(n) if fold(n.text) == "percent" => Some("%".to_owned()),
                Some(n) if dash.is_some() || JOINERS.contains(&fold(n.text).as_str()) => {
                    // `41 to 12 minutes`: the unit of the number after the joiner.
                    let second = if dash.is_some() { next_at } else { next_at + 1 };
                    match words.get(second) {
                        Some(m) => match parse_glued(m.text) {
                            Some((_, _, Some(u))) => Some(u.to_owned()),
                            Some(_) if text[m.span.end..].starts_with('%') => Some("%".to_owned()),
                            Some(_) => words.get(second + 1).filter(|u| !u.after_break).and_then(|u| unit_of(u.text)),
                            None => None,
                        },
                        None => None,
                    }
                }
                // `1.3k GitHub stars`, `3 million HL7 messages`: a name between a number and
                // what it counts is passed over, so that `1,300 stars` meets it.
                Some(n) if n.text.starts_with(|c: char| c.is_uppercase()) => match words.get(next_at + 1) {
                    Some(m) if !m.after_break && m.text.starts_with(|c: char| c.is_lowercase()) => {
                        unit_of(m.text).or_else(|| unit_of(n.text))
                    }
                    _ => unit_of(n.text),
                },
                Some(n) => unit_of(n.text),
                None => None,
            }
        };
        let unit = if hyphened { unit.map(|u| format!("-{u}")) } else { unit };
        let year = year && unit.as_deref() != Some("%") && currency_before(text, w.span.start).is_none();
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
        (unit_of(w).as_deref() != unit).then_some(s)
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

const MONTHS: [&str; 12] = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];

/// What the number whose word starts at byte `at` counts: up to three content words after it,
/// in its clause, passing over `and`/`or` (`six trainee and early-career teachers`: trainee,
/// early-career, teachers).
pub fn count_nouns(text: &str, ws: &[Word<'_>], at: usize) -> Vec<String> {
    let Some(i) = word_at(ws, at) else { return Vec::new() };
    let mut out = Vec::new();
    for w in ws.iter().skip(i + 1).take(6) {
        if w.after_break || text[..w.span.start].ends_with(['.', ';']) {
            break;
        }
        let f = fold(w.text);
        if matches!(f.as_str(), "and" | "or") {
            continue;
        }
        if !is_content(w.text) || parse_number(w.text).is_some() {
            break;
        }
        out.push(stem(&f));
        if out.len() == 3 {
            break;
        }
    }
    out
}

/// The month (1-12) a folded word names: the full name, its first three letters, or `sept`.
pub fn month_of(folded: &str) -> Option<u8> {
    let n = MONTHS.iter().position(|m| {
        *m == folded || (folded.len() == 3 && m.starts_with(folded)) || (folded == "sept" && *m == "september")
    })?;
    u8::try_from(n + 1).ok()
}

/// The month named by the word just before the number at byte `at` (`June 2021`, `Sept
/// 2021`, `Mar. 2021`). `may` alone is a verb as often as a month; only `May 2021`, the word
/// right before a year, reads as one here.
pub fn month_before(text: &str, at: usize) -> Option<u8> {
    month_word_before(text, at).map(|(_, m)| m)
}

/// [`month_before`], with the byte where the month's word starts. Only the text just before
/// the number is read: no tokenizing of the whole text per number.
pub fn month_word_before(text: &str, at: usize) -> Option<(usize, u8)> {
    let before = text.get(..at)?.trim_end().trim_end_matches('.');
    let start = before.char_indices().rev().find(|(_, c)| !c.is_alphabetic()).map_or(0, |(i, c)| i + c.len_utf8());
    let word = &before[start..];
    (3..=9).contains(&word.len()).then(|| month_of(&fold(word)).map(|m| (start, m))).flatten()
}

/// How many words before a number say what it is of, in a list of numbers.
const LEAD: usize = 2;

/// The stems of the [`LEAD`] words before the number whose word starts at byte `at`, in its
/// sentence and clause (only words from byte `from` on), other than numbers, units and stop
/// words: what a number in a list is of. In `Kafka (9 yrs), Rust (4 yrs)` the 4 is Rust's
/// (its clause starts at `Rust`); in `Incident MTTR 3 h -> 45 min` the 45 is `incident MTTR`.
pub fn lead_stems(text: &str, ws: &[Word<'_>], at: usize, from: usize) -> Vec<String> {
    let Some(i) = word_at(ws, at) else { return Vec::new() };
    let mut out = Vec::new();
    for j in (0..i).rev() {
        let w = &ws[j];
        if w.span.start < from || text[w.span.end..ws[j + 1].span.start].contains(['.', ';', '!', '?']) {
            break;
        }
        let f = fold(w.text);
        if parse_number(w.text).is_some() || known_unit(&f).is_some() || STOPWORDS.contains(&f.as_str()) {
            continue;
        }
        out.push(stem(w.text));
        if out.len() == LEAD || w.after_break {
            break;
        }
    }
    out
}

/// The stems of a text's words other than numbers and stop words, sorted: what a
/// [`lead_stems`] is looked for in.
pub fn word_stems(ws: &[Word<'_>]) -> Vec<String> {
    let mut out: Vec<String> = ws
        .iter()
        .filter(|w| parse_number(w.text).is_none() && !STOPWORDS.contains(&fold(w.text).as_str()))
        .map(|w| stem(w.text))
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// The bytes the words within [`NEAR`] words of the number at byte `at` cover, from byte
/// `from` on.
pub fn near_span(ws: &[Word<'_>], at: usize, from: usize) -> Option<Range<usize>> {
    let i = word_at(ws, at)?;
    let lo = (i.saturating_sub(NEAR)..=i).find(|&j| ws[j].span.start >= from)?;
    let hi = (i + NEAR).min(ws.len() - 1);
    Some(ws[lo].span.start..ws[hi].span.end)
}

pub fn unit_of(word: &str) -> Option<String> {
    let f = fold(word);
    if let Some(unit) = known_unit(&f) {
        return Some(unit.to_owned());
    }
    // `310,000 euros` is `€310,000`; a code (`EUR`) only before a number.
    if matches!(f.as_str(), "euro" | "euros" | "dollar" | "dollars" | "pounds" | "yen" | "rupees") {
        return currency_word(&f).map(str::to_owned);
    }
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
    fn roots_meet_across_word_forms_but_not_across_words() {
        let same = |a: &str, b: &str| root(a) == root(b);
        assert!(same("drives", "driver") && same("medicine", "medical") && same("speaking", "speaker"));
        assert!(same("published", "publishing") && same("management", "manager"));
        assert!(!same("care", "career") && !same("intern", "interview") && !same("concept", "concern"));
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
                (41.0, Some("min"), false),
                (12.0, Some("min"), false),
                (88.0, Some("%"), false),
                (4.0, Some("engine"), false),
                (2021.0, None, true),
                (1900.0, Some("rerun"), false)
            ]
        );
    }

    fn units(t: &str) -> Vec<(f64, Option<String>)> {
        numbers(t, &words(t)).into_iter().map(|n| (n.value, n.unit)).collect()
    }

    /// `18-bed`, `220-engineer`: a number joined to a word by a hyphen counts that word, as a
    /// size (marked `-`), while a hyphen between two numbers is a range (`8-12 TB`).
    #[test]
    fn a_hyphenated_count_keeps_its_unit() {
        assert_eq!(units("an 18-bed adult ICU"), [(18.0, Some("-bed".to_owned()))]);
        assert_eq!(units("a 220-engineer monorepo"), [(220.0, Some("-engine".to_owned()))]);
        assert_eq!(units("8-12 TB a day"), [(8.0, Some("tb".to_owned())), (12.0, Some("tb".to_owned()))]);
    }

    #[test]
    fn units_written_any_way_are_one_unit() {
        let u = |v: f64, unit: &str| (v, Some(unit.to_owned()));
        assert_eq!(units("p99 80ms, 80 ms, 80 milliseconds"), [u(80.0, "ms"), u(80.0, "ms"), u(80.0, "ms")]);
        assert_eq!(units("3x faster, three times faster, 2.5x"), [u(3.0, "x"), u(3.0, "x"), u(2.5, "x")]);
        assert_eq!(
            units("3 h -> 45 min, 3 hours to 45 minutes"),
            [u(3.0, "h"), u(45.0, "min"), u(3.0, "h"), u(45.0, "min")]
        );
        assert_eq!(units("Kafka (9 yrs), Rust (9 years)"), [u(9.0, "year"), u(9.0, "year")]);
        assert_eq!(units("8-12 TB/day, 200GB"), [u(8.0, "tb"), u(12.0, "tb"), u(200.0, "gb")]);
        // Currencies and multipliers: `$2.4M` is `$2.4 million`, not `£2.4M`.
        assert_eq!(units("$2.4M saved, $2.4 million saved, £1.1M"), [u(2.4e6, "$"), u(2.4e6, "$"), u(1.1e6, "£")]);
        assert_eq!(
            units("1.3k stars, 1,300 stars, 1300 stars"),
            [u(1300.0, "star"), u(1300.0, "star"), u(1300.0, "star")]
        );
        // Not numbers: ordinals, versions, words that only start with digits.
        assert_eq!(units("1st place, 2nd, v2, 3d-printed, 4th"), []);
        // A year stays a year; a currency amount is not one.
        let n = numbers("in 2021 and $2021", &words("in 2021 and $2021"));
        assert_eq!(n.iter().map(|n| n.year).collect::<Vec<_>>(), [true, false]);
    }
}
