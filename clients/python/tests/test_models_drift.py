"""The models follow openapi.json: same properties both ways, same required lists, the
same nullability and compatible types. Fails when the document or the models change
alone."""

from __future__ import annotations

import datetime as dt
import json
import types
import typing
from pathlib import Path
from typing import Any, Literal, Union

import pytest
from pydantic import BaseModel

from forumdex.models import SCHEMAS

OPENAPI = Path(__file__).resolve().parents[3] / "crates" / "forumdex-types" / "openapi.json"


@pytest.fixture(scope="module")
def document() -> dict[str, Any]:
    assert OPENAPI.is_file(), f"the OpenAPI document is missing: {OPENAPI}"
    loaded: dict[str, Any] = json.loads(OPENAPI.read_text())
    return loaded


def schema_of(document: dict[str, Any], name: str) -> dict[str, Any]:
    """``Topic`` -> components.schemas.Topic; ``Topic.views`` -> its property views."""
    parts = name.split(".")
    schema: dict[str, Any] = document["components"]["schemas"][parts[0]]
    for part in parts[1:]:
        schema = schema["properties"][part]
    return schema


def resolve(document: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    ref = schema.get("$ref")
    if ref is None:
        return schema
    prefix = "#/components/schemas/"
    assert ref.startswith(prefix), ref
    return dict(document["components"]["schemas"][ref[len(prefix) :]], _name=ref[len(prefix) :])


def test_every_component_schema_has_a_model(document: dict[str, Any]) -> None:
    assert set(document["components"]["schemas"]) <= set(SCHEMAS), (
        "schemas of openapi.json without a model in forumdex.models.SCHEMAS: "
        f"{sorted(set(document['components']['schemas']) - set(SCHEMAS))}"
    )


def test_the_contract_version_is_the_one_the_client_follows(document: dict[str, Any]) -> None:
    assert document["info"]["version"] == "1.2.0"


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_fields_and_required_lists_match(document: dict[str, Any], name: str) -> None:
    schema = schema_of(document, name)
    model = SCHEMAS[name]
    fields = {(info.alias or field): info for field, info in model.model_fields.items()}
    properties: dict[str, Any] = schema.get("properties", {})
    assert set(fields) == set(properties), (
        f"{name}: only in the model {sorted(set(fields) - set(properties))}, "
        f"only in the document {sorted(set(properties) - set(fields))}"
    )
    required = {field for field, info in fields.items() if info.is_required()}
    assert required == set(schema.get("required", [])), name
    if schema.get("additionalProperties", True) is not False:
        assert model.model_config.get("extra") == "allow", f"{name} allows additional properties"


def _nullable(schema: dict[str, Any]) -> bool:
    kinds = schema.get("type")
    if isinstance(kinds, list) and "null" in kinds:
        return True
    return any(option.get("type") == "null" for option in schema.get("anyOf", []))


def _non_null(annotation: Any) -> list[Any]:
    origin = typing.get_origin(annotation)
    if origin is Union or origin is types.UnionType:
        return [arg for arg in typing.get_args(annotation) if arg is not type(None)]
    return [annotation]


def _accepts_none(annotation: Any) -> bool:
    origin = typing.get_origin(annotation)
    union = origin is Union or origin is types.UnionType
    return union and type(None) in typing.get_args(annotation)


def _check_type(
    document: dict[str, Any], where: str, annotation: Any, schema: dict[str, Any]
) -> None:
    schema = resolve(document, schema)
    options = [o for o in schema.get("anyOf", []) if o.get("type") != "null"]
    if options:
        assert len(options) == 1, where
        _check_type(document, where, annotation, options[0])
        return
    (inner,) = _non_null(annotation)
    while typing.get_origin(inner) is typing.Annotated:
        inner = typing.get_args(inner)[0]
    kinds = schema.get("type")
    kind = [k for k in kinds if k != "null"][0] if isinstance(kinds, list) else kinds
    if "const" in schema or "enum" in schema:
        allowed = [schema["const"]] if "const" in schema else schema["enum"]
        assert typing.get_origin(inner) is Literal, f"{where}: expected Literal{allowed}"
        assert sorted(typing.get_args(inner)) == sorted(allowed), where
        return
    if "_name" in schema:
        assert isinstance(inner, type) and issubclass(inner, BaseModel), where
        assert SCHEMAS[schema["_name"]] is inner or issubclass(inner, SCHEMAS[schema["_name"]]), (
            f"{where}: {inner.__name__} is not the model of {schema['_name']}"
        )
        return
    if kind == "string" and schema.get("format") == "date-time":
        assert inner is dt.datetime, f"{where}: a date-time is a datetime"
    elif kind == "string":
        assert inner is str, f"{where}: expected str, got {inner}"
    elif kind == "integer":
        assert inner is int, f"{where}: expected int, got {inner}"
    elif kind == "number":
        assert inner is float, f"{where}: expected float, got {inner}"
    elif kind == "boolean":
        assert inner is bool, f"{where}: expected bool, got {inner}"
    elif kind == "array":
        assert typing.get_origin(inner) is list, f"{where}: expected a list"
        _check_type(document, where + "[]", typing.get_args(inner)[0], schema["items"])
    elif kind == "object" and "properties" in schema:
        assert isinstance(inner, type) and issubclass(inner, BaseModel), where
    elif kind == "object":
        assert typing.get_origin(inner) is dict, f"{where}: expected a dict"
        _check_type(
            document, where + "{}", typing.get_args(inner)[1], schema["additionalProperties"]
        )
    else:
        raise AssertionError(f"{where}: a schema type the test does not know: {schema}")


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_types_and_nullability_match(document: dict[str, Any], name: str) -> None:
    schema = schema_of(document, name)
    model = SCHEMAS[name]
    for field, info in model.model_fields.items():
        key = info.alias or field
        prop = schema["properties"][key]
        where = f"{name}.{key}"
        nullable = _nullable(resolve(document, prop)) or _nullable(prop)
        optional_in_document = key not in schema.get("required", [])
        if nullable:
            assert _accepts_none(info.annotation), f"{where} may be null: it must be Optional"
        elif not optional_in_document:
            assert not _accepts_none(info.annotation), f"{where} is never null"
        _check_type(document, where, info.annotation, prop)


def test_the_drift_test_notices_a_missing_field(document: dict[str, Any]) -> None:
    """The comparison itself works: a document with one more property fails it."""
    changed = json.loads(json.dumps(document))
    changed["components"]["schemas"]["Board"]["properties"]["slug"] = {"type": "string"}
    with pytest.raises(AssertionError):
        test_fields_and_required_lists_match(changed, "Board")
    changed = json.loads(json.dumps(document))
    changed["components"]["schemas"]["Board"]["required"] = ["name"]
    with pytest.raises(AssertionError):
        test_fields_and_required_lists_match(changed, "Board")
    changed = json.loads(json.dumps(document))
    changed["components"]["schemas"]["Board"]["properties"]["name"] = {"type": "integer"}
    with pytest.raises(AssertionError):
        test_types_and_nullability_match(changed, "Board")
    changed = json.loads(json.dumps(document))
    changed["components"]["schemas"]["Merit"]["properties"]["total"]["type"] = [
        "integer",
        "null",
    ]
    with pytest.raises(AssertionError):
        test_types_and_nullability_match(changed, "Merit")
