//! VitaeGraph use cases over the filesystem port: read, validate, index, and `graph init` and
//! `graph add`, one module each; the errors and the progress they share are here.

mod add;
mod indexing;
mod init;
mod read;
mod search_index;
mod shared;
mod stale;
#[cfg(test)]
mod tests;
mod validate;

pub use add::{add, check_new_record};
pub use indexing::*;
pub use init::{InitReport, init};
pub use read::*;
pub use search_index::*;
pub use shared::{GraphError, Progress};
pub use stale::{Stale, since_index};
pub use validate::*;
