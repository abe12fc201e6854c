//! `--redact`: classes of QUICK REFERENCE keys left out of everything shared (packets, prompts,
//! skills' `{{career_context}}`, the JSON Resume export and resource).
//!
//! A key belongs to a class when one of its words (split on `_`, `-` and case changes, compared
//! without regard to case) is one of the class's words:
//! - `contact`: email, mail, phone, mobile, telephone, tel, whatsapp, address, street,
//!   postcode, postal, zip, birthday, birthdate, dob
//! - `salary`: salary, compensation, pay, rate, wage, wages, income, remuneration, bonus, equity
//!
//! In a packet, a redacted key's QUICK REFERENCE line goes, and so does any line of the sections
//! that is a labelled value of that class (`Email: ada@example.org`, `- **Phone:** ...`).
//! Off by default: with no class, packets are byte for byte what they were.

use std::fmt;

/// A class of keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Class {
    Contact,
    Salary,
}

impl Class {
    pub const ALL: [Class; 2] = [Class::Contact, Class::Salary];

    pub fn name(self) -> &'static str {
        match self {
            Class::Contact => "contact",
            Class::Salary => "salary",
        }
    }

    pub fn parse(s: &str) -> Option<Class> {
        Class::ALL.into_iter().find(|c| c.name().eq_ignore_ascii_case(s.trim()))
    }

    pub fn words(self) -> &'static [&'static str] {
        match self {
            Class::Contact => &[
                "email",
                "mail",
                "phone",
                "mobile",
                "telephone",
                "tel",
                "whatsapp",
                "address",
                "street",
                "postcode",
                "postal",
                "zip",
                "birthday",
                "birthdate",
                "dob",
            ],
            Class::Salary => {
                &["salary", "compensation", "pay", "rate", "wage", "wages", "income", "remuneration", "bonus", "equity"]
            }
        }
    }
}

impl fmt::Display for Class {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The classes chosen (none: nothing is redacted).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Redact {
    classes: Vec<Class>,
}

impl Redact {
    pub fn none() -> Self {
        Self::default()
    }

    /// `contact,salary` (an empty list is none); an unknown class is an error naming it.
    pub fn parse(list: &str) -> Result<Self, String> {
        let mut classes = Vec::new();
        for part in list.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let c = Class::parse(part).ok_or_else(|| {
                format!("unknown redact class {part:?}; the classes are {}", Class::ALL.map(Class::name).join(", "))
            })?;
            if !classes.contains(&c) {
                classes.push(c);
            }
        }
        classes.sort();
        Ok(Self { classes })
    }

    pub fn classes(&self) -> &[Class] {
        &self.classes
    }

    pub fn is_off(&self) -> bool {
        self.classes.is_empty()
    }

    /// The class that covers `key`, if any of the chosen ones does.
    pub fn covers(&self, key: &str) -> Option<Class> {
        let words = words_of(key);
        self.classes.iter().copied().find(|c| words.iter().any(|w| c.words().contains(&w.as_str())))
    }

    /// The packet text with the redacted QUICK REFERENCE lines and labelled section lines
    /// removed. Unchanged (the same bytes) when redaction is off.
    pub fn packet(&self, packet: &str) -> String {
        if self.is_off() {
            return packet.to_owned();
        }
        let mut out = String::with_capacity(packet.len());
        let mut in_yaml = false;
        let mut in_fence = false;
        let mut skipping_items = false;
        for line in packet.split_inclusive('\n') {
            let bare = line.trim_end_matches(['\n', '\r']);
            if bare.starts_with("```") {
                if in_yaml {
                    in_yaml = false;
                } else if !in_fence && (bare == "```yaml" || bare == "```yml") && !out.contains("```yaml") {
                    in_yaml = true;
                } else {
                    in_fence = !in_fence;
                }
                skipping_items = false;
                out.push_str(line);
                continue;
            }
            if in_yaml {
                if skipping_items && bare.starts_with([' ', '\t']) {
                    continue;
                }
                skipping_items = false;
                if let Some((key, _)) = bare.split_once(':')
                    && !key.starts_with([' ', '\t', '#'])
                    && self.covers(key).is_some()
                {
                    skipping_items = true;
                    continue;
                }
            } else if !in_fence && self.labelled(bare) {
                continue;
            }
            out.push_str(line);
        }
        out
    }

    /// Whether a section line is `Label: value` (list marker, bold allowed) with a redacted label.
    fn labelled(&self, line: &str) -> bool {
        let t = line.trim_start().trim_start_matches(['-', '*', '+']).trim_start();
        let Some((label, value)) = t.split_once(':') else { return false };
        let label = label.trim().trim_matches(['*', '_', '`']).trim();
        !label.is_empty()
            && label.len() <= 40
            && !value.trim().trim_matches(['*', '_']).is_empty()
            && label.split_whitespace().count() <= 3
            && self.covers(label).is_some()
    }
}

/// `expectedSalary`, `day-rate`, `Phone number` -> lower-case words.
fn words_of(key: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut prev_lower = false;
    for c in key.chars() {
        if !c.is_alphanumeric() {
            if !cur.is_empty() {
                words.push(std::mem::take(&mut cur));
            }
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower && !cur.is_empty() {
            words.push(std::mem::take(&mut cur));
        }
        prev_lower = c.is_lowercase();
        cur.extend(c.to_lowercase());
    }
    if !cur.is_empty() {
        words.push(cur);
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_fall_in_a_class_by_any_of_their_words() {
        let r = Redact::parse("contact, salary").unwrap();
        for (key, class) in [
            ("email", Some(Class::Contact)),
            ("work_email", Some(Class::Contact)),
            ("phoneNumber", Some(Class::Contact)),
            ("expected-salary", Some(Class::Salary)),
            ("day_rate", Some(Class::Salary)),
            ("Hourly Rate", Some(Class::Salary)),
            ("name", None),
            ("positioning_summary", None),
            ("separate", None),
        ] {
            assert_eq!(r.covers(key), class, "{key}");
        }
        assert!(Redact::parse("contact,wages").unwrap_err().contains("\"wages\""));
    }

    #[test]
    fn a_packet_loses_the_redacted_lines_and_nothing_else() {
        let packet = "# Career Context packet - cv\n\n> Generated.\n\n## QUICK REFERENCE\n```yaml\nname: \"Ada\"\nemail: \"ada@example.org\"\nsalary_expectation: \"90k\"\nlocation: \"Berlin\"\n```\n\n## Experience\n\n- Phone: +49 30 1234\nRust at scale.\n```\nemail: in code stays\n```\n";
        assert_eq!(Redact::none().packet(packet), packet);
        let only_contact = Redact::parse("contact").unwrap().packet(packet);
        assert_eq!(
            only_contact,
            "# Career Context packet - cv\n\n> Generated.\n\n## QUICK REFERENCE\n```yaml\nname: \"Ada\"\nsalary_expectation: \"90k\"\nlocation: \"Berlin\"\n```\n\n## Experience\n\nRust at scale.\n```\nemail: in code stays\n```\n"
        );
        let both = Redact::parse("salary,contact").unwrap().packet(packet);
        assert!(!both.contains("90k") && !both.contains("ada@") && both.contains("Berlin"));
    }
}
