//! Reading an OpenAPI document leniently, for the reference page: its operations grouped
//! by tag, `$ref`s followed (cycles cut short), and an example call of each operation.
//! Whatever is missing or of an unexpected type reads as absent; nothing here panics.

use serde_json::{Map, Value};

/// The methods a path item can hold, in the order they are listed.
const METHODS: [&str; 8] = [
    "get", "put", "post", "delete", "options", "head", "patch", "trace",
];

/// `$ref` hops followed before giving up, so a cycle renders as a missing piece.
const MAX_REF_HOPS: usize = 8;

/// The placeholder the curl examples read the key from.
pub(super) const KEY_VARIABLE: &str = "$FORUMDEX_API_KEY";

/// One operation of the document.
pub(super) struct Operation<'a> {
    /// `get`, `post`, …
    pub(super) method: &'a str,
    /// The path template, e.g. `/api/v1/posts/{id}`.
    pub(super) path: &'a str,
    /// The operation object.
    pub(super) op: &'a Map<String, Value>,
    /// The path item's parameters, then the operation's own (which win on the same name
    /// and location), references resolved.
    pub(super) parameters: Vec<&'a Map<String, Value>>,
}

/// The operations filed under one tag.
pub(super) struct Group<'a> {
    /// The tag's name, or "Other".
    pub(super) name: String,
    /// The tag's description.
    pub(super) description: Option<&'a str>,
    /// In path order, then method order.
    pub(super) operations: Vec<Operation<'a>>,
}

/// The curl line of one operation: example values for path parameters and required query
/// parameters, the key header unless the operation needs none.
pub(super) fn curl_line(doc: &Value, operation: &Operation<'_>, base_url: &str) -> String {
    let mut path = operation.path.to_owned();
    let mut query = Vec::new();
    for parameter in &operation.parameters {
        let Some(name) = str_at_map(parameter, "name") else {
            continue;
        };
        let required = parameter.get("required") == Some(&Value::Bool(true));
        match str_at_map(parameter, "in") {
            Some("path") => {
                let value = percent_encode(&example_value(doc, parameter));
                path = path.replace(&format!("{{{name}}}"), &value);
            }
            Some("query") if required => {
                let value = example_value(doc, parameter);
                query.push(format!(
                    "{}={}",
                    percent_encode(name),
                    percent_encode(&value)
                ));
            }
            _ => {}
        }
    }
    let mut url = format!("{}{path}", base_url.trim_end_matches('/'));
    if !query.is_empty() {
        url.push('?');
        url.push_str(&query.join("&"));
    }
    let url = shell_double_quoted(&url);
    if needs_key(doc, operation.op) {
        format!("curl -H \"Authorization: Bearer {KEY_VARIABLE}\" \"{url}\"")
    } else {
        format!("curl \"{url}\"")
    }
}

/// A value to put in an example call: the parameter's or its schema's example, default, first
/// allowed value, else one that fits the type ("bitcoin" for text, the minimum or 1 for numbers).
pub(super) fn example_value(doc: &Value, parameter: &Map<String, Value>) -> String {
    let schema = parameter.get("schema").map(|s| resolve(doc, s));
    let named_example = parameter
        .get("examples")
        .and_then(Value::as_object)
        .and_then(|examples| examples.values().next())
        .and_then(|example| resolve(doc, example).get("value"));
    let candidates = [
        parameter.get("example"),
        named_example,
        schema.and_then(|s| s.get("example")),
        schema
            .and_then(|s| s.get("examples"))
            .and_then(Value::as_array)
            .and_then(|e| e.first()),
        schema.and_then(|s| s.get("default")),
        schema
            .and_then(|s| s.get("enum"))
            .and_then(Value::as_array)
            .and_then(|e| e.first()),
        schema.and_then(|s| s.get("const")),
    ];
    if let Some(value) = candidates.into_iter().flatten().find_map(scalar) {
        return value;
    }
    match schema.and_then(|s| str_at(s, "type")) {
        Some("integer" | "number") => {
            let minimum = schema
                .and_then(|s| s.get("minimum"))
                .and_then(Value::as_i64);
            minimum.filter(|m| *m > 0).unwrap_or(1).to_string()
        }
        Some("boolean") => "true".to_owned(),
        Some("string") => "bitcoin".to_owned(),
        _ => "1".to_owned(),
    }
}

/// Whether the operation needs a key: its own `security`, else the document's; an empty list,
/// or an empty requirement among them, means none.
pub(super) fn needs_key(doc: &Value, op: &Map<String, Value>) -> bool {
    let security = op.get("security").or_else(|| doc.get("security"));
    match security.and_then(Value::as_array) {
        Some(requirements) => {
            !requirements.is_empty()
                && !requirements
                    .iter()
                    .any(|r| r.as_object().is_some_and(Map::is_empty))
        }
        None => false,
    }
}

/// Every operation of the document, in path order then method order.
pub(super) fn operations(doc: &Value) -> Vec<Operation<'_>> {
    let Some(paths) = doc.get("paths").and_then(Value::as_object) else {
        return Vec::new();
    };
    let mut operations = Vec::new();
    for (path, item) in paths {
        let item = resolve(doc, item);
        let shared = parameter_list(doc, item.get("parameters"));
        for method in METHODS {
            let Some(op) = item.get(method).and_then(Value::as_object) else {
                continue;
            };
            let mut parameters: Vec<&Map<String, Value>> = shared.clone();
            for own in parameter_list(doc, op.get("parameters")) {
                parameters.retain(|p| !same_parameter(p, own));
                parameters.push(own);
            }
            operations.push(Operation {
                method,
                path,
                op,
                parameters,
            });
        }
    }
    operations
}

/// Operations filed under their first tag: the document's tags in its order, then tags it
/// does not declare, then "Other" for untagged operations.
pub(super) fn groups<'a>(doc: &'a Value, operations: Vec<Operation<'a>>) -> Vec<Group<'a>> {
    let mut groups: Vec<Group<'a>> = doc
        .get("tags")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|tag| {
            Some(Group {
                name: str_at(tag, "name")?.to_owned(),
                description: str_at(tag, "description"),
                operations: Vec::new(),
            })
        })
        .collect();
    for operation in operations {
        let tag = operation
            .op
            .get("tags")
            .and_then(Value::as_array)
            .and_then(|tags| tags.first())
            .and_then(Value::as_str)
            .unwrap_or("Other");
        match groups.iter_mut().find(|g| g.name == tag) {
            Some(group) => group.operations.push(operation),
            None => groups.push(Group {
                name: tag.to_owned(),
                description: None,
                operations: vec![operation],
            }),
        }
    }
    if let Some(other) = groups.iter().position(|g| g.name == "Other") {
        let other = groups.remove(other);
        groups.push(other);
    }
    groups.retain(|g| !g.operations.is_empty());
    groups
}

/// The parameters of a list, references resolved; entries without a name are dropped.
fn parameter_list<'a>(doc: &'a Value, list: Option<&'a Value>) -> Vec<&'a Map<String, Value>> {
    list.and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|p| resolve(doc, p).as_object())
        .filter(|p| str_at_map(p, "name").is_some())
        .collect()
}

/// Whether two parameters are the same one (OpenAPI: same name and location).
fn same_parameter(a: &Map<String, Value>, b: &Map<String, Value>) -> bool {
    str_at_map(a, "name") == str_at_map(b, "name") && str_at_map(a, "in") == str_at_map(b, "in")
}

/// Follows `$ref`s inside the document; an unresolvable one (or a cycle) yields the value
/// as it is, which then reads as missing pieces.
pub(super) fn resolve<'a>(doc: &'a Value, value: &'a Value) -> &'a Value {
    let mut current = value;
    for _ in 0..MAX_REF_HOPS {
        let target = ref_of(current)
            .and_then(|r| r.strip_prefix('#'))
            .and_then(|pointer| doc.pointer(pointer));
        match target {
            Some(target) => current = target,
            None => return current,
        }
    }
    current
}

/// The `$ref` of a reference object.
pub(super) fn ref_of(value: &Value) -> Option<&str> {
    str_at(value, "$ref")
}

/// A string member of a JSON object.
pub(super) fn str_at<'a>(value: &'a Value, key: &str) -> Option<&'a str> {
    value.get(key).and_then(Value::as_str)
}

/// A string member of a JSON object's map.
pub(super) fn str_at_map<'a>(map: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    map.get(key).and_then(Value::as_str)
}

/// A JSON value as text: strings without quotes, the rest as JSON.
pub(super) fn display(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

/// A string, number or boolean as text; `None` for the rest.
fn scalar(value: &Value) -> Option<String> {
    match value {
        Value::String(_) | Value::Number(_) | Value::Bool(_) => Some(display(value)),
        _ => None,
    }
}

/// Percent-encodes everything but RFC 3986's unreserved characters.
fn percent_encode(text: &str) -> String {
    let mut encoded = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
            encoded.push(char::from(byte));
        } else {
            encoded.push_str(&format!("%{byte:02X}"));
        }
    }
    encoded
}

/// Escapes what a POSIX shell expands inside double quotes.
fn shell_double_quoted(text: &str) -> String {
    let mut quoted = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '"' | '$' | '`' | '\\') {
            quoted.push('\\');
        }
        quoted.push(c);
    }
    quoted
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn examples_prefer_the_document_and_fall_back_by_type() {
        let doc = json!({});
        let parameter = |p: Value| p.as_object().cloned().expect("object");
        let cases = [
            (json!({ "example": 42 }), "42"),
            (json!({ "examples": { "one": { "value": "x" } } }), "x"),
            (
                json!({ "schema": { "type": "string", "default": "asc" } }),
                "asc",
            ),
            (
                json!({ "schema": { "type": "string", "enum": ["0"] } }),
                "0",
            ),
            (
                json!({ "schema": { "type": "integer", "minimum": 5 } }),
                "5",
            ),
            (
                json!({ "schema": { "type": "integer", "minimum": 0 } }),
                "1",
            ),
            (json!({ "schema": { "type": "string" } }), "bitcoin"),
            (json!({ "schema": { "type": "boolean" } }), "true"),
            (json!({}), "1"),
        ];
        for (p, expected) in cases {
            assert_eq!(example_value(&doc, &parameter(p.clone())), expected, "{p}");
        }
    }

    #[test]
    fn references_are_followed_and_cycles_cut_short() {
        let doc = json!({ "components": { "parameters": {
            "a": { "$ref": "#/components/parameters/b" },
            "b": { "name": "id", "in": "path" },
            "loop": { "$ref": "#/components/parameters/loop" },
            "tilde~name": { "name": "escaped" }
        } } });
        let reference = |r: &str| json!({ "$ref": r });
        let a = reference("#/components/parameters/a");
        assert_eq!(str_at(resolve(&doc, &a), "name"), Some("id"));
        let looping = reference("#/components/parameters/loop");
        assert!(ref_of(resolve(&doc, &looping)).is_some());
        let escaped = reference("#/components/parameters/tilde~0name");
        assert_eq!(str_at(resolve(&doc, &escaped), "name"), Some("escaped"));
        let missing = reference("https://elsewhere.test/doc.json#/x");
        assert_eq!(resolve(&doc, &missing), &missing);
    }

    #[test]
    fn operation_parameters_override_path_parameters() {
        let doc = json!({ "paths": { "/t/{id}": {
            "parameters": [
                { "name": "id", "in": "path", "description": "shared" },
                { "name": "q", "in": "query" }
            ],
            "get": { "parameters": [{ "name": "id", "in": "path", "description": "own" }] },
            "summary": "not an operation"
        } } });
        let operations = operations(&doc);
        assert_eq!(operations.len(), 1);
        let names: Vec<_> = operations[0]
            .parameters
            .iter()
            .map(|p| (str_at_map(p, "name"), str_at_map(p, "description")))
            .collect();
        assert_eq!(names, [(Some("q"), None), (Some("id"), Some("own"))]);
    }

    #[test]
    fn shell_and_url_specials_are_escaped() {
        assert_eq!(percent_encode("a b&c=d/é"), "a%20b%26c%3Dd%2F%C3%A9");
        assert_eq!(shell_double_quoted(r#"a"$`\b"#), r#"a\"\$\`\\b"#);
    }
}
