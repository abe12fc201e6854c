//! The server loop in-process, with channel transports and a handler the test holds at gates.

use std::collections::HashMap;
use std::sync::{Condvar, Mutex as StdMutex};
use std::time::Duration;

use async_trait::async_trait;
use ports::transport::SinkClosed;
use serde_json::json;
use tokio::sync::{mpsc, oneshot, watch};

use super::*;

/// How long a test waits for anything, and a gated handler for its gate, before failing.
const PATIENCE: Duration = Duration::from_secs(5);

/// Frames the test sends; tells the test when the loop has seen the end of input.
struct ChannelSource {
    frames: mpsc::UnboundedReceiver<Frame>,
    eof_seen: Option<oneshot::Sender<()>>,
}

#[async_trait]
impl FrameSource for ChannelSource {
    async fn next_frame(&mut self) -> Option<Frame> {
        let frame = self.frames.recv().await;
        if frame.is_none() {
            self.eof_seen.take().map(|tx| tx.send(()));
        }
        frame
    }
}

struct ChannelSink {
    out: mpsc::UnboundedSender<Value>,
    closed: watch::Receiver<bool>,
}

#[async_trait]
impl FrameSink for ChannelSink {
    async fn send(&self, frame: Vec<u8>) -> Result<(), SinkClosed> {
        let v = serde_json::from_slice(&frame).map_err(|_| SinkClosed)?;
        self.out.send(v).map_err(|_| SinkClosed)
    }
    async fn flush(&self) -> Result<(), SinkClosed> {
        Ok(())
    }
    async fn closed(&self) {
        let mut rx = self.closed.clone();
        let _ = rx.wait_for(|c| *c).await;
    }
}

/// Named gates the test opens; a `wait` request blocks on its gate.
#[derive(Default)]
struct Gates {
    open: StdMutex<HashMap<String, bool>>,
    changed: Condvar,
}

impl Gates {
    fn open(&self, name: &str) {
        self.open.lock().unwrap().insert(name.to_owned(), true);
        self.changed.notify_all();
    }

    /// Blocks until `name` is open; false if it stays shut for [`PATIENCE`], so a broken server
    /// fails the test instead of hanging it.
    fn pass(&self, name: &str) -> bool {
        let open = self.open.lock().unwrap();
        let (_open, timeout) =
            self.changed.wait_timeout_while(open, PATIENCE, |open| !open.get(name).copied().unwrap_or(false)).unwrap();
        !timeout.timed_out()
    }
}

/// `wait {gate}` says it entered, then blocks until the test opens its gate; `fast` answers at
/// once; `boom` panics.
struct TestHandler {
    notifier: notify::Notifier,
    gates: Arc<Gates>,
    entered: mpsc::UnboundedSender<String>,
}

impl Handler for TestHandler {
    type Method = &'static str;
    fn method(&self, name: &str) -> Option<&'static str> {
        ["wait", "fast", "boom", "revision"].into_iter().find(|m| *m == name)
    }
    fn initialize(&self, revision: Revision) -> Value {
        json!({"protocolVersion": revision.as_str(), "serverInfo": {"name": "vitaecontext"}})
    }
    fn discover(&self) -> Value {
        json!({"supportedVersions": ["2026-07-28"]})
    }
    fn changes(&self) -> broadcast::Receiver<Change> {
        self.notifier.subscribe()
    }
    fn subscribable(&self, uri: &str) -> bool {
        uri == "watched://a"
    }
    fn call(&self, revision: Revision, method: &'static str, params: Map<String, Value>) -> Result<Value, RpcError> {
        if method == "revision" {
            return Ok(json!({"revision": revision.as_str()}));
        }
        match method {
            "wait" => {
                let gate = params["gate"].as_str().unwrap_or_default();
                let _ = self.entered.send(gate.to_owned());
                if !self.gates.pass(gate) {
                    return Err(RpcError::internal(format!("gate {gate} never opened")));
                }
                Ok(json!({"gate": gate}))
            }
            "boom" => panic!("handler bug"),
            _ => Ok(json!({"fast": true})),
        }
    }
}

struct Harness {
    notifier: notify::Notifier,
    input: mpsc::UnboundedSender<Frame>,
    output: mpsc::UnboundedReceiver<Value>,
    close_output: watch::Sender<bool>,
    server: tokio::task::JoinHandle<Ended>,
    gates: Arc<Gates>,
    entered: mpsc::UnboundedReceiver<String>,
    eof_seen: oneshot::Receiver<()>,
}

fn start() -> Harness {
    let (in_tx, in_rx) = mpsc::unbounded_channel();
    let (out_tx, out_rx) = mpsc::unbounded_channel();
    let (closed_tx, closed_rx) = watch::channel(false);
    let (entered_tx, entered_rx) = mpsc::unbounded_channel();
    let (eof_tx, eof_rx) = oneshot::channel();
    let sink = Arc::new(ChannelSink { out: out_tx, closed: closed_rx });
    let gates = Arc::new(Gates::default());
    let notifier = notify::Notifier::default();
    let handler = Arc::new(TestHandler { notifier: notifier.clone(), gates: Arc::clone(&gates), entered: entered_tx });
    let source = ChannelSource { frames: in_rx, eof_seen: Some(eof_tx) };
    let server = tokio::spawn(serve(source, sink, handler));
    Harness {
        notifier,
        input: in_tx,
        output: out_rx,
        close_output: closed_tx,
        server,
        gates,
        entered: entered_rx,
        eof_seen: eof_rx,
    }
}

impl Harness {
    fn send(&self, v: Value) {
        self.input.send(Frame::Message(serde_json::to_vec(&v).unwrap())).unwrap();
    }
    async fn recv(&mut self) -> Value {
        tokio::time::timeout(PATIENCE, self.output.recv()).await.expect("no response in time").unwrap()
    }
    /// Waits until the handler is running the `wait` requests of `gates`, in any order.
    async fn entered(&mut self, gates: &[&str]) {
        let mut got = Vec::new();
        for _ in gates {
            let gate = tokio::time::timeout(PATIENCE, self.entered.recv()).await.expect("no handler entered in time");
            got.push(gate.unwrap());
        }
        got.sort_unstable();
        let mut want: Vec<&str> = gates.to_vec();
        want.sort_unstable();
        assert_eq!(got, want);
    }
    fn wait(&self, id: i64, gate: &str) {
        self.send(json!({"jsonrpc":"2.0","id":id,"method":"wait","params":{"gate":gate}}));
    }
    async fn init(&mut self) {
        self.send(json!({"jsonrpc":"2.0","id":"init","method":"initialize","params":{}}));
        assert_eq!(self.recv().await["result"]["serverInfo"]["name"], "vitaecontext");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_blocked_request_does_not_hold_up_a_fast_one() {
    let mut h = start();
    h.init().await;
    h.wait(1, "one");
    h.entered(&["one"]).await;
    h.send(json!({"jsonrpc":"2.0","id":2,"method":"fast"}));
    // Served one at a time, 2 would wait behind 1, whose gate opens only after 2 is answered.
    assert_eq!(h.recv().await["id"], 2);
    h.gates.open("one");
    assert_eq!(h.recv().await["result"], json!({"gate": "one"}));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_run_at_the_same_time() {
    let mut h = start();
    h.init().await;
    h.wait(1, "a");
    h.wait(2, "b");
    // Both handlers are inside `call` before either gate opens.
    h.entered(&["a", "b"]).await;
    h.gates.open("b");
    assert_eq!(h.recv().await["id"], 2);
    h.gates.open("a");
    assert_eq!(h.recv().await["id"], 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelling_an_in_flight_request_suppresses_its_response() {
    let mut h = start();
    h.init().await;
    h.wait(7, "seven");
    h.entered(&["seven"]).await;
    h.send(json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"user"}}));
    // Frames are admitted in order: once 8 is answered, the cancellation has been seen.
    h.send(json!({"jsonrpc":"2.0","id":8,"method":"fast"}));
    assert_eq!(h.recv().await["id"], 8);
    h.gates.open("seven");
    drop(h.input);
    // The loop waits for 7 to finish before it ends, so its response would be out by now.
    assert_eq!(h.server.await.unwrap(), Ended::InputClosed);
    assert!(h.output.try_recv().is_err(), "a cancelled request was answered");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn end_of_input_still_answers_everything_owed() {
    let mut h = start();
    h.init().await;
    // Fewer than MAX_IN_FLIGHT, so the loop keeps reading (past it, backpressure would stop it
    // from ever seeing the end of input while every request is blocked).
    let owed = i64::try_from(MAX_IN_FLIGHT).unwrap() - 2;
    for id in 0..owed {
        h.wait(id, &format!("g{id}"));
    }
    drop(h.input);
    // Every request is still blocked when the loop sees the end of input.
    tokio::time::timeout(PATIENCE, h.eof_seen).await.expect("end of input not seen").unwrap();
    assert!(h.output.try_recv().is_err(), "answered before its gate opened");
    for id in 0..owed {
        h.gates.open(&format!("g{id}"));
    }
    assert_eq!(h.server.await.unwrap(), Ended::InputClosed);
    let mut ids: Vec<i64> = Vec::new();
    while let Ok(v) = h.output.try_recv() {
        assert!(v.get("result").is_some(), "{v}");
        ids.push(v["id"].as_i64().unwrap());
    }
    ids.sort_unstable();
    assert_eq!(ids, (0..owed).collect::<Vec<_>>());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_panicking_handler_is_an_internal_error_and_the_server_lives_on() {
    let mut h = start();
    h.init().await;
    h.send(json!({"jsonrpc":"2.0","id":1,"method":"boom"}));
    let r = h.recv().await;
    assert_eq!(r["error"]["code"], -32603);
    assert!(!r["error"]["message"].as_str().unwrap().contains("handler bug"), "detail leaked to stdout");
    h.send(json!({"jsonrpc":"2.0","id":2,"method":"fast"}));
    assert_eq!(h.recv().await["result"]["fast"], true);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_closed_output_ends_the_loop() {
    let h = start();
    h.close_output.send(true).unwrap();
    assert_eq!(h.server.await.unwrap(), Ended::OutputClosed);
}

fn modern(id: i64, method: &str, version: &str) -> Value {
    json!({"jsonrpc":"2.0","id":id,"method":method,"params":{"_meta":{
        "io.modelcontextprotocol/protocolVersion": version,
        "io.modelcontextprotocol/clientCapabilities": {}
    }}})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn initialize_negotiates_and_requests_run_in_the_negotiated_revision() {
    let mut h = start();
    h.send(json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}));
    assert_eq!(h.recv().await["result"]["protocolVersion"], "2025-06-18");
    h.send(json!({"jsonrpc":"2.0","id":1,"method":"revision"}));
    assert_eq!(h.recv().await["result"]["revision"], "2025-06-18");
    // 2025-06-18 removed batches: the whole frame is one Invalid Request.
    h.send(json!([{"jsonrpc":"2.0","id":2,"method":"fast"}]));
    let r = h.recv().await;
    assert_eq!((r["id"].clone(), r["error"]["code"].clone()), (Value::Null, json!(-32600)), "{r}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_and_modern_versions_in_initialize_get_the_latest_handshake_revision() {
    for asked in ["2026-07-28", "1999-01-01"] {
        let mut h = start();
        h.send(json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":asked}}));
        assert_eq!(h.recv().await["result"]["protocolVersion"], "2025-11-25");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn batches_stay_answered_in_2024_11_05_and_2025_03_26() {
    for asked in ["2024-11-05", "2025-03-26"] {
        let mut h = start();
        h.send(json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":asked}}));
        h.recv().await;
        h.send(json!([{"jsonrpc":"2.0","id":1,"method":"revision"}]));
        assert_eq!(h.recv().await, json!([{"jsonrpc":"2.0","id":1,"result":{"revision":asked}}]));
    }
}

/// Members run one after the other; a cancellation read while an earlier one runs still
/// reaches a member that has not started (found in review: it was ignored, and answered).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_member_cancelled_before_it_runs_is_neither_run_nor_answered() {
    let mut h = start();
    h.send(json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26"}}));
    h.recv().await;
    h.send(json!([
        {"jsonrpc":"2.0","id":1,"method":"wait","params":{"gate":"a"}},
        {"jsonrpc":"2.0","id":2,"method":"wait","params":{"gate":"b"}},
        {"jsonrpc":"2.0","id":3,"method":"fast"}
    ]));
    h.entered(&["a"]).await;
    h.send(json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}));
    // Frames are admitted in order: once 9 is answered, the cancellation has been seen.
    h.send(json!({"jsonrpc":"2.0","id":9,"method":"fast"}));
    assert_eq!(h.recv().await["id"], 9);
    h.gates.open("a");
    let r = h.recv().await;
    let ids: Vec<&Value> = r.as_array().expect("a batch answer").iter().map(|a| &a["id"]).collect();
    assert_eq!(ids, [&json!(1), &json!(3)], "{r}");
    assert!(h.entered.try_recv().is_err(), "the cancelled member ran");
}

/// 2025-03-26 basic/lifecycle: "The initialize request MUST NOT be part of a JSON-RPC batch";
/// 2026-07-28 has no batches: a batch naming it is refused whole, whatever the session.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn initialize_and_modern_requests_are_never_batched() {
    let mut h = start();
    let init = json!({"jsonrpc":"2.0","id":"i","method":"initialize","params":{"protocolVersion":"2025-03-26"}});
    h.send(json!([init.clone(), {"jsonrpc":"2.0","id":1,"method":"ping"}]));
    let r = h.recv().await;
    assert_eq!(r[0]["id"], "i");
    assert_eq!(r[0]["error"]["code"], -32600, "{r}");
    assert_eq!(r[1]["result"], json!({}), "the other members are answered: {r}");
    h.send(json!({"jsonrpc":"2.0","id":2,"method":"revision"}));
    assert_eq!(h.recv().await["error"]["code"], -32600, "the batched initialize did not initialize");
    h.send(json!([modern(3, "revision", "2026-07-28")]));
    let r = h.recv().await;
    assert_eq!((r["id"].clone(), r["error"]["code"].clone()), (Value::Null, json!(-32600)), "{r}");
    h.send(init);
    assert_eq!(h.recv().await["result"]["protocolVersion"], "2025-03-26");
    h.send(json!([{"jsonrpc":"2.0","id":4,"method":"revision"}, modern(5, "revision", "2026-07-28")]));
    let r = h.recv().await;
    assert_eq!((r["id"].clone(), r["error"]["code"].clone()), (Value::Null, json!(-32600)), "{r}");
    h.send(json!([{"jsonrpc":"2.0","id":6,"method":"revision"}]));
    assert_eq!(h.recv().await, json!([{"jsonrpc":"2.0","id":6,"result":{"revision":"2025-03-26"}}]));
}

/// initialize's params and a 2026-07-28 request's `_meta` have the types their schemas give.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mistyped_handshake_fields_are_invalid_params() {
    let mut h = start();
    for params in [
        json!({"protocolVersion": 5, "capabilities": {}, "clientInfo": {"name": "a", "version": "1"}}),
        json!({"protocolVersion": "2025-06-18", "capabilities": "x"}),
        json!({"protocolVersion": "2025-06-18", "clientInfo": 5}),
        json!({"protocolVersion": "2025-06-18", "clientInfo": {"name": 5, "version": "1"}}),
    ] {
        h.send(json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":params}));
        assert_eq!(h.recv().await["error"]["code"], -32602, "{params}");
    }
    let meta = |caps: Value, info: Value| {
        json!({"jsonrpc":"2.0","id":1,"method":"revision","params":{"_meta":{
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": caps,
            "io.modelcontextprotocol/clientInfo": info}}})
    };
    for (caps, info) in [(json!(5), json!({"name": "a", "version": "1"})), (json!({}), json!(5))] {
        h.send(meta(caps.clone(), info.clone()));
        assert_eq!(h.recv().await["error"]["code"], -32602, "{caps} {info}");
    }
    h.send(meta(json!({}), json!({"name": "a", "version": "1"})));
    assert_eq!(h.recv().await["result"]["revision"], "2026-07-28");
    h.send(json!({"jsonrpc":"2.0","id":2,"method":"revision","params":{"_meta": 5}}));
    assert_eq!(h.recv().await["error"]["code"], -32602);
    // Still answered, as before: what is missing (or null) is not refused, only a wrong type.
    h.send(json!({"jsonrpc":"2.0","id":3,"method":"initialize","params":{
        "protocolVersion": "2025-06-18", "capabilities": null, "clientInfo": {"name": "a"}}}));
    assert_eq!(h.recv().await["result"]["protocolVersion"], "2025-06-18");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_modern_request_needs_no_handshake_and_is_checked_as_2026_07_28_says() {
    let mut h = start();
    h.send(modern(1, "revision", "2026-07-28"));
    assert_eq!(h.recv().await["result"]["revision"], "2026-07-28");
    h.send(modern(2, "revision", "2025-11-25"));
    let e = h.recv().await["error"].clone();
    assert_eq!(e["code"], -32022);
    assert_eq!(e["data"], json!({"supported": ["2026-07-28"], "requested": "2025-11-25"}));
    h.send(json!({"jsonrpc":"2.0","id":3,"method":"revision","params":{"_meta":{
        "io.modelcontextprotocol/protocolVersion": "2026-07-28"}}}));
    let e = h.recv().await["error"].clone();
    assert_eq!(e["code"], -32602);
    assert!(e["message"].as_str().unwrap().contains("clientCapabilities"), "{e}");
    h.send(json!({"jsonrpc":"2.0","id":4,"method":"revision","params":{"_meta":{
        "io.modelcontextprotocol/protocolVersion": 2026, "io.modelcontextprotocol/clientCapabilities": {}}}}));
    assert_eq!(h.recv().await["error"]["code"], -32602);
    for removed in ["ping", "logging/setLevel", "resources/subscribe"] {
        h.send(modern(5, removed, "2026-07-28"));
        assert_eq!(h.recv().await["error"]["code"], -32601, "{removed}");
    }
    // Still not initialized for the handshake era.
    h.send(json!({"jsonrpc":"2.0","id":6,"method":"revision"}));
    assert_eq!(h.recv().await["error"]["code"], -32600);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_discover_is_answered_in_either_era_at_any_time() {
    let mut h = start();
    h.send(json!({"jsonrpc":"2.0","id":1,"method":"server/discover"}));
    assert_eq!(h.recv().await["result"]["supportedVersions"], json!(["2026-07-28"]));
    h.send(modern(2, "server/discover", "2026-07-28"));
    assert_eq!(h.recv().await["result"]["supportedVersions"], json!(["2026-07-28"]));
    h.init().await;
    h.send(json!({"jsonrpc":"2.0","id":3,"method":"server/discover"}));
    assert!(h.recv().await.get("result").is_some());
    // A modern request inside a handshake session is served by its own envelope.
    h.send(modern(4, "revision", "2026-07-28"));
    assert_eq!(h.recv().await["result"]["revision"], "2026-07-28");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_changes_reach_sessions_whose_revision_has_them() {
    let mut h = start();
    h.init().await; // no version: 2024-11-05, which keeps listChanged false
    h.notifier.notify(Change::ToolsListChanged);
    h.send(json!({"jsonrpc":"2.0","id":1,"method":"fast"}));
    assert_eq!(h.recv().await["id"], 1, "2024-11-05 gets no list_changed");

    let mut h = start();
    h.send(json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26"}}));
    h.recv().await;
    h.notifier.notify(Change::PromptsListChanged);
    assert_eq!(h.recv().await, json!({"jsonrpc":"2.0","method":"notifications/prompts/list_changed"}));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resource_updates_follow_subscriptions_in_the_handshake_era() {
    let mut h = start();
    h.send(json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}));
    h.recv().await;
    h.send(json!({"jsonrpc":"2.0","id":1,"method":"resources/subscribe","params":{"uri":"other://b"}}));
    assert_eq!(h.recv().await["error"]["code"], -32602);
    h.send(json!({"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"watched://a"}}));
    assert_eq!(h.recv().await["result"], json!({}));
    h.notifier.notify(Change::ResourceUpdated("other://b".into()));
    h.notifier.notify(Change::ResourceUpdated("watched://a".into()));
    let n = h.recv().await;
    assert_eq!(n, json!({"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"watched://a"}}));
    h.send(json!({"jsonrpc":"2.0","id":3,"method":"resources/unsubscribe","params":{"uri":"watched://a"}}));
    assert_eq!(h.recv().await["result"], json!({}));
    h.notifier.notify(Change::ResourceUpdated("watched://a".into()));
    h.send(json!({"jsonrpc":"2.0","id":4,"method":"fast"}));
    assert_eq!(h.recv().await["id"], 4, "no update after unsubscribe");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_listen_stream_is_acknowledged_tagged_filtered_and_ended_by_cancel() {
    let mut h = start();
    let mut listen = modern(9, "subscriptions/listen", "2026-07-28");
    listen["params"]["notifications"] =
        json!({"toolsListChanged": true, "resourceSubscriptions": ["watched://a", "other://b"]});
    h.send(listen);
    let ack = h.recv().await;
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    assert_eq!(ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], 9);
    assert_eq!(
        ack["params"]["notifications"],
        json!({"toolsListChanged": true, "resourceSubscriptions": ["watched://a"]})
    );
    h.notifier.notify(Change::PromptsListChanged); // not asked for
    h.notifier.notify(Change::ToolsListChanged);
    let n = h.recv().await;
    assert_eq!(n["method"], "notifications/tools/list_changed");
    assert_eq!(n["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], 9);
    h.notifier.notify(Change::ResourceUpdated("watched://a".into()));
    let n = h.recv().await;
    assert_eq!(
        (n["method"].clone(), n["params"]["uri"].clone()),
        (json!("notifications/resources/updated"), json!("watched://a"))
    );
    h.send(json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9}}));
    h.send(json!({"jsonrpc":"2.0","id":10,"method":"server/discover"}));
    assert_eq!(h.recv().await["id"], 10);
    h.notifier.notify(Change::ToolsListChanged);
    drop(h.input);
    assert_eq!(h.server.await.unwrap(), Ended::InputClosed);
    assert!(h.output.try_recv().is_err(), "a cancelled stream got more");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_open_listen_stream_ends_with_its_result_at_end_of_input() {
    let mut h = start();
    let mut listen = modern(5, "subscriptions/listen", "2026-07-28");
    listen["params"]["notifications"] = json!({});
    h.send(listen);
    assert_eq!(h.recv().await["params"]["notifications"], json!({}));
    drop(h.input);
    assert_eq!(h.server.await.unwrap(), Ended::InputClosed);
    let end = h.output.try_recv().unwrap();
    assert_eq!(end["id"], 5);
    assert_eq!(end["result"]["resultType"], "complete");
    assert_eq!(end["result"]["_meta"]["io.modelcontextprotocol/subscriptionId"], 5);
}

// Bounds: messages in flight and handlers running at once.

/// A source that counts the frames the loop has taken.
struct CountingSource {
    rx: mpsc::UnboundedReceiver<Frame>,
    taken: Arc<std::sync::atomic::AtomicUsize>,
}

#[async_trait]
impl FrameSource for CountingSource {
    async fn next_frame(&mut self) -> Option<Frame> {
        let frame = self.rx.recv().await;
        if frame.is_some() {
            self.taken.fetch_add(1, Ordering::SeqCst);
        }
        frame
    }
}

/// A sink whose `send` waits while its gate is shut, like stdout nobody reads.
struct GatedSink {
    out: mpsc::UnboundedSender<Value>,
    open: watch::Receiver<bool>,
}

#[async_trait]
impl FrameSink for GatedSink {
    async fn send(&self, frame: Vec<u8>) -> Result<(), SinkClosed> {
        let _ = self.open.clone().wait_for(|open| *open).await;
        self.out.send(serde_json::from_slice(&frame).map_err(|_| SinkClosed)?).map_err(|_| SinkClosed)
    }
    async fn flush(&self) -> Result<(), SinkClosed> {
        Ok(())
    }
    async fn closed(&self) {
        std::future::pending::<()>().await;
    }
}

/// `work` sleeps `ms` and records how many calls ran at once.
#[derive(Default)]
struct PeakHandler {
    running: std::sync::atomic::AtomicUsize,
    peak: std::sync::atomic::AtomicUsize,
    notifier: notify::Notifier,
}

impl Handler for PeakHandler {
    type Method = ();
    fn method(&self, name: &str) -> Option<()> {
        (name == "work").then_some(())
    }
    fn initialize(&self, _: Revision) -> Value {
        json!({})
    }
    fn discover(&self) -> Value {
        json!({})
    }
    fn changes(&self) -> broadcast::Receiver<Change> {
        self.notifier.subscribe()
    }
    fn subscribable(&self, _: &str) -> bool {
        false
    }
    fn call(&self, _: Revision, (): (), params: Map<String, Value>) -> Result<Value, RpcError> {
        let now = self.running.fetch_add(1, Ordering::SeqCst) + 1;
        self.peak.fetch_max(now, Ordering::SeqCst);
        std::thread::sleep(Duration::from_millis(params.get("ms").and_then(Value::as_u64).unwrap_or(1)));
        self.running.fetch_sub(1, Ordering::SeqCst);
        Ok(json!({}))
    }
}

struct Bounded {
    input: mpsc::UnboundedSender<Frame>,
    output: mpsc::UnboundedReceiver<Value>,
    open: watch::Sender<bool>,
    taken: Arc<std::sync::atomic::AtomicUsize>,
    handler: Arc<PeakHandler>,
}

impl Bounded {
    async fn start() -> Self {
        let (in_tx, in_rx) = mpsc::unbounded_channel();
        let (out_tx, out_rx) = mpsc::unbounded_channel();
        let (open_tx, open_rx) = watch::channel(true);
        let taken = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let handler = Arc::new(PeakHandler::default());
        let source = CountingSource { rx: in_rx, taken: Arc::clone(&taken) };
        tokio::spawn(serve(source, Arc::new(GatedSink { out: out_tx, open: open_rx }), Arc::clone(&handler)));
        let mut me = Bounded { input: in_tx, output: out_rx, open: open_tx, taken, handler };
        me.send(json!({"jsonrpc":"2.0","id":"init","method":"initialize","params":{}}));
        assert_eq!(me.recv().await["id"], "init");
        me
    }
    fn send(&self, v: Value) {
        self.input.send(Frame::Message(serde_json::to_vec(&v).unwrap())).unwrap();
    }
    async fn recv(&mut self) -> Value {
        tokio::time::timeout(Duration::from_secs(10), self.output.recv()).await.expect("no response in 10 s").unwrap()
    }
}

// Regression: with stdout not read, the loop kept reading and queued answers without bound.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_blocked_output_stops_the_intake_at_the_in_flight_cap() {
    let mut b = Bounded::start().await;
    b.open.send(false).unwrap();
    for id in 0..500 {
        b.send(json!({"jsonrpc":"2.0","id":id,"method":"work"}));
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    let taken = b.taken.load(Ordering::SeqCst) - 1;
    assert!(taken <= MAX_IN_FLIGHT, "{taken} requests taken while the output was blocked (cap {MAX_IN_FLIGHT})");
    b.open.send(true).unwrap();
    let mut ids = Vec::new();
    for _ in 0..500 {
        ids.push(b.recv().await["id"].as_i64().unwrap());
    }
    ids.sort_unstable();
    assert_eq!(ids, (0..500).collect::<Vec<_>>(), "every request answered exactly once");
}

// Regression: six concurrent calls on a huge file each held a copy; handlers are capped.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn at_most_max_handlers_run_at_once() {
    let mut b = Bounded::start().await;
    for id in 0..24 {
        b.send(json!({"jsonrpc":"2.0","id":id,"method":"work","params":{"ms":40}}));
    }
    for _ in 0..24 {
        assert!(b.recv().await.get("result").is_some());
    }
    let peak = b.handler.peak.load(Ordering::SeqCst);
    assert!(peak <= MAX_HANDLERS, "{peak} handlers ran at once (cap {MAX_HANDLERS})");
    assert!(peak >= 2, "requests still run concurrently (peak {peak})");
}
