"""Writes app/formats/onednn_versions.py: the oneDNN release in which each Graph API op kind, each op's
attribute, each data type and each tensor property type first appeared, read from a clone of oneDNN
(github.com/uxlfoundation/oneDNN) at its release tags v3.0 (the first release with the Graph API) to
v3.13.

    .venv/bin/python scripts/onednn_versions.py /path/to/oneDNN          # rewrite the module
    .venv/bin/python scripts/onednn_versions.py /path/to/oneDNN --check  # exit 1 when it differs

At each tag: the op kinds and attribute names are the C++ API's (`op::kind`, `op::attr` in
include/oneapi/dnnl/dnnl_graph.hpp), each op's attributes those its schema sets
(src/graph/interface/op_def.hpp, through the SET_*_ATTRS macros and op_schema_t helpers of
op_schema.hpp / op_schema.cpp), the data and property types `logical_tensor::data_type` and
`property_type`. Only what came after v3.0 is written: everything else was there from the start. The
clone is not needed to run opspec or its tests; the module is committed.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MODULE = ROOT / "app" / "formats" / "onednn_versions.py"
TAGS = [f"v3.{minor}" for minor in range(14)]


def _show(repo: str, tag: str, path: str) -> str:
    done = subprocess.run(["git", "-C", repo, "show", f"{tag}:{path}"], capture_output=True, text=True)
    return done.stdout


def _enum(text: str, name: str) -> list[str]:
    found = re.search(r"enum class " + name + r" \{(.*?)\};", text, re.S)
    return re.findall(r"^\s*(\w+)\s*=", found.group(1), re.M) if found else []


def history(repo: str) -> dict[str, dict]:
    first: dict[str, dict] = {"ops": {}, "attrs": {}, "dtypes": {}, "properties": {}}
    for tag in TAGS:
        api = _show(repo, tag, "include/oneapi/dnnl/dnnl_graph.hpp")
        kinds = set(re.findall(r"^\s*(\w+)\s*=\s*dnnl_graph_op_(?!attr_)\w+\s*,", api, re.M))
        names = set(re.findall(r"^\s*(\w+)\s*=\s*dnnl_graph_op_attr_\w+\s*,", api, re.M))
        for dtype in _enum(api, "data_type"):
            first["dtypes"].setdefault(dtype, tag)
        for prop in _enum(api, "property_type"):
            first["properties"].setdefault(prop, tag)
        helpers: dict[str, set[str]] = {}
        schema = _show(repo, tag, "src/graph/interface/op_schema.cpp")
        for match in re.finditer(r"op_schema_t &op_schema_t::(\w+)\((.*?)\n\}", schema, re.S):
            helpers[match[1]] = set(re.findall(r"op_attr::(\w+)", match[2]))
        defs = _show(repo, tag, "src/graph/interface/op_def.hpp")
        for source in (_show(repo, tag, "src/graph/interface/op_schema.hpp"), defs):
            for match in re.finditer(r"^#define (\w+)((?:.*\\\n)*.*)", source, re.M):
                helpers[match[1]] = set(re.findall(r"op_attr::(\w+)", match[2]))
        for match in re.finditer(r"^DNNL_GRAPH_OP_SCHEMA\((\w+),.*?(?=^\S)", defs, re.S | re.M):
            kind, block = match[1], match[0]
            if kind not in kinds:
                continue  # an internal op of the library's own passes
            first["ops"].setdefault(kind, tag)
            attrs = set(re.findall(r"set_attr\(\s*op_attr::(\w+)", block))
            for word in re.findall(r"\w+", block):
                attrs |= helpers.get(word, set())
            for attr in sorted(attrs & names):
                first["attrs"].setdefault((kind, attr), tag)
    return first


def _version(tag: str) -> tuple[int, int]:
    major, minor = tag.removeprefix("v").split(".")
    return int(major), int(minor)


def module(first: dict[str, dict]) -> str:
    def later(table: dict) -> dict:
        return {key: _version(tag) for key, tag in sorted(table.items()) if tag != TAGS[0]}

    lines = [
        '"""The oneDNN release in which each Graph API op kind, op attribute, data type and property type',
        "came in, where that is after v3.0 (the first release with the Graph API): what a file whose `version`",
        "is older cannot have. Written by scripts/onednn_versions.py from oneDNN's release tags; do not edit.",
        '"""',
        "",
        "OPS: dict[str, tuple[int, int]] = {",
        *(f'    "{kind}": {since},' for kind, since in later(first["ops"]).items()),
        "}",
        "# (op kind, attribute): where the attribute came after its op",
        "ATTRS: dict[tuple[str, str], tuple[int, int]] = {",
        *(
            f'    ("{kind}", "{attr}"): {since},'
            for (kind, attr), since in later(first["attrs"]).items()
            if first["ops"][kind] != first["attrs"][kind, attr]
        ),
        "}",
        "DTYPES: dict[str, tuple[int, int]] = {",
        *(f'    "{dtype}": {since},' for dtype, since in later(first["dtypes"]).items()),
        "}",
        "PROPERTIES: dict[str, tuple[int, int]] = {",
        *(f'    "{prop}": {since},' for prop, since in later(first["properties"]).items()),
        "}",
        "",
    ]
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    text = module(history(argv[0]))
    if "--check" in argv:
        return 0 if MODULE.read_text() == text else 1
    MODULE.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
