//! Reading the OpenAPI document: its component schemas, `$ref` resolution, and validation
//! (JSON Schema 2020-12 with formats asserted, as the server's tests validate bodies).

use std::sync::OnceLock;

use serde_json::{Value, json};

/// The prefix of a reference to a component schema.
const COMPONENT: &str = "#/components/schemas/";

/// The document, parsed.
pub fn document() -> &'static Value {
    static DOCUMENT: OnceLock<Value> = OnceLock::new();
    DOCUMENT.get_or_init(|| {
        serde_json::from_str(forumdex_types::OPENAPI).expect("openapi.json is JSON")
    })
}

/// The names of `components.schemas`.
pub fn component_names() -> Vec<&'static str> {
    document()["components"]["schemas"]
        .as_object()
        .expect("components.schemas is an object")
        .keys()
        .map(String::as_str)
        .collect()
}

/// The component schema `name` (panics when the document has none).
pub fn component(name: &str) -> &'static Value {
    document()["components"]["schemas"]
        .get(name)
        .unwrap_or_else(|| panic!("openapi.json has no schema {name}"))
}

/// The component a `$ref` names, if `schema` is a reference to one.
pub fn reference(schema: &Value) -> Option<&str> {
    schema.get("$ref")?.as_str()?.strip_prefix(COMPONENT)
}

/// Why `value` is not valid against the component schema `name` (empty: it is).
pub fn errors(value: &Value, name: &str) -> Vec<String> {
    errors_at(value, &format!("/components/schemas/{name}"))
}

/// Why `value` is not valid against the schema at `pointer` in the document (empty: it is).
pub fn errors_at(value: &Value, pointer: &str) -> Vec<String> {
    let root = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$ref": format!("#{pointer}"),
        "components": document()["components"],
    });
    let validator = jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .should_validate_formats(true)
        .build(&root)
        .unwrap_or_else(|err| panic!("schema {pointer} does not compile: {err}"));
    validator
        .iter_errors(value)
        .map(|err| format!("{}: {err}", err.instance_path()))
        .collect()
}

/// Whether the schema's type admits only `null` (a branch of `anyOf: [X, {type: null}]`).
pub fn is_null_only(schema: &Value) -> bool {
    schema.get("type") == Some(&json!("null"))
}
