"""A graph's answer as POST /v1/graphs/validate gives it and `check_graph` returns it: one model, so the
route and the library answer the same file with the same document.

Each node says who checked it (`checked_by`: opspec, an engine's own inference, or null: nobody) and who
typed its outputs (`typed_by`); `coverage` counts the op nodes (graph inputs, outputs and constants
aside) checked by opspec, by an engine, and not checked, by kind; `values` lists every value (edge)
with its producer, consumers, dtype, shape and who typed it, so a page can draw the graph.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from app.core.diagnostics import Diagnostic
from app.core.tensors import TensorType
from app.formats.graph import GraphResult, NodeResult
from app.formats.layout import Layout, layout
from app.formats.readers import graph_formats

Typer = Literal["opspec", "declared", "onnx", "openvino"]
GraphFormat = Literal[graph_formats()]  # type: ignore[valid-type]  # the table's graph formats, in its order


class GraphNode(BaseModel):
    id: str = Field(
        description="The node's id in the file (oneDNN op id, IR layer id, ONNX node index; inside an "
        "ONNX subgraph, the outer node's id, the attribute and the index: `3.then_branch.0`)."
    )
    name: str
    kind: str = Field(description="The node's kind as the file writes it.")
    checked_as: str | None = Field(description="The opspec kind it was checked as; null when not checked.")
    checked_by: str | None = Field(
        None,
        description="Who checked it: `opspec` (its rules, as checked_as), `onnx` or `openvino` (the "
        "engine's own inference accepted or refused it); null: nobody, or a graph input, output or "
        "constant (structural). A node nobody checked is neither valid nor invalid in the coverage.",
    )
    typed_by: Typer | None = Field(
        None, description="Who gave its outputs' types: opspec, declared (the file), onnx, openvino."
    )
    structural: bool = Field(False, description="A graph input, output or constant: no op, not counted.")
    valid: bool | None = Field(
        description="No error found here; null for an op node nobody checked (never valid, never invalid)."
    )
    inputs: list[TensorType] = Field(description="What flows in: dtype ('?' unknown) and shape (-1 unknown).")
    outputs: list[TensorType] = Field(description="Inferred outputs where checked, else the declared ones.")
    diagnostics: list[Diagnostic]
    path: str = Field(description="The node in the file's terms: graph[3], layer[5], node[reduce_1].")
    line: int | None = Field(None, description="Where the node starts (JSON and XML).")
    column: int | None = None
    descriptor: dict[str, Any] | None = Field(
        None,
        description="With `?descriptors=true`: the opspec descriptor the node was checked as (what "
        "POST /v1/validate takes); null when opspec did not check it.",
    )


class GraphValue(BaseModel):
    name: str = Field(
        description="The value's name in the file (ONNX value name, IR `layer:port`, oneDNN id)."
    )
    producer: str | None = Field(description="The id of the node that writes it; null for a graph input.")
    consumers: list[str] = Field(description="The ids of the nodes that read it, in file order.")
    dtype: str = Field(description="'?' when unknown.")
    shape: list[int | str] | None = Field(
        description="-1 an unknown dim, a string a symbol; null unknown rank."
    )
    typed_by: Typer | None = Field(description="Who gave its type; null: nobody, it is unknown.")
    diagnostics: list[Diagnostic] = Field(
        default_factory=list,
        description="Where its declarations disagree (graph.edge.*): also among the graph's diagnostics.",
    )


class Coverage(BaseModel):
    nodes: int = Field(description="Op nodes, graph inputs, outputs and constants aside.")
    checked: int = Field(description="Checked by opspec's rules.")
    by_engine: dict[str, int] = Field(description="Checked by an engine's own inference, by engine.")
    not_checked: int = Field(description="Checked by nothing: never counted valid or invalid.")
    not_checked_kinds: dict[str, int] = Field(description="The nodes not checked, by kind.")


class GraphVerdict(BaseModel):
    format: GraphFormat
    valid: bool = Field(description="True when no node and no file-level diagnostic is an error.")
    coverage: Coverage
    nodes: list[GraphNode]
    not_checked: dict[str, int] = Field(
        description="Nodes nothing checked, counted by kind (as coverage says)."
    )
    diagnostics: list[Diagnostic] = Field(
        description="About the graph itself: cycles, dangling edges, bad dims, missing weights."
    )
    values: list[GraphValue] = Field(
        description="Every value (edge): producer, consumers, dtype, shape (symbols kept), who typed it."
    )
    layout: Layout | None = Field(
        None, description="With `?layout=true`: a layered top-to-bottom drawing, one box per node."
    )


def verdict(result: GraphResult) -> GraphVerdict:
    """The answer, built without validating again: every field is ours and typed."""
    return GraphVerdict.model_construct(
        format=result.format,
        valid=result.valid,
        coverage=Coverage.model_construct(**result.coverage.as_dict()),
        nodes=[
            GraphNode.model_construct(
                id=n.id,
                name=n.name,
                kind=n.kind,
                checked_as=n.checked_as,
                checked_by=n.checked_by,
                typed_by=n.typed_by,
                structural=n.structural,
                valid=None if n.checked_by is None and not n.structural else n.valid,
                inputs=n.inputs,
                outputs=n.outputs,
                diagnostics=n.diagnostics,
                path=n.path,
                line=n.line,
                column=n.column,
                descriptor=n.descriptor,
            )
            for n in result.nodes
        ],
        not_checked=result.not_checked,
        diagnostics=result.diagnostics,
        values=[GraphValue.model_construct(**value) for value in result.values()],
    )


def to_json(result: GraphResult, *, with_layout: bool = False, descriptors: bool = False) -> bytes:
    """The answer; the page's extras (a layout, each node's descriptor) only when asked."""
    answer = verdict(result)
    exclude: dict[str, Any] = {}
    if with_layout:
        answer.layout = layout(
            [{"id": n.id, "kind": n.kind, "name": n.name, "tag": _engine_tag(n)} for n in result.nodes],
            [{"producer": v.producer, "consumers": v.consumers} for v in answer.values],
        )
    else:
        exclude["layout"] = True
    if not descriptors:
        exclude["nodes"] = {"__all__": {"descriptor"}}
    return answer.model_dump_json(exclude=exclude or None).encode()


def _engine_tag(node: NodeResult) -> str:
    """The tag the page draws on a node another engine checked or typed (graphcanvas.js engineOf)."""
    engine = node.checked_by if node.checked_by not in (None, "opspec") else None
    engine = engine or (node.typed_by if node.typed_by in ("onnx", "openvino") else None)
    return {"openvino": "OpenVINO"}.get(engine or "", (engine or "").upper())
