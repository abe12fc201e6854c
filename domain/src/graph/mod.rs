//! The VitaeGraph: a folder of Markdown records, validated and indexed deterministically
//! (`formats.md` section 3), searched, and served only from inside its root.

pub mod confine;
pub mod frontmatter;
pub mod index;
pub mod links;
pub mod page;
pub mod search;
pub mod validate;

pub use index::{Diagnostics, Graph, SearchIndex};
pub use page::Page;
pub use validate::{GraphDiagnostic, GraphValidation, is_valid_id, validate};
