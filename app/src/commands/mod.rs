//! The commands outside the MCP server, and how their failures become exit codes.

pub mod context;
pub mod graph;
pub mod skills;

use std::process::ExitCode;

/// A command that could not do what was asked: a miette report and the exit code to leave with.
#[derive(Debug)]
pub struct Failure {
    pub report: miette::Report,
    pub code: u8,
}

impl Failure {
    /// Exit 1: the command ran and failed (an invalid file, a refused overwrite).
    pub fn failed(report: miette::Report) -> Self {
        Self { report, code: 1 }
    }

    /// Exit 2: bad usage, or an input that could not be read.
    pub fn usage(report: miette::Report) -> Self {
        Self { report, code: 2 }
    }

    pub fn exit_code(&self) -> ExitCode {
        ExitCode::from(self.code)
    }
}

pub type Outcome = Result<ExitCode, Failure>;
