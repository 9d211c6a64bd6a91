"""Request bodies declared once (issue 51): pydantic models whose fields carry their
refusals, checked with :func:`check` and described with :func:`schema`.

A field's type and limits (pydantic's ``Field``: patterns, ranges, lengths) are both the
check and the OpenAPI text; its :class:`Refuse` says how a request that breaks them is
refused — the same status, ``code``, ``field`` and words (``Msg`` keys, so every
translation is kept) as the checks written by hand before. Pydantic v2: the JSON Schema
it writes is the dialect OpenAPI 3.1 uses, and its core validates a body in a few µs.

>>> from companion.api.bodies import Forget
>>> check(Forget, {"games": True}), schema(Forget)
({'games': True}, {'properties': {'games': {'type': 'boolean'}}, 'type': 'object'})
>>> check(Forget, {"games": "yes"})
Traceback (most recent call last):
...
companion.edge.errors.ApiError: the field 'games' must be true or false
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any, ClassVar, get_args, get_origin

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, ValidationError
from pydantic_core import PydanticCustomError

from ..edge.errors import ApiError
from ..engine import Msg

#: a field's schema that is one of the document's components, by name (pydantic would
#: look a ``$ref`` up among its own definitions)
COMPONENT = "x-component"

#: the words of a refusal, from the field's name, the value sent (``None``: none) and
#: the whole body (a value whose meaning depends on another field: a tap's step)
Words = Callable[[str, Any, Mapping[str, Any]], Msg]


@dataclass(frozen=True)
class Refuse:
    """How a request whose field breaks its declaration is refused.

    ``bad``: a value of the wrong kind (a text where a number is due); ``off``: the right
    kind out of its limits (a rank 11, a key too short; else ``bad``'s words); ``missing``:
    the field not sent (else ``bad``'s words, and the code ``missing_code``). ``null``:
    what a JSON null means, ``"absent"`` (as if not sent) or ``"bad"``. ``field``: the
    name the refusal gives (a seat of ``screen``: ``screen.side``; ``""``: none)."""

    bad: Words
    off: Words | None = None
    missing: Words | None = None
    code: str = "bad_field"
    missing_code: str = "missing_field"
    status: int = 400
    null: str = "absent"
    field: str | None = None

    def refusal(self, name: str, kind: str, value: Any, body: Mapping[str, Any]) -> ApiError:
        """The refusal of ``value`` sent as ``name`` (``kind``: missing, bad or off)."""
        words = (self.missing if kind == "missing" else self.off if kind == "off"
                 else None) or self.bad
        return ApiError(self.status, words(name, value, body),
                        field=name if self.field is None else self.field or None,
                        code=self.missing_code if kind == "missing" else self.code)


class Body(BaseModel):
    """A request body: strict (a number is never a text, true never 1), other keys
    ignored. ``CHECKED``: the order in which its fields are judged when several are
    wrong, as the requests' checks always judged them (default: as declared)."""

    model_config = ConfigDict(strict=True, populate_by_name=True)
    CHECKED: ClassVar[tuple[str, ...]] = ()
    #: a body only ever inside another's field: a field of it that declares no refusal
    #: is refused as that field
    INNER: ClassVar[bool] = False


def wrong(field: str, kind: str = "bad") -> PydanticCustomError:
    """An error a body's own validator raises about ``field`` (a check across fields:
    a tap's value by its step), refused with that field's :class:`Refuse`."""
    return PydanticCustomError("declared", "{field} is {kind}", {"field": field, "kind": kind})


@dataclass(frozen=True)
class _Field:
    refuse: Refuse | None            # None: refused as the field it is inside
    kinds: frozenset[str]            # the JSON types the field takes
    inner: type[Body] | None         # a body (or a list of them) inside this field


def _json_kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    return {int: "integer", float: "number", str: "string", dict: "object",
            list: "array"}.get(type(value), "other")


def _kinds(prop: Mapping[str, Any]) -> frozenset[str]:
    """The JSON types a property's schema takes (an empty set: any)."""
    if "anyOf" in prop:
        return frozenset().union(*(_kinds(p) for p in prop["anyOf"]))
    kind = prop.get("type")
    if kind is None and COMPONENT in prop:        # a component: a side, a key, a record
        kind = {"Side": "string", "IdempotencyKey": "string",
                "Record": "object"}.get(prop[COMPONENT])
    return frozenset([kind] if isinstance(kind, str) else kind or ())


@cache
def _fields(model: type[Body]) -> dict[str, _Field]:
    """Each declared field of ``model`` by the name a request sends it as."""
    props = model.model_json_schema(by_alias=True).get("properties", {})
    out = {}
    for name, info in model.model_fields.items():
        sent = info.alias or name
        refuse = next((m for m in info.metadata if isinstance(m, Refuse)), None)
        if refuse is None and not model.INNER:
            raise TypeError(f"{model.__name__}.{name} declares no refusal")
        inner = info.annotation
        if get_origin(inner) is list:
            inner = get_args(inner)[0]
        out[sent] = _Field(refuse, _kinds(props.get(sent, {})),
                           inner if isinstance(inner, type) and issubclass(inner, Body) else None)
    return out


def _null(field: _Field) -> str:
    return field.refuse.null if field.refuse is not None else "absent"


def _order(model: type[Body]) -> list[str]:
    names = list(_fields(model))
    return [*model.CHECKED, *(n for n in names if n not in model.CHECKED)]


def check(model: type[Body], body: Mapping[str, Any],
          context: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """``body`` as ``model`` declares it: its values checked (a name tidied as a seat's
    name is), the first field at fault refused as it declares; the keys it does not
    declare as they were sent. A field sent as null that means "absent" is left out.
    ``context``: what a refusal's words may read beside the body (the table's team play)."""
    nulls, tidied = _plan(model)
    sent = ({k: v for k, v in body.items() if v is not None or k not in nulls}
            if None in body.values() else dict(body))
    try:
        got = model.model_validate(sent)
    except ValidationError as err:
        raise _refusal(model, body, sent, err, context or {}) from None
    for name, sent_as in tidied:           # the values a check tidies (a name, a seat)
        if sent_as in sent:
            value = getattr(got, name)
            if isinstance(value, list) and value and isinstance(value[0], BaseModel):
                value = [v.model_dump(by_alias=True, exclude_unset=True) for v in value]
            sent[sent_as] = value
    return sent


@cache
def _plan(model: type[Body]) -> tuple[frozenset[str], tuple[tuple[str, str], ...]]:
    """The fields of ``model`` whose null means "absent", and those whose checked value
    may differ from the value sent (each with the name it is sent as), worked out once."""
    nulls = frozenset(n for n, f in _fields(model).items() if _null(f) == "absent")
    tidied = tuple((name, info.alias or name) for name, info in model.model_fields.items()
                   if _tidies(info.metadata) or _tidies(info.annotation))
    return nulls, tidied


def _tidies(declared: Any) -> bool:
    """Whether a field's type or metadata holds a validator that may change its value,
    or a body of its own."""
    if isinstance(declared, list | tuple):
        return any(_tidies(x) for x in declared)
    if isinstance(declared, AfterValidator | BeforeValidator):
        return True
    if isinstance(declared, type) and issubclass(declared, BaseModel):
        return True
    return _tidies(list(get_args(declared)) + list(getattr(declared, "__metadata__", ())))


def _refusal(model: type[Body], body: Mapping[str, Any], sent: Mapping[str, Any],
             err: ValidationError, context: Mapping[str, Any]) -> ApiError:
    """The refusal of the first field at fault, in the order the body is checked."""
    order = _order(model)
    found = []
    for e in err.errors():
        loc = list(e["loc"]) or [e.get("ctx", {}).get("field", "")]
        kind = e.get("ctx", {}).get("kind") if e["type"] == "declared" else None
        found.append((order.index(loc[0]) if loc[0] in order else len(order), loc, e, kind))
    _, loc, e, kind = min(found, key=lambda f: f[0])
    fields = _fields(model)
    if str(loc[0]) not in fields:
        return ApiError(400, Msg("the body must be a JSON object"), code="malformed")
    # the innermost declared field the error is in that says how it is refused: a seat
    # of `screen` refuses its side as `screen.side`, anything else about it as `screen`
    field, value = fields[str(loc[0])], sent.get(str(loc[0]))
    hit = (field, str(loc[0]), value, sent)
    for step in loc[1:]:
        if isinstance(step, int):
            if isinstance(value, list) and 0 <= step < len(value):
                value = value[step]
                continue
            break
        inner = field.inner
        if inner is None or not isinstance(value, dict) or step not in _fields(inner):
            break
        where: Mapping[str, Any] = value
        field, value = _fields(inner)[step], value.get(step)
        if field.refuse is not None:
            hit = (field, step, value, where)
    field, name, value, where = hit
    assert field.refuse is not None
    if kind is None:
        kind = ("missing" if e["type"] == "missing" and name not in where
                else "off" if field.kinds and _json_kind(value) in field.kinds else "bad")
    return field.refuse.refusal(name, kind, value,
                                {**(body if where is sent else where), **context})


def value_text(value: Any) -> str:
    """A value as a refusal quotes it: its JSON, cut at 40 characters."""
    return json.dumps(value)[:40]


# --- the OpenAPI text ---------------------------------------------------------------

def schema(model: type[Body]) -> dict[str, Any]:
    """``model`` as the OpenAPI document describes a request body: pydantic's JSON Schema
    without titles and defaults, a null that means "absent" left out, nested bodies
    written in place (a component stays a ``$ref``)."""
    raw = model.model_json_schema(by_alias=True, ref_template="#/$defs/{model}")
    defs = raw.pop("$defs", {})
    owners: dict[str, type[Body]] = {}

    def collect(m: type[Body]) -> None:
        owners[m.__name__] = m
        for f in _fields(m).values():
            if f.inner is not None and f.inner.__name__ not in owners:
                collect(f.inner)

    def tidy(node: Any, owner: type[Body] | None = None) -> Any:
        if isinstance(node, list):
            return [tidy(x) for x in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref", "")
        if ref.startswith("#/$defs/"):
            name = ref.rsplit("/", 1)[-1]
            return tidy({**defs[name], **{k: v for k, v in node.items() if k != "$ref"}},
                        owners.get(name))
        if COMPONENT in node:
            return {"$ref": f"#/components/schemas/{node[COMPONENT]}"}
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key == "description" and owner is not None and node.get("type") == "object":
                continue                   # a body's docstring: said in the operation

            if key == "properties":
                nulls = {n for n, f in _fields(owner).items()
                         if _null(f) == "absent"} if owner is not None else set()
                props = {n: _collapse(tidy(v), drop_null=n in nulls) for n, v in value.items()}
                if props:
                    out[key] = props
            elif key not in ("title", "default"):
                out[key] = tidy(value)
        if out.get("additionalProperties") is True:
            del out["additionalProperties"]
        return _collapse(out)

    collect(model)
    return tidy(raw, model)  # type: ignore[no-any-return]


def _collapse(node: dict[str, Any], drop_null: bool = False) -> dict[str, Any]:
    """``anyOf`` written plainly: one choice as itself, plain types as a list of types;
    ``drop_null``: without its null (a null the body takes as absent)."""
    if drop_null and isinstance(node.get("type"), list):
        kinds = [k for k in node["type"] if k != "null"]
        node = {**node, "type": kinds[0] if len(kinds) == 1 else kinds}
    if "anyOf" not in node:
        return node
    kept = [x for x in node["anyOf"] if not (drop_null and x == {"type": "null"})]
    rest = {k: v for k, v in node.items() if k != "anyOf"}
    if len(kept) == 1:
        return {**kept[0], **rest}
    if all(set(x) == {"type"} for x in kept):
        return {"type": [x["type"] for x in kept], **rest}
    return {"anyOf": kept, **rest}
