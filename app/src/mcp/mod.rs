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
pub mod jsonrpc;
pub mod methods;
pub mod pagination;
pub mod params;
pub mod prompts;
pub mod resources;
pub mod tools;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use ports::transport::{Frame, FrameSink, FrameSource};
use serde_json::{Map, Value, json};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::task::{JoinHandle, JoinSet};

use jsonrpc::{Id, Message, RpcError};

/// Messages read but not yet answered (their answer not yet queued on the sink). Past this the
/// loop stops reading input. Each may hold one response in memory while the sink is full, so
/// this times the largest response (a 4 MiB record) bounds what a slow reader costs.
pub const MAX_IN_FLIGHT: usize = 8;

/// Requests whose work runs at once on the blocking pool. A request may hold a copy of a large
/// file while it runs; more handlers would not be faster on the cores we use.
pub const MAX_HANDLERS: usize = 4;

/// What a connection serves. The loop owns the lifecycle methods (`initialize`, `ping`) and the
/// notifications; everything else is parsed once into the handler's own method type and matched
/// there. `call` runs on the blocking pool, so it may do filesystem work directly.
pub trait Handler: Send + Sync + 'static {
    /// The methods served after the handshake.
    type Method: Send + 'static;
    /// The method named `name`, or `None` for one this server does not have (-32601).
    fn method(&self, name: &str) -> Option<Self::Method>;
    /// The `initialize` result for these params (the protocol version and what is served).
    fn initialize(&self, params: &Map<String, Value>) -> Value;
    fn call(&self, method: Self::Method, params: Map<String, Value>) -> Result<Value, RpcError>;
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
    initialized: AtomicBool,
    /// Requests running now, by id key, with the flag that cancels their response.
    in_flight: Mutex<HashMap<String, Arc<AtomicBool>>>,
    /// Slots for request work on the blocking pool ([`MAX_HANDLERS`]).
    handlers: Arc<Semaphore>,
}

impl Default for Session {
    fn default() -> Self {
        Self {
            initialized: AtomicBool::new(false),
            in_flight: Mutex::default(),
            handlers: Arc::new(Semaphore::new(MAX_HANDLERS)),
        }
    }
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
    let in_flight = Arc::new(Semaphore::new(MAX_IN_FLIGHT));
    let mut tasks = JoinSet::new();
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
    if sink.flush().await.is_err() {
        return Ended::OutputClosed;
    }
    Ended::InputClosed
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

async fn accept<Snk: FrameSink + 'static, H: Handler>(
    bytes: &[u8],
    session: &Arc<Session>,
    methods: &Arc<H>,
    sink: &Arc<Snk>,
    tasks: &mut JoinSet<()>,
    permit: OwnedSemaphorePermit,
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
        Value::Array(items) => {
            let admitted: Vec<Admitted> = items.into_iter().map(|v| admit(v, session, methods)).collect();
            let (session, sink) = (Arc::clone(session), Arc::clone(sink));
            tasks.spawn(async move {
                let _permit = permit;
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
                    let _permit = permit;
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
    match method.as_str() {
        "initialize" => {
            if session.initialized.swap(true, Ordering::SeqCst) {
                return refuse(RpcError::invalid_request(
                    "the session is already initialized; send initialize only once",
                ));
            }
            Admitted::Ready(Some(jsonrpc::success(&id, methods.initialize(&params))))
        }
        "ping" => Admitted::Ready(Some(jsonrpc::success(&id, json!({})))),
        name => {
            let Some(method) = methods.method(name) else { return refuse(RpcError::method_not_found(name)) };
            if !session.initialized.load(Ordering::SeqCst) {
                return refuse(RpcError::invalid_request(format!(
                    "the server is not initialized; send initialize before {name}"
                )));
            }
            let cancelled = Arc::new(AtomicBool::new(false));
            session.in_flight().insert(id.key(), Arc::clone(&cancelled));
            let methods = Arc::clone(methods);
            let handle = run_limited(&session.handlers, &cancelled, move || methods.call(method, params));
            Admitted::Running { id, cancelled, handle }
        }
    }
}

/// Runs `work` on the blocking pool once a handler slot is free; a request cancelled while it
/// waited for a slot is not run (its response is suppressed anyway).
fn run_limited<F>(slots: &Arc<Semaphore>, cancelled: &Arc<AtomicBool>, work: F) -> JoinHandle<Result<Value, RpcError>>
where
    F: FnOnce() -> Result<Value, RpcError> + Send + 'static,
{
    let (slots, cancelled) = (Arc::clone(slots), Arc::clone(cancelled));
    tokio::spawn(async move {
        let _slot = slots.acquire_owned().await.map_err(RpcError::internal)?;
        if cancelled.load(Ordering::SeqCst) {
            // Never sent: the response of a cancelled request is suppressed.
            return Ok(Value::Null);
        }
        tokio::task::spawn_blocking(work)
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
