"""One run's report that every writer's snapshot renders: valid, invalid, malformed and unreadable files,
a warning, a note, and messages and names that need escaping."""

from __future__ import annotations

import json

from app.formats.graph import RULES as GRAPH_RULES
from app.formats.readers import read_source
from app.formats.source import Source
from app.report.model import FileReport, Finding, RelatedPlace, RuleInfo, RunReport, Unit

RANK3 = {"dtype": "f32", "shape": [2, 3, 4]}

GOOD = [
    {"kind": "ReduceMax", "attrs": {"axes": [-1], "keep_dims": True}, "inputs": [RANK3]},
    {"kind": "ReduceMax", "attrs": {"axes": []}, "inputs": [RANK3]},  # valid, with a warning
]
BATCH = {
    "ops": [
        {"kind": "ReduceMax", "attrs": {"axes": [3]}, "inputs": [RANK3]},
        {"kind": "ReduceMax", "attrs": {"axis": 1}, "inputs": [RANK3]},
        {"kind": "Argmax", "attrs": {"axis": 0, "top_k": 1}, "inputs": [{"dtype": "sa8", "shape": [5]}]},
    ]
}


def report() -> RunReport:
    run = RunReport(version="9.9.9", docs_url="https://opspec.github.io/opspec/")
    sources = [
        Source("models/good.json", json.dumps(GOOD, indent=2).encode()),
        Source("models/batch.json", json.dumps(BATCH, indent=1).encode()),
        Source("models/broken.json", b'{"kind": "ReduceMax",\n  "attrs": {"axes": [1,]}}'),
        Source("models/gone.json", b"", None, "No such file or directory"),
    ]
    for source in sources:
        run.add(read_source(source))
    # What a graph reader adds: a note, a warning with characters annotations must escape.
    translated = GRAPH_RULES["graph.translated"]
    note = RuleInfo(translated.id, translated.statement, translated.spec)
    odd = FileReport(
        "graphs/a,b:c.json",
        "onednn-json",
        units=[
            Unit(
                0,
                "graph[0]",
                "ReduceMax",
                "valid",
                [
                    Finding(
                        "info",
                        note.id,
                        "axes read from attrs.axes.value: 100% of 2,3\nkept",
                        "graph[0].attrs.axes",
                        line=4,
                        column=7,
                    ),
                ],
                outputs=[{"dtype": "f32", "shape": [-1, "N"]}],
                line=3,
                column=5,
                detail={"op_id": 7},
            )
        ],
        rules={note.id: note},
    )
    run.add(odd)
    # A graph read whole: a node checked by opspec, one typed by ONNX's inference, two nobody checked.
    model = FileReport(
        "graphs/model.onnx",
        "onnx",
        units=[
            Unit(0, "node[conv]", "Conv", "valid", checked_by="onnx", detail={"typed_by": "onnx"}),
            Unit(1, "node[relu]", "ReLU", "valid", outputs=[{"dtype": "f32", "shape": [1, 8]}]),
            Unit(2, "node[gen]", "GenIndex", "not_checked", checked_by=None),
            Unit(3, "node[gen_2]", "GenIndex", "not_checked", checked_by=None),
        ],
        read=True,
    )
    run.add(model)
    # A value declared two ways (graph.edge.shape): the fault at the consumer, the producer's declaration
    # its related place; both nodes valid, the file invalid as a whole.
    edge = RuleInfo(
        "graph.edge.shape", "Every declaration of a value gives it the same rank and dims.", "reader"
    )
    declared = FileReport(
        "graphs/edge.json",
        "onednn",
        units=[Unit(0, "graph[0]", "Add", "valid", line=6, column=5), Unit(1, "graph[1]", "ReLU", "valid", line=40,
                                                                              column=5)],
        findings=[
            Finding(
                "error", edge.id, "value '7' is declared f32 [1, 4] by graph[1] (input 0), but f32 [2, 4] by graph[0], "
                "which produces it", "graph[1].inputs[0]", edge.spec, line=44, column=9,
                related=(RelatedPlace("graph[0] declares f32 [2, 4]", "graph[0].outputs[0]", 30, 9),),
            )
        ],
        rules={edge.id: edge},
        read=True,
    )  # fmt: skip
    run.add(declared)
    return run
