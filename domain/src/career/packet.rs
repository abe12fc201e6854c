//! Packets: the Career Context cut to the channel an assistant is writing for.

use std::fmt;
use std::str::FromStr;

use super::validate::Validation;

/// Where the text is going: which sections a packet carries.
/// Deserialised from its lower-case name (`cv`, ..., `general`) and nothing else; `general` is
/// the default.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Surface {
    Cv,
    Github,
    Linkedin,
    Portfolio,
    X,
    #[default]
    General,
}

impl Surface {
    pub const ALL: [Surface; 6] =
        [Surface::Cv, Surface::Github, Surface::Linkedin, Surface::Portfolio, Surface::X, Surface::General];

    pub fn as_str(self) -> &'static str {
        match self {
            Surface::Cv => "cv",
            Surface::Github => "github",
            Surface::Linkedin => "linkedin",
            Surface::Portfolio => "portfolio",
            Surface::X => "x",
            Surface::General => "general",
        }
    }

    /// H2 names (normalized) this surface carries; `None` means every H2 but QUICK REFERENCE.
    fn names(self) -> Option<&'static [&'static str]> {
        const GOALS: &str = "goals and targeting";
        Some(match self {
            Surface::Cv => &[
                GOALS,
                "education",
                "experience",
                "professional experience",
                "research and publications",
                "skills index",
                "certifications and achievements",
                "languages",
            ],
            Surface::Github => &[
                GOALS,
                "education",
                "experience",
                "professional experience",
                "independent/open-source projects",
                "projects",
                "research and publications",
                "skills index",
            ],
            Surface::Linkedin => &[
                GOALS,
                "education",
                "experience",
                "professional experience",
                "projects",
                "research and publications",
                "skills index",
                "certifications and achievements",
                "languages",
                "extracurricular and leadership",
            ],
            Surface::Portfolio => &[
                GOALS,
                "education",
                "experience",
                "professional experience",
                "independent/open-source projects",
                "projects",
                "research and publications",
                "skills index",
                "certifications and achievements",
                "extracurricular and leadership",
                "public profile snapshot",
            ],
            Surface::X => &[
                GOALS,
                "experience",
                "professional experience",
                "independent/open-source projects",
                "projects",
                "research and publications",
                "skills index",
                "public profile snapshot",
            ],
            Surface::General => return None,
        })
    }

    /// Tags whose presence in a section's text carries it.
    fn tags(self) -> &'static [&'static str] {
        const WIDE: &[&str] = &[
            "[DEGREE]",
            "[ROLE]",
            "[PROJECT]",
            "[THESIS]",
            "[PAPER]",
            "[PREPRINT]",
            "[CERT]",
            "[COMPETITION]",
            "[AWARD]",
            "[ORG]",
        ];
        match self {
            Surface::Cv => &WIDE[..9],
            Surface::Github => &["[DEGREE]", "[ROLE]", "[PROJECT]", "[THESIS]", "[PAPER]", "[PREPRINT]"],
            Surface::Linkedin | Surface::Portfolio => WIDE,
            Surface::X => &["[ROLE]", "[PROJECT]", "[PAPER]", "[PREPRINT]"],
            Surface::General => &[],
        }
    }
}

impl fmt::Display for Surface {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown surface {0:?}: expected one of cv, github, linkedin, portfolio, x, general")]
pub struct UnknownSurface(pub String);

/// A string only: serde's derived form also took an enum's map form, `{"cv": null}`, which the
/// tools' input schema (`"type": "string"`) forbids (found in review).
impl<'de> serde::Deserialize<'de> for Surface {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        const NAMES: &[&str] = &["cv", "github", "linkedin", "portfolio", "x", "general"];
        let name = String::deserialize(d)?;
        name.parse().map_err(|_| serde::de::Error::unknown_variant(&name, NAMES))
    }
}

impl FromStr for Surface {
    type Err = UnknownSurface;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Surface::ALL.into_iter().find(|v| v.as_str() == s).ok_or_else(|| UnknownSurface(s.to_owned()))
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Packet {
    pub surface: Surface,
    /// Normalized names of the sections carried, in file order.
    pub selected_sections: Vec<String>,
    pub content: String,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("Career Context validation failed with {errors} error(s); fix it before creating a packet")]
pub struct InvalidContext {
    pub errors: usize,
}

/// Assembles the packet for `surface` from the file `text` named `file_name` and its
/// validation.
pub fn packet(
    validation: &Validation,
    text: &str,
    file_name: &str,
    surface: Surface,
) -> Result<Packet, InvalidContext> {
    if !validation.valid {
        return Err(InvalidContext { errors: validation.errors.len() });
    }
    let selected: Vec<_> = validation
        .sections
        .iter()
        .filter(|s| s.normalized != "quick reference")
        .filter(|s| match surface.names() {
            None => true,
            Some(names) => {
                names.contains(&s.normalized.as_str())
                    || surface.tags().iter().any(|t| validation.section_text(text, s).contains(t))
            }
        })
        .collect();
    let quick: Vec<String> =
        validation.quick_reference.entries.iter().map(|(k, v)| format!("{k}: {}", v.to_packet_yaml())).collect();
    let mut parts: Vec<String> = vec![
        format!("# Career Context packet - {surface}"),
        String::new(),
        format!(
            "> Generated from {file_name}. This packet preserves supplied facts; it does not independently verify them."
        ),
        String::new(),
        "## QUICK REFERENCE".into(),
        "```yaml".into(),
        quick.join("\n"),
        "```".into(),
        String::new(),
    ];
    for s in &selected {
        parts.push(validation.section_text(text, s).to_owned());
        parts.push(String::new());
    }
    let mut content = crate::text::trim_end(&parts.join("\n")).to_owned();
    content.push('\n');
    Ok(Packet { surface, selected_sections: selected.iter().map(|s| s.normalized.clone()).collect(), content })
}
