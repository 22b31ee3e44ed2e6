//! The API reference (`/docs`), rendered from the OpenAPI document: the service, how to
//! authenticate, every operation (parameters, responses, a curl line) and every schema.
//!
//! Generic over the document: nothing is written per operation, whatever is missing or oddly
//! typed is skipped (never a panic), and every piece of the document's text goes through
//! maud's escaping.

mod openapi;

use maud::{Markup, html};
use serde_json::{Map, Value};

use openapi::{
    Group, KEY_VARIABLE, Operation, curl_line, display, example_value, groups, needs_key,
    operations, ref_of, resolve, str_at, str_at_map,
};

/// How deep nested schemas are described (arrays of arrays, objects inside objects).
const MAX_DEPTH: usize = 4;

/// The reference page's content for `openapi` (the parsed document); curl examples call
/// `base_url` (the service's address, no trailing slash needed).
pub fn render(openapi: &Value, base_url: &str) -> Markup {
    let groups = groups(openapi, operations(openapi));
    let schemas = openapi
        .pointer("/components/schemas")
        .and_then(Value::as_object);
    html! {
        div.docs {
            (intro(openapi, base_url))
            (contents(&groups, schemas))
            (authentication(openapi))
            @for group in &groups {
                section.tag-group {
                    h2 { (group.name) }
                    @if let Some(description) = group.description { p { (description) } }
                    @for operation in &group.operations {
                        (operation_block(openapi, operation, base_url))
                    }
                }
            }
            @if let Some(schemas) = schemas.filter(|s| !s.is_empty()) {
                section #schemas {
                    h2 { "Schemas" }
                    @for (name, schema) in schemas {
                        (schema_block(openapi, name, schema))
                    }
                }
            }
        }
    }
}

fn intro(doc: &Value, base_url: &str) -> Markup {
    let info = doc.get("info");
    let title = info
        .and_then(|i| str_at(i, "title"))
        .unwrap_or("API reference");
    html! {
        h1 { (title) }
        @if let Some(version) = info.and_then(|i| str_at(i, "version")) {
            p.version { "Version " (version) }
        }
        @if let Some(description) = info.and_then(|i| str_at(i, "description")) {
            (paragraphs(description))
        }
        p { "Base URL: " code { (base_url.trim_end_matches('/')) } }
        form #try-key-form.inline hidden {
            label for="try-key" { "Your API key, to try the operations below from this page (kept in this page only; each successful call is charged as usual)" }
            input #try-key type="password" autocomplete="off" spellcheck="false" placeholder="fdx_live_…";
        }
    }
}

fn contents(groups: &[Group<'_>], schemas: Option<&Map<String, Value>>) -> Markup {
    html! {
        nav.toc aria-label="Contents" {
            h2 { "Contents" }
            ul {
                li { a href="#authentication" { "Authentication" } }
                @for group in groups {
                    li {
                        (group.name)
                        ul {
                            @for operation in &group.operations {
                                li {
                                    a href={ "#" (operation_anchor(operation)) } {
                                        span class={ "method " (operation.method) } { (operation.method.to_uppercase()) } " "
                                        code { (operation.path) }
                                    }
                                    @if let Some(summary) = str_at_map(operation.op, "summary") {
                                        " — " (summary)
                                    }
                                }
                            }
                        }
                    }
                }
                @if let Some(schemas) = schemas.filter(|s| !s.is_empty()) {
                    li.schemas {
                        a href="#schemas" { "Schemas" } ": "
                        @for (i, name) in schemas.keys().enumerate() {
                            @if i > 0 { ", " }
                            a href={ "#" (anchor("schema", name)) } { (name) }
                        }
                    }
                }
            }
        }
    }
}

fn authentication(doc: &Value) -> Markup {
    let schemes = doc
        .pointer("/components/securitySchemes")
        .and_then(Value::as_object);
    let required: Vec<&str> = doc
        .get("security")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_object)
        .flat_map(|requirement| requirement.keys().map(String::as_str))
        .collect();
    html! {
        section #authentication {
            h2 { "Authentication" }
            @if !required.is_empty() {
                p {
                    "Operations need an API key, sent in any one of these ways: "
                    @for (i, name) in required.iter().enumerate() {
                        @if i > 0 { ", " }
                        code { (name) }
                    }
                    ". Operations marked " span.badge { "no key" } " are free and need none. "
                    "The examples read the key from " code { (KEY_VARIABLE) } "."
                }
            }
            @if let Some(schemes) = schemes {
                dl.schemes {
                    @for (name, scheme) in schemes {
                        @let scheme = resolve(doc, scheme);
                        dt { code { (name) } }
                        dd {
                            (scheme_kind(scheme))
                            @if let Some(description) = str_at(scheme, "description") {
                                " " (description)
                            }
                        }
                    }
                }
            }
        }
    }
}

/// How a security scheme is sent, in words.
fn scheme_kind(scheme: &Value) -> Markup {
    match (str_at(scheme, "type"), str_at(scheme, "in")) {
        (Some("http"), _) => {
            let kind = str_at(scheme, "scheme").unwrap_or("");
            html! { "HTTP " (kind) " authentication." }
        }
        (Some("apiKey"), Some(location)) => {
            let name = str_at(scheme, "name").unwrap_or("");
            html! { "API key in the " (location) " " code { (name) } "." }
        }
        (Some(kind), _) => html! { (kind) "." },
        (None, _) => html! {},
    }
}

fn operation_block(doc: &Value, operation: &Operation<'_>, base_url: &str) -> Markup {
    let op = operation.op;
    let heading = str_at_map(op, "summary")
        .or_else(|| str_at_map(op, "operationId"))
        .unwrap_or(operation.path);
    let responses = op.get("responses").and_then(Value::as_object);
    html! {
        article.operation id=(operation_anchor(operation)) {
            h3 { (heading) }
            p.endpoint {
                span class={ "method " (operation.method) } { (operation.method.to_uppercase()) }
                " " code.path { (operation.path) }
                @if !needs_key(doc, op) { " " span.badge { "no key" } }
            }
            @if let Some(id) = str_at_map(op, "operationId") {
                p.operation-id { "operationId " code { (id) } }
            }
            @if let Some(description) = str_at_map(op, "description") {
                (paragraphs(description))
            }
            @if !operation.parameters.is_empty() {
                h4 { "Parameters" }
                (parameters_table(doc, &operation.parameters))
            }
            @if let Some(responses) = responses.filter(|r| !r.is_empty()) {
                h4 { "Responses" }
                (responses_table(doc, responses))
            }
            h4 { "Example" }
            pre.curl { code { (curl_line(doc, operation, base_url)) } }
            @if operation.method == "get" {
                (try_form(doc, operation, needs_key(doc, op)))
            }
        }
    }
}

/// The explorer's form of a `GET` operation: its parameters (filled with the example's
/// values), sent from the page with the key typed at the top (`dashboard.js`); the answer's
/// status, metering headers and body appear below it, with the curl line of the same call.
/// Hidden until the script shows it: without scripts the page is the reference alone.
fn try_form(doc: &Value, operation: &Operation<'_>, with_key: bool) -> Markup {
    let id = operation_anchor(operation);
    html! {
        form.try hidden data-path=(operation.path) data-key=(with_key) aria-label={ "Try " (operation.path) } {
            h4 { "Try it" }
            @for parameter in &operation.parameters {
                @let name = str_at_map(parameter, "name").unwrap_or("");
                @let input = format!("{id}-{name}");
                @let required = parameter.get("required") == Some(&Value::Bool(true));
                label for=(input) { code { (name) } @if required { " (required)" } }
                input id=(input) type="text" name=(name) data-in=(str_at_map(parameter, "in").unwrap_or("query"))
                    value=[required.then(|| example_value(doc, parameter))];
            }
            button type="submit" { "Send" }
            div.try-answer hidden {
                p.try-status role="status" {}
                pre.try-headers tabindex="0" {}
                pre.try-body tabindex="0" {}
                pre.try-curl tabindex="0" {}
            }
        }
    }
}

fn parameters_table(doc: &Value, parameters: &[&Map<String, Value>]) -> Markup {
    html! {
        div.table-wrap tabindex="0" {
            table.params.stack {
                thead { tr { th { "Name" } th { "In" } th { "Required" } th { "Type" } th { "Description" } } }
                tbody {
                    @for parameter in parameters {
                        @let schema = parameter.get("schema").map(|s| resolve(doc, s));
                        tr {
                            td { code { (str_at_map(parameter, "name").unwrap_or("")) } }
                            td data-label="In" { (str_at_map(parameter, "in").unwrap_or("")) }
                            td data-label="Required" { (yes_no(parameter.get("required") == Some(&Value::Bool(true)))) }
                            td data-label="Type" {
                                @if let Some(schema) = schema {
                                    (type_markup(schema, 0))
                                    (constraints(schema))
                                }
                            }
                            td data-label="Description" { (str_at_map(parameter, "description").unwrap_or("")) }
                        }
                    }
                }
            }
        }
    }
}

fn responses_table(doc: &Value, responses: &Map<String, Value>) -> Markup {
    html! {
        div.table-wrap tabindex="0" {
            table.responses.stack {
                thead { tr { th { "Status" } th { "Description" } th { "Returns" } } }
                tbody {
                    @for (status, response) in responses {
                        @let response = resolve(doc, response);
                        @let headers = response.get("headers").and_then(Value::as_object);
                        tr {
                            td { code { (status) } }
                            td data-label="Description" {
                                (str_at(response, "description").unwrap_or(""))
                                @if let Some(headers) = headers.filter(|h| !h.is_empty()) {
                                    br;
                                    small.headers {
                                        "Headers: "
                                        @for (i, name) in headers.keys().enumerate() {
                                            @if i > 0 { ", " }
                                            code { (name) }
                                        }
                                    }
                                }
                            }
                            td data-label="Returns" {
                                @if let Some(content) = response.get("content").and_then(Value::as_object) {
                                    @for (media_type, body) in content {
                                        div {
                                            @if let Some(schema) = body.get("schema") {
                                                (type_markup(schema, 0)) " "
                                            }
                                            small { (media_type) }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

fn schema_block(doc: &Value, name: &str, schema: &Value) -> Markup {
    let mut rows = Vec::new();
    field_rows(resolve(doc, schema), "", 0, &mut rows);
    html! {
        article.schema id=(anchor("schema", name)) {
            h3 { (name) }
            @if let Some(description) = str_at(schema, "description") {
                (paragraphs(description))
            }
            @if rows.is_empty() {
                p { "Type: " (type_markup(schema, 0)) (constraints(schema)) }
            } @else {
                div.table-wrap tabindex="0" {
                    table.fields.stack {
                        thead { tr { th { "Field" } th { "Type" } th { "Required" } th { "Description" } } }
                        tbody {
                            @for row in &rows {
                                tr {
                                    td { code { (row.name) } }
                                    td data-label="Type" { (type_markup(row.schema, 0)) (constraints(row.schema)) }
                                    td data-label="Required" { (yes_no(row.required)) }
                                    td data-label="Description" { (str_at(row.schema, "description").unwrap_or("")) }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// One property of a schema, nested inline objects flattened to `parent.child`.
struct FieldRow<'a> {
    name: String,
    schema: &'a Value,
    required: bool,
}

fn field_rows<'a>(schema: &'a Value, prefix: &str, depth: usize, rows: &mut Vec<FieldRow<'a>>) {
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return;
    };
    if depth > MAX_DEPTH {
        return;
    }
    let required = schema.get("required").and_then(Value::as_array);
    for (name, property) in properties {
        let is_required = required.is_some_and(|r| r.iter().any(|n| n.as_str() == Some(name)));
        let full_name = format!("{prefix}{name}");
        rows.push(FieldRow {
            name: full_name.clone(),
            schema: property,
            required: is_required,
        });
        field_rows(property, &format!("{full_name}."), depth + 1, rows);
    }
}

/// A schema's type in a few words: referenced schemas as links, arrays as "array of …",
/// `null` among the types (or the alternatives) as "nullable".
fn type_markup(schema: &Value, depth: usize) -> Markup {
    if depth > MAX_DEPTH {
        return html! { "…" };
    }
    if let Some(reference) = ref_of(schema) {
        return schema_link(reference);
    }
    for (key, joiner) in [("anyOf", " or "), ("oneOf", " or "), ("allOf", " and ")] {
        let Some(alternatives) = schema.get(key).and_then(Value::as_array) else {
            continue;
        };
        let (nulls, others): (Vec<&Value>, Vec<&Value>) = alternatives
            .iter()
            .partition(|a| a.get("type").and_then(Value::as_str) == Some("null"));
        return html! {
            span.type {
                @for (i, alternative) in others.iter().enumerate() {
                    @if i > 0 { (joiner) }
                    (type_markup(alternative, depth + 1))
                }
                @if !nulls.is_empty() { ", nullable" }
            }
        };
    }
    let types: Vec<&str> = match schema.get("type") {
        Some(Value::String(one)) => vec![one.as_str()],
        Some(Value::Array(many)) => many.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    let nullable = types.contains(&"null");
    let types: Vec<&str> = types.into_iter().filter(|t| *t != "null").collect();
    let format = str_at(schema, "format");
    html! {
        span.type {
            @if types == ["array"] {
                "array of "
                @match schema.get("items") {
                    Some(items) => { (type_markup(items, depth + 1)) }
                    None => { "any" }
                }
            } @else if types.is_empty() {
                @if schema.get("properties").is_some() { "object" } @else { "any" }
            } @else {
                (types.join(" or "))
            }
            @if let Some(format) = format { " (" (format) ")" }
            @if nullable { ", nullable" }
        }
    }
}

/// Limits, patterns, allowed and default values of a schema, as a small list.
fn constraints(schema: &Value) -> Markup {
    let mut items: Vec<(&str, String)> = Vec::new();
    for (key, label) in [
        ("minimum", "min"),
        ("maximum", "max"),
        ("exclusiveMinimum", "more than"),
        ("exclusiveMaximum", "less than"),
        ("minLength", "min length"),
        ("maxLength", "max length"),
        ("minItems", "min items"),
        ("maxItems", "max items"),
        ("pattern", "pattern"),
        ("const", "always"),
        ("default", "default"),
    ] {
        if let Some(value) = schema.get(key) {
            items.push((label, display(value)));
        }
    }
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        let values: Vec<String> = values.iter().map(display).collect();
        items.push(("one of", values.join(", ")));
    }
    if let Some(example) = schema
        .get("examples")
        .and_then(Value::as_array)
        .and_then(|e| e.first())
    {
        items.push(("example", display(example)));
    }
    html! {
        @if !items.is_empty() {
            ul.constraints {
                @for (label, value) in &items { li { (label) " " code { (value) } } }
            }
        }
    }
}

/// A link to a schema's block for `#/components/schemas/Name`, else the reference as text.
fn schema_link(reference: &str) -> Markup {
    match reference.strip_prefix("#/components/schemas/") {
        Some(name) if !name.is_empty() && !name.contains('/') => {
            html! { a.schema-ref href={ "#" (anchor("schema", name)) } { (name) } }
        }
        _ => html! { code { (reference) } },
    }
}

/// The id of an operation's block: `op-` and its operationId, else its method and path.
fn operation_anchor(operation: &Operation<'_>) -> String {
    match str_at_map(operation.op, "operationId") {
        Some(id) => anchor("op", id),
        None => anchor("op", &format!("{}-{}", operation.method, operation.path)),
    }
}

/// An HTML id (and fragment) made of safe characters only.
fn anchor(prefix: &str, name: &str) -> String {
    let name: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' {
                c
            } else {
                '-'
            }
        })
        .collect();
    format!("{prefix}-{name}")
}

/// Text split into paragraphs at blank lines.
fn paragraphs(text: &str) -> Markup {
    html! {
        @for paragraph in text.split("\n\n").map(str::trim).filter(|p| !p.is_empty()) {
            p { (paragraph) }
        }
    }
}

/// "yes" or "no".
fn yes_no(yes: bool) -> &'static str {
    if yes { "yes" } else { "no" }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn real_document() -> Value {
        serde_json::from_str(forumdex_types::OPENAPI).expect("the OpenAPI document is JSON")
    }

    #[test]
    fn renders_every_operation_and_schema_of_the_real_document() {
        let doc = real_document();
        let page = render(&doc, "https://api.example.test").into_string();
        let paths = doc["paths"].as_object().expect("paths");
        let mut seen = 0;
        for item in paths.values() {
            for op in item.as_object().expect("path item").values() {
                let id = op["operationId"].as_str().expect("operationId");
                assert!(
                    page.contains(&format!("id=\"op-{id}\"")),
                    "{id} has no block"
                );
                assert!(
                    page.contains(&format!("href=\"#op-{id}\"")),
                    "{id} not in contents"
                );
                assert!(
                    page.contains(&format!("<code>{id}</code>")),
                    "{id} not named"
                );
                seen += 1;
            }
        }
        assert!(seen >= 11, "only {seen} operations");
        for name in doc["components"]["schemas"]
            .as_object()
            .expect("schemas")
            .keys()
        {
            assert!(
                page.contains(&format!("id=\"schema-{name}\"")),
                "{name} has no block"
            );
        }
        assert!(page.contains("Indexed Forum Corpus API"));
        assert!(page.contains("X-API-Key"), "security schemes are listed");
    }

    #[test]
    fn every_get_operation_has_an_explorer_form_with_a_labelled_field_per_parameter() {
        let doc = real_document();
        let page = render(&doc, "https://api.example.test").into_string();
        let forms = page.matches("<form class=\"try\" hidden").count();
        assert_eq!(forms, 11, "one per GET operation");
        assert!(
            page.contains("id=\"try-key\""),
            "one key field for them all"
        );
        let post = page
            .split("id=\"op-getForumPost\"")
            .nth(1)
            .expect("the post lookup");
        assert!(
            post.contains("<label for=\"op-getForumPost-id\"><code>id</code> (required)</label>"),
            "{post}"
        );
        assert!(
            post.contains("id=\"op-getForumPost-id\" type=\"text\" name=\"id\" data-in=\"path\"")
        );
        assert!(post.contains("data-key=\"true\""), "it sends the key");
    }

    #[test]
    fn curl_lines_call_the_base_url_with_example_values() {
        let doc = real_document();
        let page = render(&doc, "https://api.example.test/").into_string();
        let curls: Vec<&str> = page.split("<pre class=\"curl\"><code>").skip(1).collect();
        assert_eq!(curls.len(), 11);
        for curl in &curls {
            assert!(curl.starts_with("curl "), "{curl}");
            assert!(curl.contains("&quot;https://api.example.test/"), "{curl}");
            assert!(
                !curl.contains("test//"),
                "trailing slash is not doubled: {curl}"
            );
        }
        let line = "curl -H &quot;Authorization: Bearer $FORUMDEX_API_KEY&quot; \
                    &quot;https://api.example.test/api/v1/search?q=bitcoin&quot;";
        assert!(page.contains(line), "search example");
        assert!(
            page.contains("/api/v1/topics/1/posts&quot;"),
            "path parameter filled"
        );
        assert!(
            page.contains("curl &quot;https://api.example.test/healthz&quot;"),
            "free operations are shown without a key"
        );
    }

    #[test]
    fn ref_parameters_and_responses_are_resolved() {
        let doc = json!({
            "paths": { "/things/{id}": { "get": {
                "operationId": "getThing",
                "parameters": [
                    { "$ref": "#/components/parameters/thingId" },
                    { "name": "q", "in": "query", "required": true,
                      "schema": { "type": "string", "examples": ["a b"] } }
                ],
                "responses": { "200": { "$ref": "#/components/responses/Ok" } }
            } } },
            "components": {
                "parameters": { "thingId": {
                    "name": "id", "in": "path", "required": true,
                    "description": "The thing's number.",
                    "schema": { "type": "integer", "minimum": 7 }
                } },
                "responses": { "Ok": {
                    "description": "The thing itself.",
                    "content": { "application/json": {
                        "schema": { "$ref": "#/components/schemas/Thing" } } }
                } },
                "schemas": { "Thing": { "type": "object", "properties": {
                    "parts": { "type": "array", "items": { "$ref": "#/components/schemas/Part" } },
                    "kind": { "type": ["string", "null"], "enum": ["big", "small"] }
                } } }
            }
        });
        let page = render(&doc, "http://h").into_string();
        assert!(page.contains("The thing&#39;s number.") || page.contains("The thing's number."));
        assert!(page.contains("<code>id</code>"));
        assert!(page.contains("min <code>7</code>"));
        assert!(
            page.contains("&quot;http://h/things/7?q=a%20b&quot;"),
            "{page}"
        );
        assert!(page.contains("The thing itself."));
        assert!(page.contains("href=\"#schema-Thing\""));
        assert!(page.contains("array of <a class=\"schema-ref\" href=\"#schema-Part\">Part</a>"));
        assert!(page.contains("string, nullable"));
        assert!(page.contains("one of <code>big, small</code>"));
    }

    #[test]
    fn document_text_is_escaped() {
        let doc = json!({
            "info": { "title": "<script>alert(1)</script>", "description": "a & b" },
            "paths": { "/x\"><img>": { "get": { "operationId": "<b>", "summary": "<i>" } } }
        });
        let page = render(&doc, "http://h").into_string();
        assert!(!page.contains("<script>"));
        assert!(!page.contains("<img>"));
        assert!(!page.contains("<b>"));
        assert!(page.contains("&lt;script&gt;"));
        assert!(page.contains("id=\"op--b-\""));
    }

    #[test]
    fn odd_documents_render_without_panicking() {
        let cyclic = json!({
            "components": { "parameters": { "a": { "$ref": "#/components/parameters/b" },
                                            "b": { "$ref": "#/components/parameters/a" } } },
            "paths": { "/p": { "get": { "parameters": [{ "$ref": "#/components/parameters/a" }] } } }
        });
        let mut deep = json!({ "type": "string" });
        for level in 0..50 {
            deep = if level % 2 == 0 {
                json!({ "type": "array", "items": deep })
            } else {
                json!({ "type": "object", "properties": { "x": deep } })
            };
        }
        let documents = [
            Value::Null,
            json!(true),
            json!("openapi"),
            json!([1, 2, 3]),
            json!({}),
            json!({ "info": 5, "paths": [], "components": "x", "security": {} }),
            json!({ "paths": { "/a": 1, "/b": { "get": 2, "post": [] }, "/c": { "get": {
                "parameters": [5, null, { "$ref": 7 }, { "$ref": "#/nowhere" }, { "name": 3 }],
                "responses": { "200": 4, "404": { "content": { "x": 1 } } },
                "tags": [1], "security": "none"
            } } } }),
            json!({ "components": { "schemas": { "A": 1, "B": { "properties": 2 },
                "C": { "type": [1, null], "enum": 3, "anyOf": 4 } },
                "securitySchemes": { "s": 1, "t": { "type": 9 } } },
                "tags": [{ "name": 1 }, 2] }),
            cyclic,
            json!({ "components": { "schemas": { "Deep": deep } } }),
        ];
        for doc in &documents {
            let page = render(doc, "").into_string();
            assert!(page.contains("Authentication"));
        }
    }
}
