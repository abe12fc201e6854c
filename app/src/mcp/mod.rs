//! The MCP server loop: frames in, lifecycle, concurrent dispatch, frames out.
//!
//! Order matters only for the lifecycle, so `initialize`, `ping`, notifications and every
//! refusal are decided as each frame arrives; the work of a request then runs on the blocking
//! pool, concurrently with later ones. Every request id gets exactly one response, except one
//! the client cancelled while it ran.

pub mod completion;
pub mod jsonrpc;
pub mod methods;
pub mod pagination;
pub mod params;
pub mod prompts;
pub mod resources;
pub mod revision;
pub mod tools;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use ports::transport::{Frame, FrameSink, FrameSource};
use serde_json::{Map, Value, json};
use tokio::task::{JoinHandle, JoinSet};

use jsonrpc::{Id, Message, RpcError};
use revision::Revision;

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
#[derive(Debug, Default)]
struct Session {
    /// The revision `initialize` negotiated (handshake era); unset until then.
    revision: OnceLock<Revision>,
    /// Requests running now, by id key, with the flag that cancels their response.
    in_flight: Mutex<HashMap<String, Arc<AtomicBool>>>,
}

impl Session {
    fn in_flight(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<AtomicBool>>> {
        self.in_flight.lock().unwrap_or_else(|p| p.into_inner())
    }
}

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
    let mut tasks = JoinSet::new();
    loop {
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
            Frame::Message(bytes) => accept(&bytes, &session, &methods, &sink, &mut tasks).await,
        }
    }
    while tasks.join_next().await.is_some() {}
    if sink.flush().await.is_err() {
        return Ended::OutputClosed;
    }
    Ended::InputClosed
}

async fn send<Snk: FrameSink + ?Sized>(sink: &Snk, message: Value) {
    match serde_json::to_vec(&message) {
        Ok(bytes) => {
            // A closed output is noticed by the loop through `closed()`; nothing to do here.
            let _ = sink.send(bytes).await;
        }
        Err(e) => tracing::error!("could not serialise a response: {e}"),
    }
}

async fn accept<Snk: FrameSink + 'static, H: Handler>(
    bytes: &[u8],
    session: &Arc<Session>,
    methods: &Arc<H>,
    sink: &Arc<Snk>,
    tasks: &mut JoinSet<()>,
) {
    let value: Value = match serde_json::from_slice(bytes) {
        Ok(v) => v,
        Err(e) => {
            tracing::debug!("unparseable frame: {e}");
            send(&**sink, jsonrpc::failure(None, &RpcError::parse(e))).await;
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
        Value::Array(items) => {
            let admitted: Vec<Admitted> = items.into_iter().map(|v| admit(v, session, methods)).collect();
            let (session, sink) = (Arc::clone(session), Arc::clone(sink));
            tasks.spawn(async move {
                let mut responses = Vec::new();
                for a in admitted {
                    responses.extend(a.response(&session).await);
                }
                if !responses.is_empty() {
                    send(&*sink, Value::Array(responses)).await;
                }
            });
        }
        single => match admit(single, session, methods) {
            Admitted::Ready(None) => {}
            Admitted::Ready(Some(response)) => send(&**sink, response).await,
            running => {
                let (session, sink) = (Arc::clone(session), Arc::clone(sink));
                tasks.spawn(async move {
                    if let Some(response) = running.response(&session).await {
                        send(&*sink, response).await;
                    }
                });
            }
        },
    }
}

/// Decides what one message gets, in arrival order; starts the work of a request.
fn admit<H: Handler>(value: Value, session: &Session, methods: &Arc<H>) -> Admitted {
    let (id, method, params) = match jsonrpc::classify(value) {
        Message::Invalid { id, error } => return Admitted::Ready(Some(jsonrpc::failure(id.as_ref(), &error))),
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
                if methods.method(name).is_none() {
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
    let Some(method) = methods.method(&method) else { return refuse(RpcError::method_not_found(&method)) };
    let cancelled = Arc::new(AtomicBool::new(false));
    session.in_flight().insert(id.key(), Arc::clone(&cancelled));
    let methods = Arc::clone(methods);
    let handle = tokio::task::spawn_blocking(move || methods.call(revision, method, params));
    Admitted::Running { id, cancelled, handle }
}

/// The revision a request's 2026-07-28 envelope names: `None` without
/// `_meta["io.modelcontextprotocol/protocolVersion"]` (a handshake-era request; legacy `_meta`
/// only ever holds `progressToken`), else the checks of 2026-07-28 basic/index ("Per-request
/// protocol fields") in order: both required keys present and the version a string (-32602),
/// then a version this server serves per request (-32022, naming the supported list in
/// `error.data`, the same list `server/discover` gives).
fn modern_revision(params: &Map<String, Value>) -> Result<Option<Revision>, RpcError> {
    use revision::meta;
    let Some(Value::Object(envelope)) = params.get("_meta") else { return Ok(None) };
    let Some(version) = envelope.get(meta::PROTOCOL_VERSION) else { return Ok(None) };
    if !envelope.contains_key(meta::CLIENT_CAPABILITIES) {
        return Err(RpcError::invalid_params(format!(
            "_meta is missing the required key {:?}",
            meta::CLIENT_CAPABILITIES
        )));
    }
    let Value::String(version) = version else {
        return Err(RpcError::invalid_params(format!("_meta {:?} must be a string", meta::PROTOCOL_VERSION)));
    };
    match Revision::parse(version).filter(|r| Revision::MODERN.contains(r)) {
        Some(r) => Ok(Some(r)),
        None => Err(RpcError::unsupported_protocol_version(version, &Revision::MODERN.map(Revision::as_str))),
    }
}

fn notification(method: &str, params: &Map<String, Value>, session: &Session) {
    match method {
        "notifications/initialized" => tracing::debug!("client finished initialization"),
        "notifications/cancelled" => {
            let Some(id) = params.get("requestId").and_then(Id::from_value) else {
                tracing::debug!("cancellation without a usable requestId ignored");
                return;
            };
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
