//! The packaged wiki: three Markdown modules compiled into the binary.
//!
//! A module name is looked up in a fixed allowlist, by exact match; no path is ever built
//! from it.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WikiModule {
    Vitaecontext,
    Build,
    Vitaegraph,
}

impl WikiModule {
    pub const ALL: [WikiModule; 3] = [WikiModule::Vitaecontext, WikiModule::Build, WikiModule::Vitaegraph];

    /// The short name used in URIs and lists.
    pub fn name(self) -> &'static str {
        match self {
            WikiModule::Vitaecontext => "vitaecontext",
            WikiModule::Build => "build",
            WikiModule::Vitaegraph => "vitaegraph",
        }
    }

    /// Exact names only: the short forms and the 2.x long forms. Case variants, encodings,
    /// slashes and dots are not names.
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "vitaecontext" => Some(WikiModule::Vitaecontext),
            "build" | "vitaecontext-build" => Some(WikiModule::Build),
            "vitaegraph" | "vitaecontext-vitaegraph" => Some(WikiModule::Vitaegraph),
            _ => None,
        }
    }

    pub fn title(self) -> &'static str {
        match self {
            WikiModule::Vitaecontext => "vitaecontext: what it is, set-up, and everything it serves",
            WikiModule::Build => "Building a Career Context, section by section, and fixing every diagnostic",
            WikiModule::Vitaegraph => "The VitaeGraph: records, layout, front matter, indexing and search",
        }
    }

    pub fn content(self) -> &'static str {
        match self {
            WikiModule::Vitaecontext => include_str!(concat!(env!("VITAECONTEXT_WIKI_DIR"), "/vitaecontext.md")),
            WikiModule::Build => include_str!(concat!(env!("VITAECONTEXT_WIKI_DIR"), "/build.md")),
            WikiModule::Vitaegraph => include_str!(concat!(env!("VITAECONTEXT_WIKI_DIR"), "/vitaegraph.md")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_exact_names_resolve() {
        for ok in ["vitaecontext", "build", "vitaegraph", "vitaecontext-build", "vitaecontext-vitaegraph"] {
            assert!(WikiModule::parse(ok).is_some(), "{ok}");
        }
        for bad in ["Build", "VITAEGRAPH", "build/", "../build", "%62uild", "vitaecontext-vitaecontext", "", "build.md"]
        {
            assert_eq!(WikiModule::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn every_module_has_real_content() {
        for m in WikiModule::ALL {
            assert!(m.content().starts_with("# "), "{}", m.name());
            assert!(m.content().len() > 2000, "{} is too thin", m.name());
        }
    }
}
