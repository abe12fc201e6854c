//! The MCP server loop: frames in, lifecycle, concurrent dispatch, frames out.
//!
//! Order matters only for the lifecycle, so `initialize`, `ping`, notifications and every
//! refusal are decided as each frame arrives; the work of a request then runs on the blocking
//! pool, concurrently with later ones. Every request id gets exactly one response, except one
//! the client cancelled while it ran.
//!
//! Memory stays bounded when the client floods us or stops reading: at most [`MAX_IN_FLIGHT`]
//! messages are between "read" and "answer queued", and at most [`MAX_HANDLERS`] requests run
//! at once. When the sink's queue is full, sending waits, permits are not returned, and the loop
//! stops reading input, so the client's own pipe fills and blocks it.

pub mod completion;
pub mod first_answer;
pub mod jsonrpc;
pub mod live_index;
pub mod methods;
pub mod notify;
pub mod pagination;
pub mod params;
pub mod prompts;
pub mod resources;
pub mod revision;
pub mod served;
pub mod skills_extension;
pub mod tools;

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use ports::transport::{Frame, FrameSink, FrameSource};
use serde_json::{Map, Value, json};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, broadcast};
use tokio::task::{JoinHandle, JoinSet};

use jsonrpc::{Id, Message, RpcError};
use notify::Change;
use revision::Revision;

/// Messages read but not yet answered (their answer not yet queued on the sink). Past this the
/// loop stops reading input. Each may hold one response in memory while the sink is full, so
/// this times the largest response (a 4 MiB record) bounds what a slow reader costs.
pub const MAX_IN_FLIGHT: usize = 8;

/// Requests whose work runs at once on the blocking pool. A request may hold a copy of a large
/// file while it runs; more handlers would not be faster on the cores we use.
pub const MAX_HANDLERS: usize = 4;

/// What a connection serves. The loop owns the lifecycle methods (`initialize`, `ping`,
/// `server/discover`), the notifications and the choice of era and revision; everything else is
/// parsed once into the handler's own method type and matched there, and answered in the
/// revision the loop chose. `call` runs on the blocking pool, so it may do filesystem work
/// directly.
pub trait Handler: Send + Sync + 'static {
    /// The methods served after the handshake (and to modern requests).
    type Method: Send + 'static;
    /// The method named `name`, or `None` for one this server does not have (-32601).
    fn method(&self, name: &str) -> Option<Self::Method>;
    /// The `initialize` result for the revision the loop negotiated.
    fn initialize(&self, revision: Revision) -> Value;
    /// The `server/discover` result (2026-07-28).
    fn discover(&self) -> Value;
    fn call(&self, revision: Revision, method: Self::Method, params: Map<String, Value>) -> Result<Value, RpcError>;
    /// The changes to what is served, as they happen (see `notify.rs`).
    fn changes(&self) -> broadcast::Receiver<Change>;
    /// Whether `resources/subscribe` (and a `subscriptions/listen` `resourceSubscriptions`) may
    /// name this URI: only resources whose updates the server watches.
    fn subscribable(&self, uri: &str) -> bool;
}

/// Why the server loop ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    /// End of input: everything owed was answered and flushed.
    InputClosed,
    /// The client stopped reading our output.
    OutputClosed,
}

/// One connection's lifecycle state.
#[derive(Debug)]
struct Session {
    /// The revision `initialize` negotiated (handshake era); unset until then.
    revision: OnceLock<Revision>,
    /// Requests running now, by id key, with the flag that cancels their response.
    in_flight: Mutex<HashMap<String, Arc<AtomicBool>>>,
    /// URIs of `resources/subscribe` (handshake era, 2025-03-26 and later).
    subscribed: Mutex<HashSet<String>>,
    /// Open `subscriptions/listen` streams (2026-07-28), by id key.
    listens: Mutex<HashMap<String, Listen>>,
    /// Slots for request work on the blocking pool ([`MAX_HANDLERS`]).
    handlers: Arc<Semaphore>,
    /// Slots for the long tools (`check_claims`, `match_job`): one fewer than the handlers, so
    /// a quick request always finds one (found in review: four long checks held every slot and
    /// a search waited 226 s).
    long: Arc<Semaphore>,
}

impl Default for Session {
    fn default() -> Self {
        Self {
            revision: OnceLock::new(),
            in_flight: Mutex::default(),
            subscribed: Mutex::default(),
            listens: Mutex::default(),
            handlers: Arc::new(Semaphore::new(MAX_HANDLERS)),
            long: Arc::new(Semaphore::new(MAX_HANDLERS - 1)),
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Session {
    fn in_flight(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<AtomicBool>>> {
        lock(&self.in_flight)
    }
}

/// One `subscriptions/listen` stream: its request id (the subscription id) and what it agreed
/// to deliver (2026-07-28 `SubscriptionFilter`).
#[derive(Debug, Clone)]
struct Listen {
    id: Id,
    tools: bool,
    prompts: bool,
    resources: bool,
    uris: Vec<String>,
}

impl Listen {
    fn wants(&self, change: &Change) -> bool {
        match change {
            Change::ToolsListChanged => self.tools,
            Change::PromptsListChanged => self.prompts,
            Change::ResourcesListChanged | Change::SkillResourcesChanged => self.resources,
            Change::ResourceUpdated(uri) => self.uris.contains(uri),
        }
    }

    /// The filter as the acknowledgement states it: only what was asked for and is honoured.
    fn filter(&self) -> Value {
        let mut f = Map::new();
        for (key, on) in [
            ("toolsListChanged", self.tools),
            ("promptsListChanged", self.prompts),
            ("resourcesListChanged", self.resources),
        ] {
            if on {
                f.insert(key.into(), json!(true));
            }
        }
        if !self.uris.is_empty() {
            f.insert("resourceSubscriptions".into(), json!(self.uris));
        }
        Value::Object(f)
    }
}

/// The `_meta` key that ties a notification to its `subscriptions/listen` stream (2026-07-28).
const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

/// What admitting one message produced.
enum Admitted {
    /// Answered (or, for a notification, handled) at once.
    Ready(Option<Value>),
    /// Running on the blocking pool.
    Running { id: Id, cancelled: Arc<AtomicBool>, handle: JoinHandle<Result<Value, RpcError>> },
}

impl Admitted {
    async fn response(self, session: &Session) -> Option<Value> {
        match self {
            Admitted::Ready(r) => r,
            Admitted::Running { id, cancelled, handle } => {
                let outcome = match handle.await {
                    Ok(outcome) => outcome,
                    Err(e) => Err(RpcError::internal(format!("request handler failed: {e}"))),
                };
                {
                    let mut running = session.in_flight();
                    if running.get(&id.key()).is_some_and(|f| Arc::ptr_eq(f, &cancelled)) {
                        running.remove(&id.key());
                    }
                }
                if cancelled.load(Ordering::SeqCst) {
                    tracing::debug!(id = %id.key(), "response suppressed: the client cancelled the request");
                    return None;
                }
                Some(match outcome {
                    Ok(result) => jsonrpc::success(&id, result),
                    Err(error) => jsonrpc::failure(Some(&id), &error),
                })
            }
        }
    }
}

/// Serves one connection until its input ends or its output closes.
pub async fn serve<Src, Snk, H>(mut source: Src, sink: Arc<Snk>, methods: Arc<H>) -> Ended
where
    Src: FrameSource,
    Snk: FrameSink + 'static,
    H: Handler,
{
    let session = Arc::new(Session::default());
    let in_flight = Arc::new(Semaphore::new(MAX_IN_FLIGHT));
    let mut tasks = JoinSet::new();
    // Stopped when `serve` returns, whichever way.
    let deliveries =
        AbortOnDrop(tokio::spawn(deliver_changes(methods.changes(), Arc::clone(&session), Arc::clone(&sink))));
    loop {
        // No permit, no read: answers that cannot be delivered stop the intake.
        let permit = tokio::select! {
            biased;
            () = sink.closed() => return Ended::OutputClosed,
            permit = Arc::clone(&in_flight).acquire_owned() => permit.expect("the in-flight semaphore is never closed"),
        };
        let frame = tokio::select! {
            biased;
            () = sink.closed() => return Ended::OutputClosed,
            frame = source.next_frame() => frame,
        };
        let Some(frame) = frame else { break };
        while tasks.try_join_next().is_some() {}
        match frame {
            Frame::TooLong { len, limit } => {
                tracing::warn!("discarded a message of more than {len} bytes (limit {limit})");
                let error =
                    RpcError::parse(format!("message longer than {limit} bytes was discarded (see --max-frame-bytes)"));
                send(&*sink, jsonrpc::failure(None, &error)).await;
            }
            Frame::Message(bytes) => accept(&bytes, &session, &methods, &sink, &mut tasks, permit).await,
        }
    }
    while tasks.join_next().await.is_some() {}
    drop(deliveries);
    // Open listen streams end gracefully with their result (2026-07-28 SubscriptionsListenResult).
    let listens: Vec<Listen> = lock(&session.listens).drain().map(|(_, l)| l).collect();
    for l in listens {
        let result = json!({ "resultType": "complete", "_meta": { SUBSCRIPTION_ID: l.id.value() } });
        send(&*sink, jsonrpc::success(&l.id, result)).await;
    }
    if sink.flush().await.is_err() {
        return Ended::OutputClosed;
    }
    Ended::InputClosed
}

struct AbortOnDrop(JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Sends each change the handler reports as the notifications this connection asked for.
async fn deliver_changes<Snk: FrameSink + ?Sized>(
    mut changes: broadcast::Receiver<Change>,
    session: Arc<Session>,
    sink: Arc<Snk>,
) {
    loop {
        match changes.recv().await {
            Ok(change) => deliver(&change, &session, &*sink).await,
            // Missed changes: every list may have changed (updates of subscribed resources are
            // not replayed; the client reads them again after a list change anyway).
            Err(broadcast::error::RecvError::Lagged(n)) => {
                tracing::warn!("{n} change notifications were dropped for a slow connection");
                for change in [Change::ToolsListChanged, Change::PromptsListChanged, Change::ResourcesListChanged] {
                    deliver(&change, &session, &*sink).await;
                }
            }
            Err(broadcast::error::RecvError::Closed) => return,
        }
    }
}

/// One change, to the handshake session (when its revision has the notification and, for a
/// resource, it subscribed) and to each listen stream that asked for it.
async fn deliver<Snk: FrameSink + ?Sized>(change: &Change, session: &Session, sink: &Snk) {
    let (method, uri) = match change {
        Change::ToolsListChanged => ("notifications/tools/list_changed", None),
        Change::PromptsListChanged => ("notifications/prompts/list_changed", None),
        Change::ResourcesListChanged | Change::SkillResourcesChanged => ("notifications/resources/list_changed", None),
        Change::ResourceUpdated(uri) => ("notifications/resources/updated", Some(uri.as_str())),
    };
    let params = |subscription: Option<&Id>| {
        let mut p = Map::new();
        if let Some(uri) = uri {
            p.insert("uri".into(), json!(uri));
        }
        if let Some(id) = subscription {
            p.insert("_meta".into(), json!({ SUBSCRIPTION_ID: id.value() }));
        }
        p
    };
    if let Some(&r) = session.revision.get() {
        let wanted = match uri {
            Some(uri) => r.has_resource_subscribe() && lock(&session.subscribed).contains(uri),
            None => r.has_list_changed() && (*change != Change::SkillResourcesChanged || r.has_skills_extension()),
        };
        if wanted {
            send(sink, jsonrpc::notification(method, params(None))).await;
        }
    }
    let targets: Vec<Id> = lock(&session.listens).values().filter(|l| l.wants(change)).map(|l| l.id.clone()).collect();
    for id in targets {
        send(sink, jsonrpc::notification(method, params(Some(&id)))).await;
    }
}

async fn send<Snk: FrameSink + ?Sized>(sink: &Snk, message: Value) {
    // The value is dropped before waiting for room on the sink: only the bytes wait.
    let bytes = serde_json::to_vec(&message);
    drop(message);
    match bytes {
        Ok(bytes) => {
            // A closed output is noticed by the loop through `closed()`; nothing to do here.
            let _ = sink.send(bytes).await;
        }
        Err(e) => tracing::error!("could not serialise a response: {e}"),
    }
}

/// Past this many bytes of a batch's answers, its remaining requests are answered with an
/// error instead of run.
const MAX_BATCH_ANSWER_BYTES: usize = 16 << 20;

async fn accept<Snk: FrameSink + 'static, H: Handler>(
    bytes: &[u8],
    session: &Arc<Session>,
    methods: &Arc<H>,
    sink: &Arc<Snk>,
    tasks: &mut JoinSet<()>,
    permit: OwnedSemaphorePermit,
) {
    let value: Value = match serde_json::from_slice(&jsonrpc::lone_surrogates_replaced(bytes)) {
        Ok(v) => v,
        Err(e) => {
            // The parser's place goes to the log; the client is told the kind of error only.
            tracing::debug!("unparseable frame: {e}");
            let kind = crate::graph_store::json_error_kind(&e);
            send(&**sink, jsonrpc::failure(None, &RpcError::parse(format!("not valid JSON ({kind})")))).await;
            return;
        }
    };
    match value {
        Value::Array(items) if items.is_empty() => {
            send(&**sink, jsonrpc::failure(None, &RpcError::invalid_request("an empty batch"))).await;
        }
        // A batch in a session whose revision removed batches (2025-06-18 and later) is one
        // Invalid Request; before `initialize` and in 2024-11-05 or 2025-03-26 it is answered.
        Value::Array(_) if session.revision.get().is_some_and(|r| !r.allows_batches()) => {
            let r = session.revision.get().map_or("", |r| r.as_str());
            let error = RpcError::invalid_request(format!(
                "JSON-RPC batches are not part of MCP {r} (removed in 2025-06-18); send one message per line"
            ));
            send(&**sink, jsonrpc::failure(None, &error)).await;
        }
        // 2026-07-28 has no batches either: one naming it in a member's `_meta` is refused whole.
        Value::Array(items) if items.iter().any(names_a_modern_revision) => {
            let error = RpcError::invalid_request(
                "a request that names its protocol version in _meta cannot be in a JSON-RPC batch (2026-07-28 has no \
                 batches); send one message per line",
            );
            send(&**sink, jsonrpc::failure(None, &error)).await;
        }
        // The members are answered one after the other, each answer serialised as it comes,
        // and past MAX_BATCH_ANSWER_BYTES a request is answered with an error instead of run:
        // started all at once and held until the last, 30,000 reads of the graph index in one
        // 3 MB frame took 709 MB, and 100,000 aborted the server (found in review).
        Value::Array(items) => {
            let (session, methods, sink) = (Arc::clone(session), Arc::clone(methods), Arc::clone(sink));
            // Every request's cancel flag is in place before the first member runs, so that a
            // `notifications/cancelled` read while earlier members run reaches one not yet
            // started (admitted one by one, a later member had no flag to set until it ran).
            let flags: Vec<Option<(String, Arc<AtomicBool>)>> = items
                .iter()
                .map(|v| {
                    let id = batched_request(v)?;
                    let flag = Arc::new(AtomicBool::new(false));
                    session.in_flight().insert(id.key(), Arc::clone(&flag));
                    Some((id.key(), flag))
                })
                .collect();
            tasks.spawn(async move {
                let _permit = permit;
                let mut answers: Vec<Vec<u8>> = Vec::new();
                let mut bytes = 0;
                for (v, flag) in items.into_iter().zip(flags) {
                    let cancelled = flag.as_ref().is_some_and(|(_, f)| f.load(Ordering::SeqCst));
                    let answer = match batched_initialize(&v) {
                        // Cancelled before its turn: neither run nor answered.
                        _ if cancelled => {
                            tracing::debug!("a batch member cancelled before it ran is not answered");
                            None
                        }
                        // 2025-03-26 basic/lifecycle: "The initialize request MUST NOT be part
                        // of a JSON-RPC batch"; the session stays uninitialized.
                        Some(id) => Some(jsonrpc::failure(
                            Some(&id),
                            &RpcError::invalid_request("initialize must not be part of a JSON-RPC batch; send it alone"),
                        )),
                        // Past the cap a request is answered without being run; anything else (a
                        // notification, an invalid member) is handled as before, at no cost.
                        None if bytes > MAX_BATCH_ANSWER_BYTES
                            && v.get("method").is_some_and(Value::is_string)
                            && v.get("id").and_then(Id::from_value).is_some() =>
                        {
                            v.get("id").and_then(Id::from_value).map(|id| {
                                jsonrpc::failure(
                                    Some(&id),
                                    &RpcError::new(jsonrpc::code::INTERNAL_ERROR, format!(
                                        "this batch's answers passed {} MiB; send this request again, on its own or in a smaller batch",
                                        MAX_BATCH_ANSWER_BYTES >> 20
                                    )),
                                )
                            })
                        }
                        None => {
                            let flag = flag.as_ref().map(|(_, f)| Arc::clone(f));
                            admit(v, &session, &methods, flag).response(&session).await
                        }
                    };
                    // A member that did not run (refused, answered at once) leaves no flag behind.
                    if let Some((key, flag)) = flag {
                        let mut running = session.in_flight();
                        if running.get(&key).is_some_and(|f| Arc::ptr_eq(f, &flag)) {
                            running.remove(&key);
                        }
                    }
                    if let Some(answer) = answer {
                        match serde_json::to_vec(&answer) {
                            Ok(b) => {
                                bytes += b.len();
                                answers.push(b);
                            }
                            Err(e) => tracing::error!("could not serialise a response: {e}"),
                        }
                    }
                }
                if !answers.is_empty() {
                    let mut frame = Vec::with_capacity(bytes + answers.len() + 1);
                    frame.push(b'[');
                    for (i, a) in answers.iter().enumerate() {
                        if i > 0 {
                            frame.push(b',');
                        }
                        frame.extend_from_slice(a);
                    }
                    frame.push(b']');
                    drop(answers);
                    let _ = sink.send(frame).await;
                }
            });
        }
        single => match admit(single, session, methods, None) {
            Admitted::Ready(None) => {}
            Admitted::Ready(Some(response)) => send(&**sink, response).await,
            running => {
                let (session, sink) = (Arc::clone(session), Arc::clone(sink));
                tasks.spawn(async move {
                    let _permit = permit;
                    if let Some(response) = running.response(&session).await {
                        send(&*sink, response).await;
                    }
                });
            }
        },
    }
}

/// Whether a batch member is a request whose `_meta` names a protocol version (a 2026-07-28
/// request, or one asking for a version we refuse: either way not for a batch).
fn names_a_modern_revision(member: &Value) -> bool {
    member.get("params").and_then(|p| p.get("_meta")).and_then(|m| m.get(revision::meta::PROTOCOL_VERSION)).is_some()
}

/// The id of a batch member that is a request (not `initialize`, which a batch refuses).
fn batched_request(member: &Value) -> Option<Id> {
    let method = member.get("method")?.as_str()?;
    (method != "initialize").then(|| member.get("id").and_then(Id::from_value)).flatten()
}

/// The id of a batch member that is an `initialize` request.
fn batched_initialize(member: &Value) -> Option<Id> {
    if member.get("method").and_then(Value::as_str) != Some("initialize") {
        return None;
    }
    member.get("id").and_then(Id::from_value)
}

/// Decides what one message gets, in arrival order; starts the work of a request.
/// `cancelled`: the flag a batch put in place for this request before it ran, if any.
fn admit<H: Handler>(
    value: Value,
    session: &Session,
    methods: &Arc<H>,
    cancelled: Option<Arc<AtomicBool>>,
) -> Admitted {
    let (id, method, params) = match jsonrpc::classify(value) {
        Message::Invalid { id, error } => return Admitted::Ready(Some(jsonrpc::failure(id.as_ref(), &error))),
        Message::Response => {
            tracing::debug!("a response from the client, to no request of ours, ignored");
            return Admitted::Ready(None);
        }
        Message::Notification { method, params } => {
            notification(&method, &params, session);
            return Admitted::Ready(None);
        }
        Message::Request { id, method, params } => (id, method, params),
    };
    let refuse = |error: RpcError| Admitted::Ready(Some(jsonrpc::failure(Some(&id), &error)));
    if method == "initialize" {
        // `initialize` starts the handshake era, even when it carries a modern `_meta`
        // (2026-07-28 basic/versioning: "An `initialize` request selects legacy semantics").
        if let Err(error) = initialize_params(&params) {
            return refuse(error);
        }
        let requested = params.get("protocolVersion").and_then(Value::as_str);
        let revision = Revision::negotiate(requested);
        if requested != Some(revision.as_str()) {
            tracing::info!("client asked for protocol {requested:?}; answering with {}", revision.as_str());
        }
        if session.revision.set(revision).is_err() {
            return refuse(RpcError::invalid_request("the session is already initialized; send initialize only once"));
        }
        return Admitted::Ready(Some(jsonrpc::success(&id, methods.initialize(revision))));
    }
    // The era of every other request: one whose `_meta` names a protocol version is modern and
    // served by itself; anything else belongs to the handshake era.
    let revision = match modern_revision(&params) {
        Err(error) => return refuse(error),
        Ok(Some(modern)) => {
            if modern.removed_method(&method) {
                return refuse(RpcError::method_not_found(&method));
            }
            modern
        }
        Ok(None) => match method.as_str() {
            "ping" => return Admitted::Ready(Some(jsonrpc::success(&id, json!({})))),
            // Answered in either era, before or after `initialize`: it is how a client probes.
            "server/discover" => return Admitted::Ready(Some(jsonrpc::success(&id, methods.discover()))),
            name => {
                let loop_method = matches!(name, "resources/subscribe" | "resources/unsubscribe")
                    && session.revision.get().is_some_and(|r| r.has_resource_subscribe());
                if !loop_method && methods.method(name).is_none() {
                    return refuse(RpcError::method_not_found(name));
                }
                let Some(&revision) = session.revision.get() else {
                    return refuse(RpcError::invalid_request(format!(
                        "the server is not initialized; send initialize before {name}"
                    )));
                };
                revision
            }
        },
    };
    if method == "server/discover" {
        return Admitted::Ready(Some(jsonrpc::success(&id, methods.discover())));
    }
    if revision.is_modern() && method == "subscriptions/listen" {
        return listen(id, &params, session, &**methods);
    }
    if revision.has_resource_subscribe() && matches!(method.as_str(), "resources/subscribe" | "resources/unsubscribe") {
        return Admitted::Ready(Some(match subscribe(&method, &params, session, &**methods) {
            Ok(()) => jsonrpc::success(&id, json!({})),
            Err(error) => jsonrpc::failure(Some(&id), &error),
        }));
    }
    let method_name = method.clone();
    let Some(method) = methods.method(&method) else { return refuse(RpcError::method_not_found(&method)) };
    let cancelled = cancelled.unwrap_or_default();
    session.in_flight().insert(id.key(), Arc::clone(&cancelled));
    let methods = Arc::clone(methods);
    let long = (method_name == "tools/call"
        && matches!(params.get("name").and_then(Value::as_str), Some("check_claims" | "match_job")))
    .then_some(&session.long);
    let handle = run_limited(&session.handlers, long, &cancelled, move || methods.call(revision, method, params));
    Admitted::Running { id, cancelled, handle }
}

/// `resources/subscribe` and `resources/unsubscribe` (handshake era): `{uri}` of a resource the
/// server watches; the answer is `{}`, and `notifications/resources/updated` follows each change.
fn subscribe<H: Handler>(
    method: &str,
    params: &Map<String, Value>,
    session: &Session,
    methods: &H,
) -> Result<(), RpcError> {
    let Some(Value::String(uri)) = params.get("uri") else {
        return Err(RpcError::invalid_params("\"uri\" must be a string"));
    };
    if method == "resources/unsubscribe" {
        lock(&session.subscribed).remove(uri);
        return Ok(());
    }
    if !methods.subscribable(uri) {
        return Err(RpcError::invalid_params(format!(
            "{uri} cannot be subscribed to (updates are sent for career-context://current and vitaegraph://index)"
        ))
        .with_data(json!({ "uri": uri })));
    }
    lock(&session.subscribed).insert(uri.clone());
    Ok(())
}

/// `subscriptions/listen` (2026-07-28): registers the stream and acknowledges it with the
/// notification types it agreed to; the request stays open (no response) until the client
/// cancels it, or ends with its result at end of input.
fn listen<H: Handler>(id: Id, params: &Map<String, Value>, session: &Session, methods: &H) -> Admitted {
    let Some(Value::Object(filter)) = params.get("notifications") else {
        let error = RpcError::invalid_params("\"notifications\" (a SubscriptionFilter object) is required");
        return Admitted::Ready(Some(jsonrpc::failure(Some(&id), &error)));
    };
    let on = |key: &str| filter.get(key) == Some(&Value::Bool(true));
    let uris = match filter.get("resourceSubscriptions") {
        Some(Value::Array(items)) => {
            items.iter().filter_map(Value::as_str).filter(|u| methods.subscribable(u)).map(str::to_owned).collect()
        }
        _ => Vec::new(),
    };
    let l = Listen {
        id: id.clone(),
        tools: on("toolsListChanged"),
        prompts: on("promptsListChanged"),
        resources: on("resourcesListChanged"),
        uris,
    };
    let ack = jsonrpc::notification(
        "notifications/subscriptions/acknowledged",
        json!({ "_meta": { SUBSCRIPTION_ID: id.value() }, "notifications": l.filter() })
            .as_object()
            .cloned()
            .unwrap_or_default(),
    );
    if lock(&session.listens).insert(id.key(), l).is_some() {
        tracing::warn!(id = %id.key(), "a listen stream reused the id of an open one; the new one replaces it");
    }
    Admitted::Ready(Some(ack))
}

/// The revision a request's 2026-07-28 envelope names: `None` without
/// `_meta["io.modelcontextprotocol/protocolVersion"]` (a handshake-era request; legacy `_meta`
/// only ever holds `progressToken`), else the checks of 2026-07-28 basic/index ("Per-request
/// protocol fields"): the version a string (-32602) that this server serves per request
/// (-32022, naming the supported list in `error.data`, the same list `server/discover` gives),
/// then the other keys (-32602).
fn modern_revision(params: &Map<String, Value>) -> Result<Option<Revision>, RpcError> {
    use revision::meta;
    let envelope = match params.get("_meta") {
        None => return Ok(None),
        Some(Value::Object(envelope)) => envelope,
        // Every revision defines `_meta` as an object.
        Some(_) => return Err(RpcError::invalid_params("_meta must be an object")),
    };
    let Some(version) = envelope.get(meta::PROTOCOL_VERSION) else { return Ok(None) };
    // A version this server does not serve is -32022 whatever else the envelope holds: a later
    // revision may shape `_meta` otherwise, and its client falls back only on -32022 (2026-07-28
    // basic/versioning: the server MUST answer an unimplemented version with it; found in
    // review, a `_meta` without `clientCapabilities` got -32602, which reads as a legacy server).
    let Value::String(version) = version else {
        return Err(RpcError::invalid_params(format!("_meta {:?} must be a string", meta::PROTOCOL_VERSION)));
    };
    let Some(revision) = Revision::parse(version).filter(|r| Revision::MODERN.contains(r)) else {
        return Err(RpcError::unsupported_protocol_version(version, &Revision::MODERN.map(Revision::as_str)));
    };
    match envelope.get(meta::CLIENT_CAPABILITIES) {
        Some(Value::Object(_)) => {}
        Some(_) => {
            return Err(RpcError::invalid_params(format!("_meta {:?} must be an object", meta::CLIENT_CAPABILITIES)));
        }
        None => {
            return Err(RpcError::invalid_params(format!(
                "_meta is missing the required key {:?}",
                meta::CLIENT_CAPABILITIES
            )));
        }
    }
    if let Some(info) = envelope.get(meta::CLIENT_INFO) {
        implementation(info).map_err(|e| RpcError::invalid_params(format!("_meta {:?} {e}", meta::CLIENT_INFO)))?;
    }
    Ok(Some(revision))
}

/// Checks an `Implementation` (`clientInfo`) where it is given: an object whose `name` and
/// `version`, where given, are strings (`null` counts as not given).
fn implementation(info: &Value) -> Result<(), &'static str> {
    let string_or_absent = |v: Option<&Value>| v.is_none_or(|v| v.is_string() || v.is_null());
    match info {
        Value::Null => Ok(()),
        Value::Object(info) if string_or_absent(info.get("name")) && string_or_absent(info.get("version")) => Ok(()),
        Value::Object(_) => Err("must have a string name and a string version"),
        _ => Err("must be an object with a name and a version"),
    }
}

/// Checks the types of `initialize`'s params where they are given: `protocolVersion` a string,
/// `capabilities` an object, `clientInfo` an `Implementation`. What is missing (or `null`) is
/// not refused: an `initialize` without them is still answered (with the contract's
/// 2024-11-05 when no version is asked for), as before.
fn initialize_params(params: &Map<String, Value>) -> Result<(), RpcError> {
    if params.get("protocolVersion").is_some_and(|v| !v.is_string() && !v.is_null()) {
        return Err(RpcError::invalid_params("initialize: protocolVersion must be a string"));
    }
    if params.get("capabilities").is_some_and(|v| !v.is_object() && !v.is_null()) {
        return Err(RpcError::invalid_params("initialize: capabilities must be an object"));
    }
    if let Some(info) = params.get("clientInfo") {
        implementation(info).map_err(|e| RpcError::invalid_params(format!("initialize: clientInfo {e}")))?;
    }
    Ok(())
}

/// Runs `work` on the blocking pool once a handler slot is free; a request cancelled while it
/// waited for a slot is not run (its response is suppressed anyway).
fn run_limited<F>(
    slots: &Arc<Semaphore>,
    long: Option<&Arc<Semaphore>>,
    cancelled: &Arc<AtomicBool>,
    work: F,
) -> JoinHandle<Result<Value, RpcError>>
where
    F: FnOnce() -> Result<Value, RpcError> + Send + 'static,
{
    let (slots, long, cancelled) = (Arc::clone(slots), long.map(Arc::clone), Arc::clone(cancelled));
    tokio::spawn(async move {
        // A long request first takes one of the long slots, then a handler slot: never all
        // handler slots at once.
        let _long = match long {
            Some(long) => Some(long.acquire_owned().await.map_err(RpcError::internal)?),
            None => None,
        };
        let _slot = slots.acquire_owned().await.map_err(RpcError::internal)?;
        if cancelled.load(Ordering::SeqCst) {
            // Never sent: the response of a cancelled request is suppressed.
            return Ok(Value::Null);
        }
        // The work sees its flag (`crate::cancel`): a cancelled check stops, not only its answer.
        let flag = Arc::clone(&cancelled);
        tokio::task::spawn_blocking(move || crate::cancel::running(flag, work))
            .await
            .unwrap_or_else(|e| Err(RpcError::internal(format!("request handler failed: {e}"))))
    })
}

fn notification(method: &str, params: &Map<String, Value>, session: &Session) {
    match method {
        "notifications/initialized" => tracing::debug!("client finished initialization"),
        "notifications/cancelled" => {
            let Some(id) = params.get("requestId").and_then(Id::from_value) else {
                tracing::debug!("cancellation without a usable requestId ignored");
                return;
            };
            if lock(&session.listens).remove(&id.key()).is_some() {
                tracing::debug!(id = %id.key(), "listen stream ended by the client");
            }
            if let Some(flag) = session.in_flight().get(&id.key()) {
                flag.store(true, Ordering::SeqCst);
                tracing::debug!(id = %id.key(), "request cancelled by the client");
            }
        }
        other => tracing::debug!("notification {other} ignored"),
    }
}

#[cfg(test)]
mod tests;
