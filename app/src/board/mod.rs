//! `vitaecontext board`: a local web application over the same use cases as the CLI and the
//! server (doctor, Career Context validation, graph index and read, skills, grounding, search).
//!
//! One axum router on tokio, server-rendered HTML (`pages.rs`, maud: checked at compile time,
//! every interpolation escaped), the stylesheet and the little script embedded in the binary
//! (`assets/`). Every request passes [`guard::check`] first: the Host header, the session
//! cookie (got once by the secret token of the printed URL), and for a POST the Origin. The
//! handlers run the use cases on the blocking pool, since the filesystem port blocks.

mod guard;
mod markdown;
mod pages;
mod skills;

use std::net::{IpAddr, SocketAddr};
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use axum::Router;
use axum::extract::{DefaultBodyLimit, Form, Query, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use miette::{IntoDiagnostic, WrapErr, miette};
use ports::Clock;
use ports::fs::FileSystem;
use serde::Deserialize;

use crate::cli::BoardArgs;
use crate::commands::{Failure, Outcome};
use crate::mcp::served::Served;
use crate::sources::Sources;

/// The largest form accepted: a draft or posting of 1 MiB (the `check` limit), percent-encoded.
const MAX_FORM_BYTES: usize = 4 * 1024 * 1024;

/// What the handlers share: the files as the server sees them, the clock, the guard's secrets,
/// and what the last re-index said.
pub struct Board {
    served: Served,
    sources: Sources,
    fs: Arc<dyn FileSystem>,
    clock: Arc<dyn Clock>,
    guard: guard::Guard,
    last_index: Mutex<Option<pages::IndexNote>>,
    checks: Checks,
}

/// The last `doctor` report and whether a new one is being made. A check reads every record
/// (at 10,000 records, about as long as `graph index` with nothing changed), so the overview
/// shows the last report and starts a new one in the background instead of waiting for it.
#[derive(Default)]
struct Checks {
    last: Mutex<Option<Arc<Checked>>>,
    running: std::sync::atomic::AtomicBool,
}

/// One `doctor` report, when it was made and how long it took.
pub struct Checked {
    pub report: Arc<crate::usecase::doctor::Report>,
    pub at: Instant,
    pub took: std::time::Duration,
}

impl Checks {
    /// The last report (one is made at start, so there always is one).
    fn last(&self) -> Arc<Checked> {
        let last = self.last.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone();
        last.unwrap_or_else(|| {
            Arc::new(Checked { report: Arc::default(), at: Instant::now(), took: std::time::Duration::ZERO })
        })
    }
}

impl Board {
    /// Makes a `doctor` report now and keeps it.
    fn check_now(&self) {
        let started = Instant::now();
        let report = pages::doctor_report(self);
        let checked = Checked { report: Arc::new(report), at: Instant::now(), took: started.elapsed() };
        *self.checks.last.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = Some(Arc::new(checked));
    }

    /// Starts a new report on a thread of its own unless one is being made or the last is under
    /// a second old.
    fn check_soon(self: &Arc<Self>) {
        use std::sync::atomic::Ordering;
        if self.checks.last().at.elapsed() < std::time::Duration::from_secs(1)
            || self.checks.running.swap(true, Ordering::AcqRel)
        {
            return;
        }
        let board = Arc::clone(self);
        std::thread::spawn(move || {
            board.check_now();
            board.checks.running.store(false, Ordering::Release);
        });
    }
}

impl std::fmt::Debug for Checks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Checks").finish_non_exhaustive()
    }
}

impl std::fmt::Debug for Checked {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Checked").field("at", &self.at).field("took", &self.took).finish_non_exhaustive()
    }
}

impl std::fmt::Debug for Board {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Board").field("sources", &self.sources).finish_non_exhaustive()
    }
}

impl Board {
    pub fn new(fs: Arc<dyn FileSystem>, clock: Arc<dyn Clock>, sources: Sources, guard: guard::Guard) -> Self {
        Board {
            served: Served::new(Arc::clone(&fs), sources.clone()),
            sources,
            fs,
            clock,
            guard,
            last_index: Mutex::new(None),
            checks: Checks::default(),
        }
    }
}

/// Whether `host` may be listened on without `--i-understand-nonlocal`.
fn is_loopback(host: &str) -> bool {
    host.eq_ignore_ascii_case("localhost") || host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// `vitaecontext board`: binds, prints the URL with its token, serves until Ctrl-C.
pub fn run(args: BoardArgs) -> Outcome {
    if !is_loopback(&args.host) && !args.i_understand_nonlocal {
        let host = &args.host;
        return Err(Failure::usage(miette!(
            help = format!(
                "the board shows your career files and can change your skills; keep it on 127.0.0.1, or pass \
                 --i-understand-nonlocal if every machine that can reach {host} may see them"
            ),
            "--host {host} is not a loopback address"
        )));
    }
    let sources = Sources::from_process(args.context.as_deref(), args.root.as_deref())
        .with_skills(&args.skills.dirs(), args.skills.config.as_deref());
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .into_diagnostic()
        .wrap_err("could not start the async runtime")
        .map_err(Failure::failed)?;
    runtime.block_on(async move {
        let bind_host = if args.host.eq_ignore_ascii_case("localhost") { "127.0.0.1" } else { args.host.as_str() };
        let ip: IpAddr = bind_host.parse().map_err(|_| {
            Failure::usage(miette!(help = "give an IP address, e.g. --host 127.0.0.1", "--host {} is not an IP address", &args.host))
        })?;
        let listener = tokio::net::TcpListener::bind(SocketAddr::new(ip, args.port)).await.map_err(|e| {
            Failure::failed(miette!(
                help = "another program (or another board) listens there; pass --port with another number, or 0 for any free one",
                "could not listen on {}:{}: {e}",
                args.host,
                args.port
            ))
        })?;
        let addr = listener.local_addr().into_diagnostic().map_err(Failure::failed)?;
        let guard = guard::Guard::new(&args.host, addr)?;
        let url = guard.login_url();
        let board = Arc::new(Board::new(
            Arc::new(fs_std::StdFs::new()),
            Arc::new(fs_std::SystemClock::default()),
            sources,
            guard,
        ));
        // The overview's first report, before anyone can ask for it.
        let first = Arc::clone(&board);
        tokio::task::spawn_blocking(move || first.check_now()).await.into_diagnostic().map_err(Failure::failed)?;
        crate::commands::out(&format!("The board is at {url}\n(open that address once; the page is then at {})\nCtrl-C stops it.\n", board.guard.base_url()));
        if args.open {
            open_browser(&url);
        }
        let mut signals = crate::signals::Signals::listen();
        let server = axum::serve(listener, router(board)).with_graceful_shutdown(async move {
            let signal = signals.next().await;
            tracing::info!("board stopped by {signal}");
        });
        server.await.into_diagnostic().wrap_err("the board stopped").map_err(Failure::failed)?;
        Ok(ExitCode::SUCCESS)
    })
}

/// Asks the desktop to open `url` (xdg-open, open, start); a failure is a line on stderr, the
/// URL printed above still works.
fn open_browser(url: &str) {
    let (program, args): (&str, Vec<&str>) = if cfg!(target_os = "macos") {
        ("open", vec![url])
    } else if cfg!(windows) {
        ("cmd", vec!["/C", "start", "", url])
    } else {
        ("xdg-open", vec![url])
    };
    let spawned = std::process::Command::new(program)
        .args(&args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
    if let Err(e) = spawned {
        crate::commands::err(&format!("could not open a browser ({program}: {e}); open the URL above yourself\n"));
    }
}

/// Every route, behind the guard.
pub fn router(board: Arc<Board>) -> Router {
    Router::new()
        .route("/", get(overview))
        .route("/reindex", post(reindex))
        .route("/skills", get(skills::list))
        .route("/skills/edit", get(skills::edit))
        .route("/skills/save", post(skills::save))
        .route("/skills/restore", post(skills::restore))
        .route("/skills/preview", get(skills::preview))
        .route("/records", get(records))
        .route("/records/view", get(record))
        .route("/check", get(check_form).post(check))
        .route("/assets/board.css", get(css))
        .route("/assets/board.js", get(js))
        .fallback(not_found)
        .layer(DefaultBodyLimit::max(MAX_FORM_BYTES))
        .layer(axum::middleware::from_fn_with_state(Arc::clone(&board), guard::check))
        .with_state(board)
}

/// Runs `work` on the blocking pool (the filesystem port blocks); a panic is a 500 page.
async fn blocking(board: &Arc<Board>, work: impl FnOnce(&Arc<Board>) -> Response + Send + 'static) -> Response {
    let board = Arc::clone(board);
    let started = Instant::now();
    let response = tokio::task::spawn_blocking(move || work(&board)).await.unwrap_or_else(|e| {
        tracing::error!("a board page failed: {e}");
        pages::error_page(
            StatusCode::INTERNAL_SERVER_ERROR,
            "Something went wrong",
            "The page could not be made; the details are on the terminal running the board.",
        )
    });
    with_timing(response, started)
}

/// `Server-Timing: app;dur=MS`: the server's time for the page, which the browser's developer
/// tools show and the timing test reads.
fn with_timing(mut response: Response, started: Instant) -> Response {
    let ms = started.elapsed().as_secs_f64() * 1000.0;
    if let Ok(v) = header::HeaderValue::from_str(&format!("app;dur={ms:.2}")) {
        response.headers_mut().insert("server-timing", v);
    }
    response
}

async fn overview(State(board): State<Arc<Board>>) -> Response {
    blocking(&board, |b| {
        let page = pages::overview(b).into_response();
        b.check_soon();
        page
    })
    .await
}

async fn reindex(State(board): State<Arc<Board>>) -> Response {
    blocking(&board, |b| {
        let note = pages::reindex(b);
        *b.last_index.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = Some(note);
        // The index changed what doctor finds: the overview shown next says so.
        b.check_now();
        Redirect::to("/#graph").into_response()
    })
    .await
}

#[derive(Debug, Deserialize)]
struct SearchQuery {
    #[serde(default)]
    q: String,
    #[serde(default, rename = "type")]
    kind: String,
    #[serde(default)]
    tag: String,
}

async fn records(State(board): State<Arc<Board>>, Query(q): Query<SearchQuery>) -> Response {
    blocking(&board, move |b| pages::records(b, &q.q, &q.kind, &q.tag)).await
}

#[derive(Debug, Deserialize)]
struct RecordQuery {
    id: String,
}

async fn record(State(board): State<Arc<Board>>, Query(q): Query<RecordQuery>) -> Response {
    blocking(&board, move |b| pages::record(b, &q.id)).await
}

async fn check_form(State(board): State<Arc<Board>>) -> Response {
    blocking(&board, |_| pages::check_form().into_response()).await
}

#[derive(Debug, Deserialize)]
struct CheckForm {
    text: String,
    kind: String,
}

async fn check(State(board): State<Arc<Board>>, Form(form): Form<CheckForm>) -> Response {
    blocking(&board, move |b| pages::check(b, &form.text, &form.kind)).await
}

async fn not_found() -> Response {
    pages::error_page(StatusCode::NOT_FOUND, "Not found", "There is no such page on the board.")
}

async fn css() -> Response {
    ([(header::CONTENT_TYPE, "text/css; charset=utf-8")], include_str!("assets/board.css")).into_response()
}

async fn js() -> Response {
    ([(header::CONTENT_TYPE, "text/javascript; charset=utf-8")], include_str!("assets/board.js")).into_response()
}

/// A path for people: the file's path, as given.
fn shown(p: &std::path::Path) -> String {
    p.display().to_string()
}
