//! `vitaecontext doctor`: runs every setup check and prints the findings once, through
//! `report.rs`, then `N errors, M warnings`; or all of it as JSON.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Command, ExitCode, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use domain::career::Severity;
use ports::Clock;
use ports::fs::FileSystem;

use super::{Outcome, out, pretty};
use crate::report::{self, Finding};
use crate::usecase::doctor::{self as usecase, DoctorFinding, Inputs, Report, Source};

/// How long a client's command may take to answer `--version` or `initialize`, and to exit
/// once its stdin is closed.
pub const PROBE_TIMEOUT: Duration = Duration::from_secs(5);

pub fn run(fs: &dyn FileSystem, clock: &dyn Clock, inputs: &Inputs<'_>, json: bool) -> Outcome {
    let report = usecase::run(fs, clock, inputs, &ProcessProbe { timeout: PROBE_TIMEOUT });
    if json {
        out(&format!("{}\n", pretty(&report.json())));
    } else {
        out(&render(&report, 100, report::stdout_color()));
    }
    Ok(if report.count(Severity::Error) > 0 { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

/// The report for a person: what was selected, every finding, the counts.
pub fn render(report: &Report, width: usize, color: bool) -> String {
    let mut text = info(report);
    text.push('\n');
    let mut context: Option<report::ContextText> = None;
    let findings: Vec<Finding> = report.findings.iter().map(|f| finding(f, &mut context)).collect();
    text.push_str(&report::render_all(&findings, width, color));
    let (errors, warnings) = (report.count(Severity::Error), report.count(Severity::Warning));
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    text.push_str(&format!("{}, {}\n", plural(errors, "error"), plural(warnings, "warning")));
    text
}

/// One line per part of the setup: which rule chose what, or why nothing.
fn info(r: &Report) -> String {
    let mut text = String::new();
    let c = &r.context;
    text.push_str(&match (&c.path, c.status) {
        (Some(p), _) => format!("Career Context: {} ({})\n", p.display(), c.rule.unwrap_or_default()),
        (None, "ambiguous") => format!("Career Context: none chosen among {} candidates\n", c.candidates.len()),
        _ => "Career Context: none found\n".into(),
    });
    let g = &r.graph;
    text.push_str(&match &g.root {
        Some(root) => {
            let state = match (g.records, g.valid) {
                (Some(n), Some(valid)) => {
                    format!(": {n} record(s), {}, index {}", if valid { "valid" } else { "invalid" }, g.index)
                }
                _ => String::new(),
            };
            format!("VitaeGraph: {} ({}){state}\n", root.display(), g.rule)
        }
        None => "VitaeGraph: none (HOME is not set)\n".into(),
    });
    let sh = &r.sharing;
    let redact = if sh.redact.is_empty() {
        "nothing redacted".to_owned()
    } else {
        format!("redacted: {}", sh.redact.join(", "))
    };
    let mut shared = format!(
        "Shared with assistants: QUICK REFERENCE {}",
        if sh.shared_keys.is_empty() { "(none)".to_owned() } else { sh.shared_keys.join(", ") }
    );
    if !sh.redacted_keys.is_empty() {
        shared.push_str(&format!(" (left out: {})", sh.redacted_keys.join(", ")));
    }
    text.push_str(&format!("{shared}; {redact}\n"));
    text.push_str(&if sh.private_records.is_empty() {
        "Private records: none\n".to_owned()
    } else {
        format!(
            "Private records: {} ({}), flagged to assistants as never to publish and left out of exports\n",
            sh.private_records.len(),
            sh.private_records.join(", ")
        )
    });
    let layers: Vec<String> =
        r.skills.layers.iter().map(|(name, _, priority)| format!("{name} (priority {priority})")).collect();
    text.push_str(&if layers.is_empty() {
        "Skills: no layers\n".to_owned()
    } else {
        format!("Skills: {} skill(s) served from {}\n", r.skills.served, layers.join(", "))
    });
    if r.clients.is_empty() {
        text.push_str("Clients: none registers vitaecontext\n");
    }
    for client in &r.clients {
        // A passing live check says so: it printed nothing (found in review).
        let live = match client.live {
            Some(true) => "; live check: it answered initialize",
            Some(false) => "; live check: it did not answer (below)",
            None => "",
        };
        let version = client.version.as_ref().map_or(String::new(), |v| format!("; it says {v:?}"));
        text.push_str(&format!(
            "Client {}: {} runs {} {}{live}{version}\n",
            client.client,
            client.config.display(),
            client.command,
            client.args.join(" ")
        ));
    }
    text
}

/// A finding as `report.rs` renders it: the domain's own diagnostics through their renderers.
/// `context`: the Career Context text the last context finding was shown with.
fn finding(f: &DoctorFinding, context: &mut Option<report::ContextText>) -> Finding {
    let path = f.file.as_ref().map(|p| p.display().to_string()).unwrap_or_default();
    let warning = f.severity == Severity::Warning;
    match &f.source {
        Source::Context { text, validation, diagnostic } => {
            let shown = match context.take() {
                Some(shown) if shown.is_of(text) => shown,
                _ => report::ContextText::new(text),
            };
            let finding = report::context_finding(&path, &shown, diagnostic, validation);
            *context = Some(shown);
            finding
        }
        Source::Graph { diagnostic, text, other_text } => {
            report::graph_finding(diagnostic, warning, text.clone(), other_text.clone())
        }
        Source::Skill { text, problem, code } => {
            report::skill_finding(&path, text, problem, code, f.help.clone()).with_severity(warning)
        }
        Source::Text { text, span, label } => report::plain_finding(
            &f.code,
            warning,
            f.message.clone(),
            f.help.clone(),
            Some((&path, text, span.clone(), label)),
        ),
        Source::None => report::plain_finding(&f.code, warning, f.message.clone(), f.help.clone(), None),
    }
}

/// Runs a client's command as a child process, bounded by `timeout`.
#[derive(Debug)]
struct ProcessProbe {
    timeout: Duration,
}

/// Reads `child`'s stdout lines on a thread; the receiver gets each line, then the end.
fn lines_of(stdout: impl Read + Send + 'static) -> mpsc::Receiver<std::io::Result<String>> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            if tx.send(line).is_err() {
                return;
            }
        }
    });
    rx
}

/// Whether `line` is one JSON-RPC 2.0 message (an object, or a batch of them).
fn is_jsonrpc(line: &str) -> bool {
    let one = |v: &serde_json::Value| v.get("jsonrpc").and_then(|j| j.as_str()) == Some("2.0");
    match serde_json::from_str::<serde_json::Value>(line) {
        Ok(serde_json::Value::Array(items)) => !items.is_empty() && items.iter().all(one),
        Ok(v) => one(&v),
        Err(_) => false,
    }
}

impl usecase::Probe for ProcessProbe {
    fn version(&self, command: &Path, args: &[String]) -> Option<String> {
        let mut child = Command::new(command)
            .args(args)
            .arg("--version")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .ok()?;
        let rx = lines_of(child.stdout.take()?);
        let line = rx.recv_timeout(self.timeout).ok().and_then(Result::ok);
        let _ = child.kill();
        let _ = child.wait();
        line.map(|l| l.trim().to_owned())
    }

    fn initialize(&self, command: &Path, args: &[String]) -> Result<(), String> {
        let mut child = Command::new(command)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("it could not be started: {e}"))?;
        let result = (|| {
            let rx = lines_of(child.stdout.take().ok_or("no stdout")?);
            let mut stdin = child.stdin.take().ok_or("no stdin")?;
            let request = serde_json::json!({
                "jsonrpc": "2.0", "id": 1, "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "vitaecontext-doctor", "version": env!("CARGO_PKG_VERSION")},
                },
            });
            writeln!(stdin, "{request}").map_err(|e| format!("it did not read its stdin: {e}"))?;
            let first = match rx.recv_timeout(self.timeout) {
                Ok(Ok(line)) => line,
                Ok(Err(e)) => return Err(format!("its stdout could not be read: {e}")),
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    return Err(format!("no answer within {} s", self.timeout.as_secs()));
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => return Err("it exited without answering".into()),
            };
            let answer: serde_json::Value =
                serde_json::from_str(&first).map_err(|_| format!("its first stdout line is not JSON: {first:.120}"))?;
            if answer.get("jsonrpc").and_then(|j| j.as_str()) != Some("2.0")
                || answer.get("id") != Some(&serde_json::json!(1))
                || answer.get("result").is_none()
            {
                return Err(format!("its first stdout line is not an initialize result: {first:.120}"));
            }
            // End of input: the server answers what it owes and exits; nothing else may appear.
            drop(stdin);
            loop {
                match rx.recv_timeout(self.timeout) {
                    Ok(Ok(line)) if line.trim().is_empty() || is_jsonrpc(&line) => {}
                    Ok(Ok(line)) => {
                        return Err(format!("it wrote something other than JSON-RPC on stdout: {line:.120}"));
                    }
                    Ok(Err(e)) => return Err(format!("its stdout could not be read: {e}")),
                    Err(mpsc::RecvTimeoutError::Disconnected) => return Ok(()),
                    Err(mpsc::RecvTimeoutError::Timeout) => {
                        return Err(format!(
                            "it did not exit within {} s of its stdin closing",
                            self.timeout.as_secs()
                        ));
                    }
                }
            }
        })();
        let _ = child.kill();
        let _ = child.wait();
        result
    }
}

#[cfg(test)]
mod tests;
