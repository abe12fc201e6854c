//! Text rules that must match JavaScript's, because files made with VitaeContext 2.x are judged
//! by them: what `\s` and `String.prototype.trim` treat as white space, what `.` refuses to
//! match, and ASCII-only case-insensitivity (JavaScript's `/i` without the `u` flag never lets a
//! non-ASCII character match an ASCII letter).

/// JavaScript's `\s`: ASCII white space, NBSP, the Unicode space separators, line and paragraph
/// separators, and the byte-order mark.
pub fn is_js_space(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{0B}' | '\u{0C}' | '\r' | ' ' | '\u{A0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200A}' | '\u{2028}' | '\u{2029}' | '\u{202F}' | '\u{205F}' | '\u{3000}' | '\u{FEFF}'
    )
}

/// The characters JavaScript's `.` does not match.
pub fn is_line_terminator(c: char) -> bool {
    matches!(c, '\n' | '\r' | '\u{2028}' | '\u{2029}')
}

pub fn trim(s: &str) -> &str {
    s.trim_matches(is_js_space)
}

pub fn trim_start(s: &str) -> &str {
    s.trim_start_matches(is_js_space)
}

pub fn trim_end(s: &str) -> &str {
    s.trim_end_matches(is_js_space)
}

/// A regex fragment matching `word` ASCII-case-insensitively (`your` -> `[yY][oO][uU][rR]`).
pub fn ascii_ci(word: &str) -> String {
    word.chars()
        .map(|c| {
            if c.is_ascii_alphabetic() {
                format!("[{}{}]", c.to_ascii_lowercase(), c.to_ascii_uppercase())
            } else {
                regex::escape(&c.to_string())
            }
        })
        .collect()
}

/// The JavaScript `\s` class as a regex fragment.
pub const JS_SPACE_CLASS: &str =
    r"[\t\n\x0B\x0C\r \u{A0}\u{1680}\u{2000}-\u{200A}\u{2028}\u{2029}\u{202F}\u{205F}\u{3000}\u{FEFF}]";

/// How JavaScript prints a number (`String(n)` and `JSON.stringify(n)` agree for finite values).
pub fn js_number(n: f64) -> String {
    if n == 0.0 {
        return "0".into();
    }
    if n.is_infinite() {
        return if n > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    let abs = n.abs();
    if (1e-6..1e21).contains(&abs) {
        return format!("{n}");
    }
    // Exponent form: JavaScript writes `1e+21` and `1.5e-7` where Rust writes `1e21`, `1.5e-7`.
    let s = format!("{n:e}");
    match s.split_once('e') {
        Some((mantissa, exp)) if !exp.starts_with('-') => format!("{mantissa}e+{exp}"),
        _ => s,
    }
}

/// After a list dash: `\s+(.+)$` as JavaScript's backtracking resolves it. Greedy `\s+` gives
/// back characters one by one until `(.+)$` (no line terminator) matches; returns the capture.
pub fn after_dash(rest: &str) -> Option<&str> {
    let ws: Vec<usize> = rest.char_indices().take_while(|(_, c)| is_js_space(*c)).map(|(i, _)| i).collect();
    if ws.is_empty() {
        return None;
    }
    let ws_end = rest.char_indices().find(|(_, c)| !is_js_space(*c)).map_or(rest.len(), |(i, _)| i);
    let mut starts: Vec<usize> = ws.iter().skip(1).copied().collect();
    starts.push(ws_end);
    starts.into_iter().rev().map(|i| &rest[i..]).find(|cap| !cap.is_empty() && !cap.chars().any(is_line_terminator))
}

/// `^\s{min,}-\s+(.+)$`: a list item indented by at least `min` white-space characters.
pub fn list_item(line: &str, min_indent: usize) -> Option<&str> {
    let body = trim_start(line);
    let indent = &line[..line.len() - body.len()];
    if indent.chars().count() < min_indent {
        return None;
    }
    after_dash(body.strip_prefix('-')?)
}

/// `.replace(/^["']|["']$/g, "")`: one leading and one trailing quote, either kind.
pub fn strip_quotes(s: &str) -> &str {
    let s = s.strip_prefix(['"', '\'']).unwrap_or(s);
    s.strip_suffix(['"', '\'']).unwrap_or(s)
}

/// Char-based column (1-based) of a byte offset in `line`.
pub fn column_of(line: &str, byte: usize) -> usize {
    line[..byte].chars().count() + 1
}

/// `JSON.stringify` of a string.
pub fn json_string(s: &str) -> String {
    let mut out = Vec::with_capacity(s.len() + 2);
    push_json_string(&mut out, s);
    String::from_utf8(out).expect("escaping keeps UTF-8 whole")
}

/// The bytes a JSON string escapes: control characters, `"` and `\\`.
static ESCAPED: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 0x20 {
        t[b] = true;
        b += 1;
    }
    t[b'"' as usize] = true;
    t[b'\\' as usize] = true;
    t
};

/// Appends `s` as a JSON string, escaped as `serde_json` (and `JSON.stringify`) escape it:
/// runs of plain bytes are copied whole.
pub fn push_json_string(out: &mut Vec<u8>, s: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.reserve(s.len() + 2);
    out.push(b'"');
    let mut rest = s.as_bytes();
    while let Some(at) = rest.iter().position(|&b| ESCAPED[usize::from(b)]) {
        out.extend_from_slice(&rest[..at]);
        let b = rest[at];
        match b {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            0x08 => out.extend_from_slice(b"\\b"),
            0x0C => out.extend_from_slice(b"\\f"),
            _ => {
                out.extend_from_slice(b"\\u00");
                out.push(HEX[usize::from(b >> 4)]);
                out.push(HEX[usize::from(b & 15)]);
            }
        }
        rest = &rest[at + 1..];
    }
    out.extend_from_slice(rest);
    out.push(b'"');
}

/// `n` and `noun`, in the plural unless `n` is 1: `1 claim`, `3 claims`.
pub fn count(n: usize, noun: &str) -> String {
    if n == 1 { format!("1 {noun}") } else { format!("{n} {noun}s") }
}

/// The indefinite article for `word`: `an` before a vowel letter, else `a`.
pub fn article(word: &str) -> &'static str {
    if word.starts_with(['a', 'e', 'i', 'o', 'u', 'A', 'E', 'I', 'O', 'U']) { "an" } else { "a" }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_print_like_javascript() {
        assert_eq!(js_number(2024.0), "2024");
        assert_eq!(js_number(1.5), "1.5");
        assert_eq!(js_number(-0.0), "0");
        assert_eq!(js_number(1e21), "1e+21");
        assert_eq!(js_number(12345678901234567890.0), "12345678901234567000");
        assert_eq!(js_number(0.0000001), "1e-7");
        assert_eq!((js_number(f64::INFINITY), js_number(f64::NEG_INFINITY)), ("Infinity".into(), "-Infinity".into()));
    }

    #[test]
    fn trim_uses_javascript_white_space() {
        assert_eq!(trim("\u{FEFF}\u{3000} a \u{2028}"), "a");
        // NEL is not white space in JavaScript.
        assert_eq!(trim("\u{85}a"), "\u{85}a");
    }

    #[test]
    fn ascii_case_insensitivity_only() {
        let re = regex::Regex::new(&ascii_ci("todo")).unwrap();
        assert!(re.is_match("ToDo"));
        assert!(!re.is_match("\u{212A}")); // a Kelvin sign is not a K here
    }
}
