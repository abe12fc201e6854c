//! The VitaeGraph: a folder of Markdown records, validated and indexed deterministically
//! (`formats.md` section 3), searched, and served only from inside its root.

pub mod checksum;
pub mod code;
pub mod confine;
mod cursor;
pub mod frontmatter;
pub mod index;
pub mod links;
pub mod manifest;
pub mod new_record;
pub mod outputs;
pub mod page;
pub mod record_type;
pub mod search;
pub mod set;
pub mod sidecar;
pub mod spans;
pub mod validate;

pub use code::GraphCode;
pub use index::{Diagnostics, Graph, SearchIndex};
pub use page::Page;
pub use record_type::RecordType;
pub use validate::{GraphDiagnostic, GraphValidation, OtherPlace, is_valid_id, validate};

/// The folder under the root that holds the generated files (never read as records).
pub const GENERATED_DIR: &str = ".generated";
/// The generated graph, in [`GENERATED_DIR`].
pub const GRAPH_FILE: &str = "graph.json";
/// The generated search index, in [`GENERATED_DIR`].
pub const SEARCH_INDEX_FILE: &str = "search-index.json";
/// The search index's binary sidecar, in [`GENERATED_DIR`]: the searcher's flat layout, built
/// from [`SEARCH_INDEX_FILE`] and used only while it names that file's length and digest
/// ([`sidecar`]).
pub const SEARCH_SIDECAR_FILE: &str = "search-index.bin";
/// The generated validation result, in [`GENERATED_DIR`].
pub const DIAGNOSTICS_FILE: &str = "diagnostics.json";

/// The largest record file: read while indexing and served as `vitaegraph://record/{id}`.
/// Records are prose; a larger file is a `record_too_large` error, not a silent difference
/// between what is indexed and what is served.
pub const MAX_RECORD_BYTES: u64 = 4 * 1024 * 1024;

/// A generated file's path relative to the root, `/`-separated (`.generated/graph.json`).
pub fn generated_path(file: &str) -> String {
    format!("{GENERATED_DIR}/{file}")
}
