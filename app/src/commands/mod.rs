//! The commands outside the MCP server, and how their failures become exit codes.

pub mod context;
pub mod doctor;
pub mod graph;
pub mod grounding;
pub mod portable;
pub mod register;
pub mod setup;
pub mod skills;
pub mod skills_install;
pub mod watch;

use std::borrow::Cow;
use std::io::{IsTerminal, Write};
use std::process::ExitCode;

/// Prints on stdout; a closed stdout (`| head`) is not an error worth a panic.
pub fn out(text: &str) {
    let stdout = std::io::stdout();
    let text = if stdout.is_terminal() { terminal_safe(text) } else { Cow::Borrowed(text) };
    if let Err(e) = stdout.lock().write_all(text.as_bytes()) {
        stdout_failed(e);
    }
}

/// `text` as a terminal may be given it: the files, drafts and postings we quote can hold
/// escape sequences that set a window title, clear the screen or move the cursor (found in
/// review: a posting's `ESC ]0;...` and `ESC [2J` reached the terminal through `check` and
/// `match`). Every control character but newline, tab and carriage return becomes U+FFFD,
/// except colour (`ESC [ digits ; m`), which the reports use themselves.
fn terminal_safe(text: &str) -> Cow<'_, str> {
    let unsafe_char = |c: char| c.is_control() && !matches!(c, '\n' | '\t' | '\r');
    if !text.chars().any(unsafe_char) {
        return Cow::Borrowed(text);
    }
    let mut safe = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        let colour = (c == '\x1b')
            .then(|| {
                let params = rest.get(2..)?.bytes().take_while(|b| b.is_ascii_digit() || *b == b';').count();
                (rest.as_bytes().get(1) == Some(&b'[') && rest.as_bytes().get(2 + params) == Some(&b'm'))
                    .then_some(3 + params)
            })
            .flatten();
        let len = match colour {
            Some(len) => {
                safe.push_str(&rest[..len]);
                len
            }
            None => {
                safe.push(if unsafe_char(c) { '\u{fffd}' } else { c });
                c.len_utf8()
            }
        };
        rest = &rest[len..];
    }
    Cow::Owned(safe)
}

/// The first error writing stdout met, other than a reader that stopped reading (`| head`).
static STDOUT_ERROR: std::sync::Mutex<Option<std::io::Error>> = std::sync::Mutex::new(None);

fn stdout_failed(e: std::io::Error) {
    if e.kind() != std::io::ErrorKind::BrokenPipe {
        STDOUT_ERROR.lock().unwrap_or_else(std::sync::PoisonError::into_inner).get_or_insert(e);
    }
}

/// Flushes stdout; the first error writing it met, if any. A report that did not reach its
/// file (`> packet.md` on a full disk) is a failure, not a success with a cut file (found in
/// review: every command exited 0 on `/dev/full`).
pub fn stdout_error() -> Option<std::io::Error> {
    if let Err(e) = std::io::stdout().flush() {
        stdout_failed(e);
    }
    STDOUT_ERROR.lock().unwrap_or_else(std::sync::PoisonError::into_inner).take()
}

/// Prints on stderr.
pub fn err(text: &str) {
    let stderr = std::io::stderr();
    let text = if stderr.is_terminal() { terminal_safe(text) } else { Cow::Borrowed(text) };
    let _ = stderr.lock().write_all(text.as_bytes());
}

/// A path as a shell word in a command we suggest, so that it pastes as one argument (a
/// folder with a space, a quote).
pub fn shell_path(path: impl AsRef<std::path::Path>) -> String {
    domain::clients::shell_quote(&path.as_ref().display().to_string())
}

/// JSON as the `--json` modes print it: pretty, two-space indented.
pub fn pretty(v: &serde_json::Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_else(|_| v.to_string())
}

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

    /// `{"error": {"message", "help", "exitCode"}}`: what `--json` modes print on failure.
    pub fn json(&self) -> serde_json::Value {
        serde_json::json!({ "error": {
            "message": self.report.to_string(),
            "help": self.report.help().map(|h| h.to_string()),
            "exitCode": self.code,
        }})
    }
}

pub type Outcome = Result<ExitCode, Failure>;

#[cfg(test)]
mod terminal_tests {
    use super::terminal_safe;

    #[test]
    fn quoted_escape_sequences_never_reach_a_terminal_but_colour_does() {
        let posting = "Worked at \x1b]0;PWNED\x07Acme\x1b[2J in 2019\x1b[1;31m red\x1b[0m\n\ttab\r\u{9b}6n";
        let safe = terminal_safe(posting);
        assert_eq!(
            safe,
            "Worked at \u{fffd}]0;PWNED\u{fffd}Acme\u{fffd}[2J in 2019\x1b[1;31m red\x1b[0m\n\ttab\r\u{fffd}6n"
        );
        assert!(matches!(terminal_safe("plain\n"), std::borrow::Cow::Borrowed("plain\n")));
    }
}
