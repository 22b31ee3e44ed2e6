//! The served document and the Rust types must not drift. For every component schema of
//! `openapi.json` there is a Rust type (a new schema without one fails), and its full sample
//! (`samples.rs`):
//! - validates against the schema;
//! - declares the same properties: every property of the schema appears in the sample's
//!   JSON and every key of that JSON is a property of the schema, recursively;
//! - comes back equal, and serialises to the same bytes, after a trip through JSON.
//!
//! Every `enum` and `const` of the schemas is a Rust enum with exactly those values.
//! Failures name the schema and the property.

use std::collections::BTreeSet;
use std::fmt::Debug;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::samples;
use crate::schema::{self, component, component_names, errors, errors_at, reference};

/// A component schema and the full sample of the Rust type that serves it.
struct Case {
    schema: &'static str,
    json: Value,
    /// Why the sample does not survive a trip through JSON (`None`: it does).
    round_trip: Option<String>,
}

fn case<T>(schema: &'static str, sample: T) -> Case
where
    T: Serialize + DeserializeOwned + PartialEq + Debug,
{
    let text = serde_json::to_string(&sample).expect("a wire type serialises");
    let round_trip = match serde_json::from_str::<T>(&text) {
        Err(err) => Some(format!("does not deserialise from its own JSON: {err}")),
        Ok(back) if back != sample => Some(format!("comes back as {back:?}")),
        Ok(back) => (serde_json::to_string(&back).expect("serialises") != text)
            .then(|| "serialises to other bytes after a round trip".to_owned()),
    };
    Case {
        schema,
        json: serde_json::from_str(&text).expect("serde_json reads its own output"),
        round_trip,
    }
}

/// Every component schema with its Rust type: a new schema in the document needs a line
/// here ([`every_component_schema_has_a_rust_type`]).
fn cases() -> Vec<Case> {
    vec![
        case("Author", samples::author()),
        case("Board", samples::board()),
        case("Merit", samples::merit()),
        case("PostSummary", samples::post_summary()),
        case("Post", samples::post()),
        case("Topic", samples::topic()),
        case("Profile", samples::profile()),
        case("SearchHit", samples::search_hit()),
        case("SearchResponse", samples::search_response()),
        case("Image", samples::image()),
        case("ImageSearchResponse", samples::image_search_response()),
        case("PostList", samples::post_list()),
        case("Error", samples::error_body()),
    ]
}

/// Keys the server sends beyond the document, where the schema allows additional properties:
/// (schema, key). Every other undeclared key is drift, and an entry here that is declared
/// (or no longer allowed, or no longer sent) is too.
const UNDECLARED: &[(&str, &str)] = &[
    ("SearchHit", "date_source"),
    ("SearchHit", "is_op"),
    ("SearchHit", "url"),
];

/// The JSON strings of every variant of a wire enum. The closure's `match` names every
/// variant, so a new variant stops this from compiling until it is listed.
macro_rules! variants {
    ($ty:ident: $($variant:ident),+ $(,)?) => {{
        let _every_variant_is_listed = |value: forumdex_types::$ty| match value {
            $(forumdex_types::$ty::$variant => {})+
        };
        vec![$(serde_json::to_value(forumdex_types::$ty::$variant).expect("an enum serialises")),+]
    }};
}

/// The Rust enum of every `enum` or `const` of the document's schemas, by the JSON pointer
/// of the field in the document.
fn enums() -> Vec<(&'static str, Vec<Value>)> {
    vec![
        (
            "/components/schemas/Post/properties/object",
            variants!(PostObject: Post),
        ),
        (
            "/components/schemas/Topic/properties/object",
            variants!(TopicObject: Topic),
        ),
        (
            "/components/schemas/Profile/properties/object",
            variants!(ProfileObject: Profile),
        ),
        (
            "/components/schemas/Profile/properties/corpus/properties/derived_from",
            variants!(DerivedFrom: DistinctIndexedPosts),
        ),
        (
            "/components/schemas/Image/properties/object",
            variants!(ImageObject: Image),
        ),
        (
            "/components/schemas/Image/properties/mime_type",
            variants!(MimeType: Avif),
        ),
        (
            "/components/schemas/ImageSearchResponse/properties/object",
            variants!(ImageSearchObject: ImageSearch),
        ),
        (
            "/components/schemas/PostList/properties/object",
            variants!(PostListObject: PostList),
        ),
        (
            "/components/schemas/PostList/properties/scope/properties/type",
            variants!(ScopeKind: Topic, Profile),
        ),
        (
            "/components/schemas/PostList/properties/order",
            variants!(Order: Asc, Desc),
        ),
    ]
}

/// Rust enums whose field the document leaves a free string (or, for `date_source`, does not
/// declare): the field's pointer, the enum's values, and the strings served today, pinned.
fn narrower() -> Vec<(Option<&'static str>, Vec<Value>, &'static [&'static str])> {
    vec![
        (
            Some("/components/schemas/SearchResponse/properties/board_scope"),
            variants!(BoardScope: All),
            &["all"],
        ),
        (
            Some("/components/schemas/ImageSearchResponse/properties/board_scope"),
            variants!(BoardScope: All),
            &["all"],
        ),
        (
            None,
            variants!(DateSource: PostedAt, IndexedAt),
            &["posted_at", "indexed_at"],
        ),
    ]
}

fn assert_none(failures: &[String], what: &str) {
    assert!(failures.is_empty(), "{what}:\n{}", failures.join("\n"));
}

#[test]
fn every_component_schema_has_a_rust_type() {
    let documented: BTreeSet<&str> = component_names().into_iter().collect();
    let typed: BTreeSet<&str> = cases().iter().map(|case| case.schema).collect();
    let mut failures = Vec::new();
    for name in documented.difference(&typed) {
        failures.push(format!(
            "{name}: a schema of openapi.json without a Rust type"
        ));
    }
    for name in typed.difference(&documented) {
        failures.push(format!(
            "{name}: a Rust type without a schema in openapi.json"
        ));
    }
    assert_none(&failures, "schemas and Rust types differ");
}

#[test]
fn full_samples_validate_against_their_schemas() {
    let mut failures = Vec::new();
    for case in cases() {
        for error in errors(&case.json, case.schema) {
            failures.push(format!("{}: {error}", case.schema));
        }
    }
    assert_none(&failures, "samples the document refuses");
}

#[test]
fn samples_and_schemas_declare_the_same_properties() {
    let mut walk = Walk::default();
    for case in cases() {
        walk.compare(
            component(case.schema),
            &case.json,
            case.schema,
            case.schema,
            "",
        );
    }
    for (schema, key) in UNDECLARED {
        if !walk.undeclared_seen.contains(&(*schema, *key)) {
            walk.failures.push(format!(
                "{schema}.{key}: listed in UNDECLARED but not sent undeclared where additional \
                 properties are allowed"
            ));
        }
    }
    assert_none(&walk.failures, "properties differ");
}

#[test]
fn samples_round_trip() {
    let failures: Vec<String> = cases()
        .into_iter()
        .filter_map(|case| Some(format!("{}: {}", case.schema, case.round_trip?)))
        .collect();
    assert_none(&failures, "samples that do not round-trip");
}

#[test]
fn every_schema_enum_is_a_rust_enum_with_the_same_values() {
    let mut failures = Vec::new();
    let typed = enums();
    for (pointer, values) in &typed {
        let Some(field) = schema::document().pointer(pointer) else {
            failures.push(format!("{pointer}: no such field in openapi.json"));
            continue;
        };
        let documented: BTreeSet<String> = fixed_values(field)
            .unwrap_or_default()
            .iter()
            .map(Value::to_string)
            .collect();
        let served: BTreeSet<String> = values.iter().map(Value::to_string).collect();
        if documented != served {
            failures.push(format!(
                "{pointer}: the schema allows {documented:?}, the Rust enum serialises to \
                 {served:?}"
            ));
        }
    }
    let mut fixed = Vec::new();
    collect_fixed(
        &schema::document()["components"]["schemas"],
        "/components/schemas",
        &mut fixed,
    );
    let covered: BTreeSet<&str> = typed.iter().map(|(pointer, _)| *pointer).collect();
    for pointer in fixed {
        if !covered.contains(pointer.as_str()) {
            failures.push(format!(
                "{pointer}: an enum or const of openapi.json without a Rust enum"
            ));
        }
    }
    assert_none(&failures, "enums differ");
}

#[test]
fn enums_narrower_than_the_document_serve_todays_strings() {
    let mut failures = Vec::new();
    for (pointer, values, strings) in narrower() {
        let expected: Vec<Value> = strings.iter().map(|s| Value::from(*s)).collect();
        if values != expected {
            failures.push(format!(
                "{pointer:?}: serialises to {values:?}, served today: {strings:?}"
            ));
        }
        let Some(pointer) = pointer else { continue };
        let Some(field) = schema::document().pointer(pointer) else {
            failures.push(format!("{pointer}: no such field in openapi.json"));
            continue;
        };
        if fixed_values(field).is_some() {
            failures.push(format!(
                "{pointer}: now an enum in openapi.json; move it to enums()"
            ));
        }
        for value in &values {
            for error in errors_at(value, pointer) {
                failures.push(format!("{pointer}: {value} refused: {error}"));
            }
        }
    }
    assert_none(&failures, "narrower enums");
}

/// The values an `enum` or `const` allows, if the schema has either.
fn fixed_values(schema: &Value) -> Option<Vec<Value>> {
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        return Some(values.clone());
    }
    schema.get("const").map(|value| vec![value.clone()])
}

/// The pointers of every schema under `schema` (at `pointer`) with an `enum` or a `const`.
fn collect_fixed(schema: &Value, pointer: &str, found: &mut Vec<String>) {
    match schema {
        Value::Object(map) => {
            if map.contains_key("enum") || map.contains_key("const") {
                found.push(pointer.to_owned());
            }
            for (key, child) in map {
                collect_fixed(child, &format!("{pointer}/{key}"), found);
            }
        }
        Value::Array(items) => {
            for (at, child) in items.iter().enumerate() {
                collect_fixed(child, &format!("{pointer}/{at}"), found);
            }
        }
        _ => {}
    }
}

/// The recursive comparison of samples' keys with schemas' properties.
#[derive(Default)]
struct Walk {
    failures: Vec<String>,
    /// The [`UNDECLARED`] entries met.
    undeclared_seen: BTreeSet<(&'static str, &'static str)>,
}

impl Walk {
    /// Compares `value` (at `path` in the sample of `case`) with `schema`, which belongs to
    /// the component `owner`.
    fn compare(&mut self, schema: &Value, value: &Value, case: &str, owner: &str, path: &str) {
        if let Some(name) = reference(schema) {
            return self.compare(component(name), value, case, name, path);
        }
        if let Some(branches) = schema.get("anyOf").and_then(Value::as_array) {
            let not_null: Vec<&Value> = branches
                .iter()
                .filter(|b| !schema::is_null_only(b))
                .collect();
            match not_null.as_slice() {
                [only] => return self.compare(only, value, case, owner, path),
                _ => {
                    return self.fail(
                        case,
                        owner,
                        path,
                        "anyOf with several non-null branches: teach the drift test",
                    );
                }
            }
        }
        match value {
            Value::Null => self.fail(
                case,
                owner,
                path,
                "null in the full sample: make the Option Some",
            ),
            Value::Array(items) => {
                let Some(item_schema) = schema.get("items") else {
                    return self.fail(
                        case,
                        owner,
                        path,
                        "an array where the schema declares no items",
                    );
                };
                if items.is_empty() {
                    self.fail(case, owner, path, "an empty array in the full sample");
                }
                for (at, item) in items.iter().enumerate() {
                    self.compare(item_schema, item, case, owner, &format!("{path}/{at}"));
                }
            }
            Value::Object(map) => {
                let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
                    // A map (`highlight`): its values follow `additionalProperties`.
                    let Some(values) = schema.get("additionalProperties").filter(|s| s.is_object())
                    else {
                        return self.fail(
                            case,
                            owner,
                            path,
                            "an object where the schema declares no properties",
                        );
                    };
                    if map.is_empty() {
                        self.fail(case, owner, path, "an empty map in the full sample");
                    }
                    for (key, item) in map {
                        self.compare(values, item, case, owner, &format!("{path}/{key}"));
                    }
                    return;
                };
                for (name, property) in properties {
                    let at = format!("{path}/{name}");
                    match map.get(name) {
                        Some(item) => self.compare(property, item, case, owner, &at),
                        None => self.fail(
                            case,
                            owner,
                            &at,
                            "declared by the schema, absent from the sample's JSON",
                        ),
                    }
                }
                let additional = schema.get("additionalProperties") != Some(&Value::Bool(false));
                for key in map.keys().filter(|key| !properties.contains_key(*key)) {
                    let listed = UNDECLARED.iter().find(|(s, k)| *s == owner && k == key);
                    match listed {
                        Some(entry) if additional => {
                            self.undeclared_seen.insert(*entry);
                        }
                        _ => self.fail(
                            case,
                            owner,
                            &format!("{path}/{key}"),
                            "in the sample's JSON, not declared by the schema",
                        ),
                    }
                }
            }
            _ => {}
        }
    }

    fn fail(&mut self, case: &str, owner: &str, path: &str, what: &str) {
        let property = path.rsplit('/').next().unwrap_or_default();
        self.failures.push(format!(
            "schema {owner}, property {property:?} (sample of {case}, at {path:?}): {what}"
        ));
    }
}

/// `rank_source` is a free string in the document; what is served is pinned here: the
/// signals in their fixed order, `bm25+quality` always, and the parse of what is served.
#[test]
fn rank_source_strings_are_pinned() {
    use forumdex_types::RankSource;
    let none = RankSource {
        words: false,
        typo: false,
        proximity: false,
        exactness: false,
        freshness: false,
        answer: false,
        semantic: false,
    };
    let cases = [
        (none, "bm25+quality"),
        (
            RankSource {
                exactness: true,
                ..none
            },
            "exactness+bm25+quality",
        ),
        (
            RankSource {
                words: true,
                proximity: true,
                exactness: true,
                ..none
            },
            "words+proximity+exactness+bm25+quality",
        ),
        (
            RankSource {
                words: true,
                typo: true,
                proximity: true,
                exactness: true,
                freshness: true,
                answer: true,
                semantic: false,
            },
            "words+typo+proximity+exactness+bm25+quality+freshness+answer",
        ),
        (
            RankSource {
                answer: true,
                semantic: true,
                ..none
            },
            "bm25+quality+answer+semantic",
        ),
    ];
    for (source, text) in cases {
        assert_eq!(serde_json::to_value(source).unwrap(), Value::from(text));
        assert_eq!(text.parse::<RankSource>().unwrap(), source);
    }
    for bad in [
        "",
        "quality+bm25",
        "words",
        "bm25+quality+words",
        "bm25+quality+x",
        "semantic+bm25+quality",
    ] {
        assert!(bad.parse::<RankSource>().is_err(), "{bad:?}");
    }
}
