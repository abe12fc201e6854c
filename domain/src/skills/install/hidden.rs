//! Characters that change how a text reads without showing themselves: bidirectional controls
//! (a "Trojan Source" reorders what a reviewer sees), zero-width characters, invisible tag
//! characters (text a model reads and a person does not) and other control characters. A skill
//! is text a model obeys, so an installed one may hold none of them.

use std::fmt;

/// One hidden character and where it is (1-based line, and column in characters).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hidden {
    pub line: usize,
    pub column: usize,
    pub ch: char,
}

impl Hidden {
    /// The character's Unicode name, or its class.
    pub fn name(&self) -> &'static str {
        name(self.ch).unwrap_or("CONTROL CHARACTER")
    }
}

impl fmt::Display for Hidden {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "U+{:04X} {} at line {}, column {}", u32::from(self.ch), self.name(), self.line, self.column)
    }
}

/// The name of a hidden character, `None` for one that is not hidden: every format character
/// (Unicode category Cf, as of Unicode 15.1), the variation selectors, the line and paragraph
/// separators, the blank Hangul fillers and the soft hyphen, and control characters.
fn name(c: char) -> Option<&'static str> {
    Some(match c {
        '\u{00AD}' => "SOFT HYPHEN",
        '\u{034F}' => "COMBINING GRAPHEME JOINER",
        '\u{0600}'..='\u{0605}' | '\u{06DD}' | '\u{070F}' | '\u{0890}' | '\u{0891}' | '\u{08E2}' => {
            "ARABIC OR SYRIAC FORMAT CHARACTER"
        }
        '\u{061C}' => "ARABIC LETTER MARK",
        '\u{115F}' | '\u{1160}' | '\u{3164}' | '\u{FFA0}' => "HANGUL FILLER",
        '\u{17B4}' | '\u{17B5}' => "KHMER INHERENT VOWEL",
        '\u{180B}'..='\u{180D}' | '\u{180F}' => "MONGOLIAN FREE VARIATION SELECTOR",
        '\u{180E}' => "MONGOLIAN VOWEL SEPARATOR",
        '\u{200B}' => "ZERO WIDTH SPACE",
        '\u{200C}' => "ZERO WIDTH NON-JOINER",
        '\u{200D}' => "ZERO WIDTH JOINER",
        '\u{200E}' => "LEFT-TO-RIGHT MARK",
        '\u{200F}' => "RIGHT-TO-LEFT MARK",
        '\u{2028}' => "LINE SEPARATOR",
        '\u{2029}' => "PARAGRAPH SEPARATOR",
        '\u{202A}' => "LEFT-TO-RIGHT EMBEDDING",
        '\u{202B}' => "RIGHT-TO-LEFT EMBEDDING",
        '\u{202C}' => "POP DIRECTIONAL FORMATTING",
        '\u{202D}' => "LEFT-TO-RIGHT OVERRIDE",
        '\u{202E}' => "RIGHT-TO-LEFT OVERRIDE",
        '\u{2060}' => "WORD JOINER",
        '\u{2061}'..='\u{2064}' => "INVISIBLE OPERATOR",
        '\u{2065}' => "UNASSIGNED FORMAT CHARACTER",
        '\u{2066}' => "LEFT-TO-RIGHT ISOLATE",
        '\u{2067}' => "RIGHT-TO-LEFT ISOLATE",
        '\u{2068}' => "FIRST STRONG ISOLATE",
        '\u{2069}' => "POP DIRECTIONAL ISOLATE",
        '\u{206A}'..='\u{206F}' => "DEPRECATED FORMAT CHARACTER",
        '\u{FE00}'..='\u{FE0F}' | '\u{E0100}'..='\u{E01EF}' => "VARIATION SELECTOR",
        '\u{FEFF}' => "ZERO WIDTH NO-BREAK SPACE",
        '\u{FFF9}'..='\u{FFFB}' => "INTERLINEAR ANNOTATION CHARACTER",
        '\u{110BD}' | '\u{110CD}' => "KAITHI NUMBER SIGN",
        '\u{13430}'..='\u{1345F}' => "EGYPTIAN HIEROGLYPH FORMAT CONTROL",
        '\u{1BCA0}'..='\u{1BCA3}' => "SHORTHAND FORMAT CONTROL",
        '\u{1D173}'..='\u{1D17A}' => "MUSICAL SYMBOL FORMAT CONTROL",
        '\u{E0000}'..='\u{E007F}' => "TAG CHARACTER",
        '\t' | '\n' | '\r' => return None,
        c if c.is_control() => "CONTROL CHARACTER",
        _ => return None,
    })
}

/// Every hidden character of `text`, in order. A byte order mark as the very first character
/// is allowed (the parsers skip it).
pub fn hidden_controls(text: &str) -> Vec<Hidden> {
    let mut found = Vec::new();
    let mut line = 1;
    let mut column = 0;
    for (i, c) in text.char_indices() {
        column += 1;
        if c == '\n' {
            line += 1;
            column = 0;
            continue;
        }
        if name(c).is_some() && !(i == 0 && c == '\u{FEFF}') {
            found.push(Hidden { line, column, ch: c });
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn trojan_source_and_zero_width_characters_are_found_where_they_are() {
        let text = "id: a\nprompt: \"admin\u{202E} \u{2066}// check\u{2069}\u{2066}\"\nx\u{200B}y\n";
        let found = hidden_controls(text);
        let at: Vec<(usize, usize, char)> = found.iter().map(|h| (h.line, h.column, h.ch)).collect();
        assert_eq!(
            at,
            [(2, 15, '\u{202E}'), (2, 17, '\u{2066}'), (2, 26, '\u{2069}'), (2, 27, '\u{2066}'), (3, 2, '\u{200B}')]
        );
        assert_eq!(found[0].to_string(), "U+202E RIGHT-TO-LEFT OVERRIDE at line 2, column 15");
        assert_eq!(hidden_controls("\u{FEFF}id: a\n"), []);
        assert_eq!(hidden_controls("a\u{FEFF}")[0].name(), "ZERO WIDTH NO-BREAK SPACE");
        assert_eq!(hidden_controls("tab\tcr\r\nok é 日本 🙂\n"), []);
        assert_eq!(hidden_controls("\u{E0041}")[0].name(), "TAG CHARACTER");
        assert_eq!(hidden_controls("\x1b[2J")[0].name(), "CONTROL CHARACTER");
    }

    /// Found in review: variation selectors, separators, fillers and the soft hyphen passed.
    #[test]
    fn format_characters_variation_selectors_fillers_and_separators_are_found() {
        for c in [
            '\u{FE00}',
            '\u{FE0F}',
            '\u{E0100}',
            '\u{E01EF}',
            '\u{00AD}',
            '\u{2028}',
            '\u{2029}',
            '\u{115F}',
            '\u{3164}',
            '\u{0600}',
            '\u{06DD}',
            '\u{110BD}',
            '\u{1D173}',
            '\u{E0001}',
            '\u{034F}',
        ] {
            let found = hidden_controls(&format!("a{c}b"));
            assert_eq!(found.len(), 1, "U+{:04X}", u32::from(c));
            assert_ne!(found[0].name(), "", "U+{:04X}", u32::from(c));
        }
    }

    proptest! {
        /// One hidden character put anywhere in visible text is found, once, at its place.
        #[test]
        fn a_hidden_character_is_found_at_its_line_and_column(
            lines in proptest::collection::vec("[a-zA-Z0-9 é日:{}\"-]{0,20}", 1..6),
            which in prop::sample::select(vec!['\u{202E}', '\u{200B}', '\u{2067}', '\u{E0020}', '\u{0007}', '\u{200D}']),
            line in any::<prop::sample::Index>(),
            column in any::<prop::sample::Index>(),
        ) {
            prop_assert!(lines.iter().all(|l| hidden_controls(l).is_empty()));
            let mut lines = lines;
            let l = line.index(lines.len());
            let chars: Vec<char> = lines[l].chars().collect();
            let c = column.index(chars.len() + 1);
            let mut edited: String = chars[..c].iter().collect();
            edited.push(which);
            edited.extend(&chars[c..]);
            lines[l] = edited;
            let found = hidden_controls(&lines.join("\n"));
            prop_assert_eq!(found, vec![Hidden { line: l + 1, column: c + 1, ch: which }]);
        }
    }
}
