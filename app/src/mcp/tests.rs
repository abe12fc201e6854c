//! The server loop in-process, with channel transports and a handler whose timing we control.

use std::sync::Mutex as StdMutex;
use std::time::Duration;

use async_trait::async_trait;
use ports::transport::SinkClosed;
use serde_json::json;
use tokio::sync::{mpsc, watch};

use super::*;

struct ChannelSource(mpsc::UnboundedReceiver<Frame>);

#[async_trait]
impl FrameSource for ChannelSource {
    async fn next_frame(&mut self) -> Option<Frame> {
        self.0.recv().await
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

/// `slow` sleeps for the given milliseconds, `fast` answers at once, `boom` panics.
struct TestHandler {
    calls: StdMutex<Vec<String>>,
}

impl Handler for TestHandler {
    type Method = &'static str;
    fn method(&self, name: &str) -> Option<&'static str> {
        ["slow", "fast", "boom"].into_iter().find(|m| *m == name)
    }
    fn initialize(&self, _: &Map<String, Value>) -> Value {
        json!({"serverInfo": {"name": "vitaecontext"}})
    }
    fn call(&self, method: &'static str, params: Map<String, Value>) -> Result<Value, RpcError> {
        self.calls.lock().unwrap().push(method.to_owned());
        match method {
            "slow" => {
                let ms = params.get("ms").and_then(Value::as_u64).unwrap_or(300);
                std::thread::sleep(Duration::from_millis(ms));
                Ok(json!({"slept": ms}))
            }
            "boom" => panic!("handler bug"),
            _ => Ok(json!({"fast": true})),
        }
    }
}

struct Harness {
    input: mpsc::UnboundedSender<Frame>,
    output: mpsc::UnboundedReceiver<Value>,
    close_output: watch::Sender<bool>,
    server: tokio::task::JoinHandle<Ended>,
}

fn start() -> Harness {
    let (in_tx, in_rx) = mpsc::unbounded_channel();
    let (out_tx, out_rx) = mpsc::unbounded_channel();
    let (closed_tx, closed_rx) = watch::channel(false);
    let sink = Arc::new(ChannelSink { out: out_tx, closed: closed_rx });
    let handler = Arc::new(TestHandler { calls: StdMutex::new(Vec::new()) });
    let server = tokio::spawn(serve(ChannelSource(in_rx), sink, handler));
    Harness { input: in_tx, output: out_rx, close_output: closed_tx, server }
}

impl Harness {
    fn send(&self, v: Value) {
        self.input.send(Frame::Message(serde_json::to_vec(&v).unwrap())).unwrap();
    }
    async fn recv(&mut self) -> Value {
        tokio::time::timeout(Duration::from_secs(5), self.output.recv()).await.expect("no response in 5 s").unwrap()
    }
    async fn init(&mut self) {
        self.send(json!({"jsonrpc":"2.0","id":"init","method":"initialize","params":{}}));
        assert_eq!(self.recv().await["result"]["serverInfo"]["name"], "vitaecontext");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_request_does_not_hold_up_a_fast_one() {
    let mut h = start();
    h.init().await;
    h.send(json!({"jsonrpc":"2.0","id":1,"method":"slow","params":{"ms":500}}));
    h.send(json!({"jsonrpc":"2.0","id":2,"method":"fast"}));
    assert_eq!(h.recv().await["id"], 2);
    assert_eq!(h.recv().await["id"], 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelling_an_in_flight_request_suppresses_its_response() {
    let mut h = start();
    h.init().await;
    h.send(json!({"jsonrpc":"2.0","id":7,"method":"slow","params":{"ms":300}}));
    h.send(json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"user"}}));
    h.send(json!({"jsonrpc":"2.0","id":8,"method":"slow","params":{"ms":600}}));
    // Only id 8 comes back; 7 finished first but was cancelled.
    assert_eq!(h.recv().await["id"], 8);
    drop(h.input);
    assert_eq!(h.server.await.unwrap(), Ended::InputClosed);
    assert!(h.output.try_recv().is_err(), "a cancelled request was answered");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn end_of_input_still_answers_everything_owed() {
    let mut h = start();
    h.init().await;
    for id in 0..20 {
        h.send(json!({"jsonrpc":"2.0","id":id,"method":"slow","params":{"ms":20}}));
    }
    drop(h.input);
    assert_eq!(h.server.await.unwrap(), Ended::InputClosed);
    let mut ids: Vec<i64> = Vec::new();
    while let Ok(v) = h.output.try_recv() {
        ids.push(v["id"].as_i64().unwrap());
    }
    ids.sort_unstable();
    assert_eq!(ids, (0..20).collect::<Vec<_>>());
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
