"""Turning pydantic's validation errors into findings with request paths, for the API and the CLI."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from app.core.numbers import clip, show
from app.core.suggest import UnknownName, close_names, did_you_mean
from app.ops import BY_NAME


def error_path(loc: tuple[Any, ...]) -> tuple[str, str | None]:
    """A pydantic location as a request path, and the op kind the union picked on the way, if any."""
    parts: list[str] = []
    kind = None
    for index, item in enumerate(loc):
        if index == 0 and item == "body":
            continue
        if isinstance(item, int):
            parts.append(f"[{item}]")
        elif (
            item in BY_NAME and kind is None and (not parts or parts[-1].startswith("[") or parts == ["ops"])
        ):
            kind = BY_NAME[item].kind  # the tagged union's branch: not part of the request's path
        else:
            parts.append(("." if parts else "") + clip(str(item)))  # a key may be any length
    return "".join(parts) or "body", kind


def _hinted(head: str, suggestions: list[str], tail: str) -> str:
    hint = did_you_mean(suggestions)
    return f"{head}; {hint} {tail}" if hint else f"{head}; {tail}"


def _attribute_names(kind: str) -> list[str]:
    """An op's attribute names, and the aliases it accepts for them (Argmax's topk)."""
    fields = BY_NAME[kind].descriptor.model_fields["attrs"].annotation.model_fields  # type: ignore[union-attr]
    names = list(fields)
    names += [f.alias for f in fields.values() if isinstance(f.alias, str) and f.alias not in names]
    return names


def describe_errors(errors: Sequence[Any], most: int | None = None) -> list[dict[str, Any]]:
    """Pydantic's errors as {path, type, message[, rule][, suggestions]} entries a person can act on;
    past `most`, one entry says how many more there are. An unknown kind, alias, attribute or dtype
    gets the closest known names, in its message ("did you mean") and as `suggestions`."""
    out = []
    if most is not None and len(errors) > most:
        left_out = len(errors) - most
        errors = errors[:most]
    else:
        left_out = 0
    for error in errors:
        path, kind = error_path(tuple(error.get("loc", ())))
        kind_tag = error.get("ctx", {}) or {}
        entry: dict[str, Any] = {"path": path, "type": error["type"], "message": error["msg"]}
        if error["type"] == "json_invalid":
            entry["path"] = "body"
            entry["message"] = f"body is not valid JSON: {kind_tag.get('error', error['msg'])}"
        elif error["type"] == "union_tag_invalid":
            given = kind_tag.get("tag")
            entry["path"] = f"{path}.kind" if path != "body" else "kind"
            suggestions = close_names(given, list(BY_NAME))  # kinds and aliases alike
            entry["message"] = _hinted(
                f"unknown kind {show(given)}", suggestions, f"known kinds: {', '.join(BY_NAME)}"
            )
            entry["suggestions"] = suggestions
        elif error["type"] == "union_tag_not_found":
            entry["path"] = f"{path}.kind" if path != "body" else "kind"
            entry["message"] = f"kind is missing; known kinds: {', '.join(BY_NAME)}"
            given = error.get("input")
            if isinstance(given, dict):  # what was sent instead: another format's file shows here
                entry["message"] += (
                    f"; the object has the keys {show(list(given))}" if given else "; the object is empty"
                )
        elif error["type"] == "extra_forbidden" and kind is not None and ".attrs." in f".{path}":
            name = str(error["loc"][-1])  # not from the path: that may be cut short
            attrs = BY_NAME[kind].descriptor.model_fields["attrs"].annotation.model_fields  # type: ignore[union-attr]
            suggestions = close_names(name, _attribute_names(kind))
            entry["rule"] = f"{kind}.attrs.unknown"
            entry["message"] = _hinted(
                f"unknown attribute {show(name)} for {kind}",
                suggestions,
                f"its attributes are: {', '.join(attrs) or 'none'}",
            )
            entry["suggestions"] = suggestions
        elif error["type"] == "extra_forbidden":
            entry["message"] = f"unknown field {show(str(error['loc'][-1]))}"
        elif error["type"] == "missing":
            entry["message"] = f"{path} is required"
        elif error["type"] == "model_attributes_type" and path == "body":
            entry["message"] = "the body must be a JSON object (sent with Content-Type: application/json)"
        elif isinstance(unknown := kind_tag.get("error"), UnknownName):  # a dtype: its spellings known
            suggestions = unknown.suggestions()
            entry["message"] = clip(unknown.message(suggestions))
            entry["suggestions"] = suggestions
        else:
            message = clip(error["msg"].removeprefix("Value error, "))
            given = error.get("input")
            if not isinstance(given, dict | list) and error["type"] != "value_error":
                message += f" (given: {show(given)})"  # short, whatever the client sent
            entry["message"] = message
        out.append(entry)
    if left_out:
        out.append(
            {
                "path": "body",
                "type": "too_many_errors",
                "message": f"{left_out:,} more errors left out: at most {most:,} are listed (max_diagnostics)",
            }
        )
    return out
