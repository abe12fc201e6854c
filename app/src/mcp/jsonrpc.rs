//! JSON-RPC 2.0 at the edge: what a frame is, and the one place error codes are named.

use serde_json::{Map, Value, json};

/// JSON-RPC and MCP error codes, named once.
pub mod code {
    pub const PARSE_ERROR: i64 = -32700;
    pub const INVALID_REQUEST: i64 = -32600;
    pub const METHOD_NOT_FOUND: i64 = -32601;
    pub const INVALID_PARAMS: i64 = -32602;
    pub const INTERNAL_ERROR: i64 = -32603;
    /// MCP: the resource does not exist or cannot be served.
    pub const RESOURCE_NOT_FOUND: i64 = -32002;
    /// MCP 2026-07-28 `UnsupportedProtocolVersionError`: the request's `_meta` names a
    /// revision this server does not serve per request.
    pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;
}

#[derive(Debug, Clone, PartialEq)]
pub struct RpcError {
    pub code: i64,
    pub message: String,
    pub data: Option<Value>,
}

/// The longest `error.message` sent, in bytes: a message quotes what the client sent (a URI,
/// a name), and a 100,000-character URI made a 200 KB answer (found in review; the spec asks
/// for one concise sentence). `data` still carries the URI whole.
const MAX_MESSAGE_BYTES: usize = 1024;

impl RpcError {
    pub fn new(code: i64, message: impl Into<String>) -> Self {
        let mut message = message.into();
        if message.len() > MAX_MESSAGE_BYTES {
            let end = (0..=MAX_MESSAGE_BYTES - 3).rev().find(|&i| message.is_char_boundary(i)).unwrap_or(0);
            message.truncate(end);
            message.push('…');
        }
        Self { code, message, data: None }
    }

    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }

    pub fn parse(detail: impl std::fmt::Display) -> Self {
        Self::new(code::PARSE_ERROR, format!("Parse error: {detail}"))
    }

    pub fn invalid_request(detail: impl std::fmt::Display) -> Self {
        Self::new(code::INVALID_REQUEST, format!("Invalid Request: {detail}"))
    }

    pub fn invalid_params(detail: impl std::fmt::Display) -> Self {
        Self::new(code::INVALID_PARAMS, format!("Invalid params: {detail}"))
    }

    pub fn method_not_found(method: &str) -> Self {
        Self::new(code::METHOD_NOT_FOUND, format!("Method not found: {method}"))
    }

    pub fn resource_not_found(uri: &str, detail: impl std::fmt::Display) -> Self {
        Self::new(code::RESOURCE_NOT_FOUND, format!("Resource not found: {detail}")).with_data(json!({ "uri": uri }))
    }

    /// The same code as [`RpcError::resource_not_found`], for a resource that is there but
    /// cannot be served: "not found" would send the person looking for a file that exists.
    pub fn resource_unavailable(uri: &str, detail: impl std::fmt::Display) -> Self {
        Self::new(code::RESOURCE_NOT_FOUND, format!("Resource unavailable: {detail}")).with_data(json!({ "uri": uri }))
    }

    /// 2026-07-28 basic/versioning: `data` is `{supported, requested}`.
    pub fn unsupported_protocol_version(requested: &str, supported: &[&str]) -> Self {
        Self::new(code::UNSUPPORTED_PROTOCOL_VERSION, "Unsupported protocol version")
            .with_data(json!({ "supported": supported, "requested": requested }))
    }

    /// An unexpected failure: the detail goes to stderr, the client gets a short message.
    pub fn internal(detail: impl std::fmt::Display) -> Self {
        tracing::error!("internal error: {detail}");
        Self::new(code::INTERNAL_ERROR, "Internal error (details were written to the server's stderr)")
    }

    fn to_value(&self) -> Value {
        let mut e = Map::new();
        e.insert("code".into(), self.code.into());
        e.insert("message".into(), self.message.clone().into());
        if let Some(d) = &self.data {
            e.insert("data".into(), d.clone());
        }
        Value::Object(e)
    }
}

/// A request id: a string or an integer, kept as the client sent it.
#[derive(Debug, Clone, PartialEq)]
pub struct Id(Value);

impl Id {
    /// A key that tells ids apart by type and value (`1` and `"1"` differ).
    pub fn key(&self) -> String {
        self.0.to_string()
    }

    /// The id as the client sent it.
    pub fn value(&self) -> &Value {
        &self.0
    }

    pub fn from_value(v: &Value) -> Option<Id> {
        match v {
            Value::String(_) => Some(Id(v.clone())),
            // JSON Schema's `integer` is any number without a fractional part: `1.0` and `1e2`
            // are ids (echoed as parsed), `1.5` is not, nor a number too large for a float to
            // hold exactly (it would be echoed as another number).
            Value::Number(n)
                if n.is_i64()
                    || n.is_u64()
                    || n.as_f64().is_some_and(|f| f.fract() == 0.0 && f.abs() <= 9_007_199_254_740_992.0) =>
            {
                Some(Id(v.clone()))
            }
            _ => None,
        }
    }
}

/// One message, classified.
#[derive(Debug)]
pub enum Message {
    Request {
        id: Id,
        method: String,
        params: Map<String, Value>,
    },
    Notification {
        method: String,
        params: Map<String, Value>,
    },
    /// A response (`result` or `error`, no `method`): this server sends no requests, so it
    /// answers nothing, and a response is never answered (JSON-RPC 2.0).
    Response,
    /// Not a valid request: answered with this error and this id (null when unknown).
    Invalid {
        id: Option<Id>,
        error: RpcError,
    },
}

/// Classifies one element of a frame (a single message or one member of a batch).
pub fn classify(value: Value) -> Message {
    let Value::Object(mut obj) = value else {
        return Message::Invalid { id: None, error: RpcError::invalid_request("a message must be a JSON object") };
    };
    let (id, id_present) = match obj.get("id") {
        None => (None, false),
        Some(v) => (Id::from_value(v), true),
    };
    if obj.get("jsonrpc") != Some(&Value::String("2.0".into())) {
        return Message::Invalid { id, error: RpcError::invalid_request("\"jsonrpc\" must be \"2.0\"") };
    }
    let method = match obj.remove("method") {
        Some(Value::String(m)) => m,
        Some(_) => return Message::Invalid { id, error: RpcError::invalid_request("\"method\" must be a string") },
        None if id_present && (obj.contains_key("result") || obj.contains_key("error")) => return Message::Response,
        None => return Message::Invalid { id, error: RpcError::invalid_request("\"method\" is missing") },
    };
    if id_present && id.is_none() {
        return Message::Invalid {
            id: None,
            error: RpcError::invalid_request("\"id\" must be a string or an integer (not null, not fractional)"),
        };
    }
    let params = match obj.remove("params") {
        None | Some(Value::Null) => Ok(Map::new()),
        Some(Value::Object(p)) => Ok(p),
        Some(Value::Array(_)) => Err(RpcError::invalid_params("MCP methods take named params (an object)")),
        Some(_) => Err(RpcError::invalid_request("\"params\" must be an object")),
    };
    match (id, params) {
        (Some(id), Ok(params)) => Message::Request { id, method, params },
        (Some(id), Err(error)) => Message::Invalid { id: Some(id), error },
        (None, Ok(params)) => Message::Notification { method, params },
        // A notification with unusable params is dropped like any other notification we ignore.
        (None, Err(_)) => Message::Notification { method, params: Map::new() },
    }
}

/// A success response: exactly `jsonrpc`, `id` and `result`.
pub fn success(id: &Id, result: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": id.0, "result": result })
}

/// A notification from the server: `jsonrpc`, `method` and, when there are any, `params`.
pub fn notification(method: &str, params: Map<String, Value>) -> Value {
    if params.is_empty() {
        json!({ "jsonrpc": "2.0", "method": method })
    } else {
        json!({ "jsonrpc": "2.0", "method": method, "params": params })
    }
}

/// An error response: exactly `jsonrpc`, `id` (null when unknown) and `error`.
pub fn failure(id: Option<&Id>, error: &RpcError) -> Value {
    json!({ "jsonrpc": "2.0", "id": id.map_or(Value::Null, |i| i.0.clone()), "error": error.to_value() })
}

/// `frame` with every lone UTF-16 surrogate escape (`\ud83d` not followed by its low half,
/// or a low half alone) written as U+FFFD (`\ufffd`, as long), borrowed when it has none.
///
/// JSON's grammar allows them and JavaScript writes them (`JSON.stringify` of a string cut
/// inside an emoji), but serde_json refuses them, and the whole frame was a parse error with
/// a null id: the client's request was never answered (found in review: the TypeScript SDK
/// timed out). Python and JavaScript read them the same way, as a replacement character.
pub fn lone_surrogates_replaced(frame: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    let escape_at = |i: usize| -> Option<u16> {
        let hex = frame.get(i..i + 6).filter(|e| e.starts_with(b"\\u"))?;
        u16::from_str_radix(std::str::from_utf8(&hex[2..]).ok()?, 16).ok()
    };
    let mut lone = Vec::new();
    let mut i = 0;
    while let Some(at) = frame[i..].iter().position(|&b| b == b'\\') {
        i += at;
        match escape_at(i) {
            Some(0xD800..=0xDBFF) if escape_at(i + 6).is_some_and(|low| (0xDC00..=0xDFFF).contains(&low)) => i += 12,
            Some(0xD800..=0xDFFF) => {
                lone.push(i);
                i += 6;
            }
            Some(_) => i += 6,
            None => i += 2,
        }
        if i >= frame.len() {
            break;
        }
    }
    if lone.is_empty() {
        return std::borrow::Cow::Borrowed(frame);
    }
    let mut fixed = frame.to_vec();
    for at in lone {
        fixed[at..at + 6].copy_from_slice(b"\\ufffd");
    }
    std::borrow::Cow::Owned(fixed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_is_at_most_a_kibibyte() {
        let uri = format!("vitaegraph://{}", "é".repeat(100_000));
        let e = RpcError::resource_not_found(&uri, format!("{uri} is not a resource of this server"));
        assert!(e.message.len() <= MAX_MESSAGE_BYTES && e.message.ends_with('…'), "{}", e.message.len());
        assert_eq!(e.data, Some(json!({ "uri": uri })));
        assert_eq!(RpcError::new(1, "short").message, "short");
    }

    #[test]
    fn lone_surrogates_read_as_replacement_characters() {
        let read = |f: &str| -> Value { serde_json::from_slice(&lone_surrogates_replaced(f.as_bytes())).unwrap() };
        assert_eq!(read(r#"{"q":"cache \ud83d"}"#), json!({"q": "cache \u{fffd}"}));
        assert_eq!(read(r#"{"q":"\udc00x\ud83d\ude00"}"#), json!({"q": "\u{fffd}x😀"}));
        assert_eq!(read(r#"{"q":"\ud83d\u0041"}"#), json!({"q": "\u{fffd}A"}));
        // An escaped backslash before `ud83d` is text, not an escape.
        assert_eq!(read(r#"{"q":"\\ud83d"}"#), json!({"q": "\\ud83d"}));
        assert!(matches!(lone_surrogates_replaced(br#"{"q":"\ud83d\ude00 \n"}"#), std::borrow::Cow::Borrowed(_)));
        // Cut short at the end of the frame: left to the parser to refuse.
        assert!(serde_json::from_slice::<Value>(&lone_surrogates_replaced(br#"{"q":"\ud8"#)).is_err());
    }

    fn invalid(v: Value) -> (Option<Id>, i64) {
        match classify(v) {
            Message::Invalid { id, error } => (id, error.code),
            other => panic!("expected invalid, got {other:?}"),
        }
    }

    /// A client's response is never answered (found in review: it got -32600), whatever it
    /// answers; a message with neither a method nor a result is still invalid.
    #[test]
    fn a_response_is_not_answered() {
        for v in [
            json!({"jsonrpc":"2.0","id":8,"result":{}}),
            json!({"jsonrpc":"2.0","id":"x","error":{"code":-32601,"message":"no"}}),
            json!({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse"}}),
        ] {
            assert!(matches!(classify(v.clone()), Message::Response), "{v}");
        }
        assert_eq!(invalid(json!({"jsonrpc":"2.0","id":8})), (Some(Id(json!(8))), -32600));
    }

    #[test]
    fn invalid_requests_echo_a_valid_id_only() {
        assert_eq!(invalid(json!({"jsonrpc":"1.0","id":7,"method":"ping"})), (Some(Id(json!(7))), -32600));
        assert_eq!(invalid(json!({"jsonrpc":"2.0","id":"a","method":3})), (Some(Id(json!("a"))), -32600));
        assert_eq!(invalid(json!({"jsonrpc":"2.0","id":null,"method":"ping"})), (None, -32600));
        assert_eq!(invalid(json!({"jsonrpc":"2.0","id":1.5,"method":"ping"})), (None, -32600));
        for id in [json!(1.0), json!(1e2), json!(-0.0)] {
            assert!(
                matches!(classify(json!({"jsonrpc":"2.0","id":id,"method":"ping"})), Message::Request { .. }),
                "{id}"
            );
        }
        assert_eq!(invalid(json!({"jsonrpc":"2.0","id":1.2345678901234568e22,"method":"ping"})), (None, -32600));
        assert_eq!(invalid(json!({"jsonrpc":"2.0","id":[1],"method":"ping"})), (None, -32600));
        assert_eq!(invalid(json!(42)), (None, -32600));
    }

    #[test]
    fn missing_and_empty_params_are_alike() {
        for v in
            [json!({"jsonrpc":"2.0","id":1,"method":"m"}), json!({"jsonrpc":"2.0","id":1,"method":"m","params":{}})]
        {
            match classify(v) {
                Message::Request { params, .. } => assert!(params.is_empty()),
                other => panic!("{other:?}"),
            }
        }
    }

    #[test]
    fn no_id_is_a_notification() {
        assert!(matches!(classify(json!({"jsonrpc":"2.0","method":"x"})), Message::Notification { .. }));
    }
}
