//! Checking tool-call arguments against a skill's `inputSchema`: `required`, the JSON types
//! string/number/integer/boolean/array/object, `enum`, and `additionalProperties: false` when
//! declared. Messages are skill-central's where it has one.

use super::yaml::Value;

fn type_matches(expected: &str, v: &Value) -> Option<bool> {
    Some(match expected {
        "string" => matches!(v, Value::String(_)),
        "number" => matches!(v, Value::Int(_) | Value::Float(_)),
        "integer" => match v {
            Value::Int(_) => true,
            Value::Float(f) => f.fract() == 0.0 && f.is_finite(),
            _ => false,
        },
        "boolean" => matches!(v, Value::Bool(_)),
        "array" => matches!(v, Value::Array(_)),
        "object" => matches!(v, Value::Object(_)),
        "null" => matches!(v, Value::Null),
        _ => return None,
    })
}

/// Loose equality for `enum`: numbers compare by value (1 == 1.0), the rest structurally.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Int(x), Value::Float(y)) | (Value::Float(y), Value::Int(x)) => (*x as f64) == *y,
        _ => a == b,
    }
}

/// Every problem with `args` under `schema`, one line each, missing required arguments first.
/// An argument given as `null` counts as absent (skill-central treats it so).
pub fn check(schema: &Value, args: &[(String, Value)]) -> Vec<String> {
    // Looked up, not scanned: a call with thousands of arguments against a schema with
    // thousands of properties was multiplied (found in review). The first of a name counts.
    let mut by_name: std::collections::HashMap<&str, &Value> = std::collections::HashMap::with_capacity(args.len());
    for (k, v) in args {
        by_name.entry(k.as_str()).or_insert(v);
    }
    let given = |name: &str| by_name.get(name).copied().filter(|v| **v != Value::Null);
    let mut problems = Vec::new();
    if let Some(Value::Array(required)) = schema.get("required") {
        for name in required.iter().filter_map(Value::as_str) {
            if given(name).is_none() {
                problems.push(format!("Missing required argument: {}", Value::String(name.into()).to_json()));
            }
        }
    }
    let properties = match schema.get("properties") {
        Some(Value::Object(p)) => p.as_slice(),
        _ => &[],
    };
    for (name, prop) in properties {
        let Some(v) = given(name) else { continue };
        let quoted = Value::String(name.clone()).to_json();
        let types: Vec<&str> = match prop.get("type") {
            Some(Value::String(t)) => vec![t.as_str()],
            Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        let known: Vec<bool> = types.iter().filter_map(|t| type_matches(t, v)).collect();
        if !known.is_empty() && !known.contains(&true) {
            problems.push(format!("Argument {quoted} expected {}, got {}", types.join(" or "), v.type_name()));
            continue;
        }
        if let Some(Value::Array(allowed)) = prop.get("enum")
            && !allowed.iter().any(|a| same(a, v))
        {
            let list: Vec<String> = allowed.iter().map(Value::to_json).collect();
            problems.push(format!("Argument {quoted} must be one of: {}, got {}", list.join(", "), v.to_json()));
        }
    }
    if schema.get("additionalProperties") == Some(&Value::Bool(false)) {
        let declared: std::collections::HashSet<&str> = properties.iter().map(|(p, _)| p.as_str()).collect();
        for (name, _) in args {
            if !declared.contains(name.as_str()) {
                problems.push(format!("Unexpected argument: {}", Value::String(name.clone()).to_json()));
            }
        }
    }
    problems
}
