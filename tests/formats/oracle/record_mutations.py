"""Records what oneDNN itself does with one-change mutations of benchdnn's multi-op graphs, as test data
(run by hand: the oracle is not available in CI).

    python3 tests/formats/oracle/record_mutations.py /path/to/onednn-oracle/oracle.py

Each mutation changes one thing of a graph in tests/formats/files/benchdnn: one side of an edge (the
consumer's declaration of a value another op produces: its shape, rank, an unknown dim, dtype, layout,
strides, property), a graph input's or output's layout or property (every declaration of it alike, so
that no edge differs), a value's strides on both sides, a graph field, an op id. Each goes through the
oracle (oneDNN 3.13's Graph API: add_op, finalize, compile; see the oracle's README) and the answer is
written to onednn_mutations.json beside this file with what opspec must say: the rule and the place,
and where opspec deliberately differs from the library, why (docs/graph-rules.md says the same).
tests/formats/test_onednn_mutations.py replays every mutation through opspec.

The graphs unchanged go through the oracle too: a graph the library refuses as it is (benchdnn's
int8_maxpool_add_mul_fusion.json) is not mutated. A partition that does not compile because this
CPU lacks the data type (f16, f8 without AVX-512 FP16) is the machine's reach, not the graph's fault,
and is not counted as a refusal.
"""

from __future__ import annotations

import copy
import json
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
BENCHDNN = HERE.parent / "files" / "benchdnn"
OUT = HERE / "onednn_mutations.json"
INT64_MIN = -(2**63)
UNKNOWN = (-1, INT64_MIN)

# Where opspec refuses what the library lets through, by mutation kind: why (docs/graph-rules.md).
DIFFERS = {
    "input.short_strides": "a stride list shorter than the shape: the library reads as many strides as the "
    "shape has dims, past the end of the list benchdnn hands it; the oracle (like benchdnn's own rewrite of "
    "the strides it cannot use) fills in dense strides, so oneDNN is not given this file as written",
    "input.opaque": "layout_type opaque on a graph input: an opaque layout is an id the library gives a "
    "compiled partition's output, which a file cannot carry; benchdnn and the oracle read the tensor as "
    "strided instead",
    "input.unknown_mark": "a graph input whose stride is [INT64_MIN], the mark oneDNN's writer puts for strides "
    "it does not know: the library cannot read such an input (with one unknown stride per dim, compile "
    "aborts); the oracle and benchdnn's rewrite take a stride list of the wrong length for dense strides",
    "input.any": "layout_type any on a graph input: compile may pick a layout for it, and aborts on other "
    "graphs (SIGFPE, SIGABRT) or refuses them (invalid_arguments); the API gives any to outputs only "
    "(dnnl_graph.hpp, partition::compile), and a caller cannot hand an input in a layout it does not know",
    "op.duplicate_id": "a repeated op id: finalize accepts it, but partitioning mixes up the ops that share "
    "it (the library crashes on some such graphs, SIGSEGV in get_partitions, SIGABRT at compile), and "
    "benchdnn keeps one op per id",
    "not_compiled": "this CPU does not compile the partition (its data type needs an ISA the machine lacks), "
    "so the library did not judge the layout here; elsewhere it refuses it as opspec does",
    "input.layout_weird": "a layout_type that is not a value of the format; benchdnn and the oracle read "
    "any word but 'any' as strided",
    "output.zero_stride": "a zero stride on a value an op writes puts that dim's elements at one address: "
    "compile accepts it, what execute leaves there is undefined",
    "mid.overlap": "strides that overlap on a value inside one fused partition: the value is never laid out "
    "in memory, so the library ignores them, but the declaration claims a layout that aborts compile "
    "wherever the value is a partition's input or output",
    "mid.negative": "a negative stride on a value inside one fused partition (see mid.overlap)",
    "mid.zero_stride": "a zero stride on a value an op writes (see output.zero_stride and mid.overlap)",
    "field.engine_kind": "an engine_kind that is not a value of the format (cpu, gpu, any): the library never "
    "sees this field (benchdnn runs on the engine its command line names), the oracle on the CPU",
    "field.apply_to_int": "an fpmath_mode_apply_to_int that is not true or false: the library never sees "
    "this field; benchdnn reads it only for MatMul and Convolution graphs, and stops there on such a value",
}

# What opspec says for each kind of mutation: the rule (None: the op's own rules, whichever) and where.
RULES = {
    "edge.shape": "graph.edge.shape",
    "edge.rank": "graph.edge.shape",
    "edge.unknown_dim": "graph.edge.shape",
    "edge.dtype": "graph.edge.dtype",
    "edge.layout_any": "graph.edge.layout",
    "edge.strides": "graph.edge.layout",
    "edge.property": "graph.edge.property",
    "input.overlap": "graph.layout.strides",
    "input.negative": "graph.layout.strides",
    "input.short_strides": "graph.layout.strides",
    "input.unknown_strides": "graph.layout.input",
    "input.unknown_mark": "graph.layout.input",
    "input.any": "graph.layout.input",
    "input.opaque": "graph.layout.input",
    "input.layout_weird": "graph.layout.type",
    "input.host_scalar": "graph.property",
    "input.property_nope": "graph.property",
    "output.zero_stride": "graph.layout.strides",
    "output.overlap": "graph.layout.strides",
    "output.negative": "graph.layout.strides",
    "mid.overlap": "graph.layout.strides",
    "mid.negative": "graph.layout.strides",
    "mid.zero_stride": "graph.layout.strides",
    "field.engine_kind": "graph.field",
    "field.fpmath_mode": "graph.field",
    "field.apply_to_int": "graph.field",
    "op.duplicate_id": "graph.op.id",
}

_STEP = re.compile(r"\.?([A-Za-z_]+)|\[(\d+)\]")


def _steps(path: str) -> list[str | int]:
    return [name if name else int(index) for name, index in _STEP.findall(path)]


def apply_edits(document: dict[str, Any], edits: list[list[Any]]) -> dict[str, Any]:
    """A copy of `document` with each [path, value] set (paths as opspec's: graph[3].inputs[0].shape)."""
    out = copy.deepcopy(document)
    for path, value in edits:
        *head, last = _steps(path)
        target: Any = out
        for step in head:
            target = target[step]
        target[last] = value
    return out


def _dense(shape: list[int]) -> list[int]:
    strides, step = [], 1
    for dim in reversed(shape):
        strides.insert(0, step)
        step *= max(dim, 1)
    return strides


def _known(item: dict[str, Any]) -> bool:
    shape = item.get("shape")
    return isinstance(shape, list) and bool(shape) and not any(d in UNKNOWN for d in shape)


def _strided(item: dict[str, Any]) -> bool:
    return (
        _known(item) and item.get("layout_type") == "strided" and item.get("stride") == _dense(item["shape"])
    )


def _roomy(item: dict[str, Any]) -> bool:
    """Dense strides over dims where a changed stride shows: dim 0 and another dim above 1 (a dim of 1 is
    never stepped along, so the library passes over its stride)."""
    shape = item.get("shape") or [0]
    return _strided(item) and shape[0] > 1 and sum(d > 1 for d in shape) >= 2


OTHER_DTYPE = {"f32": "bf16", "bf16": "f32", "f16": "f32", "s8": "u8", "u8": "s8", "s32": "f32"}


def _places(document: dict[str, Any]) -> tuple[dict, dict, dict]:
    """Each tensor id's producer declaration (path), its consumers' declarations (paths), and the object
    at each path."""
    produced: dict[int, str] = {}
    consumed: dict[int, list[str]] = {}
    items: dict[str, dict[str, Any]] = {}
    for index, op in enumerate(document["graph"]):
        for k, item in enumerate(op["outputs"]):
            path = f"graph[{index}].outputs[{k}]"
            produced.setdefault(item["id"], path)
            items[path] = item
        for k, item in enumerate(op["inputs"]):
            path = f"graph[{index}].inputs[{k}]"
            consumed.setdefault(item["id"], []).append(path)
            items[path] = item
    return produced, consumed, items


def mutations(name: str, document: dict[str, Any], place: int) -> list[dict[str, Any]]:
    """The mutations of one graph: every graph's first edge changed in shape and dtype; every fourth
    graph's in its other ways; every twelfth graph's inputs, outputs, fields and op ids."""
    produced, consumed, items = _places(document)
    out: list[dict[str, Any]] = []

    def add(kind: str, edits: list[list[Any]], path: str) -> None:
        out.append({"file": name, "kind": kind, "edits": edits, "path": path})

    edges = [(tid, path) for tid in produced for path in consumed.get(tid, [])]
    if edges:
        tid, path = edges[0]
        item = items[path]
        if _known(item):
            shape = list(item["shape"])
            shape[-1] += 3
            add("edge.shape", [[f"{path}.shape", shape]], path)
        if item.get("dtype") in OTHER_DTYPE:
            add("edge.dtype", [[f"{path}.dtype", OTHER_DTYPE[item["dtype"]]]], path)
        if place % 4 == 0 and _known(item):
            add(
                "edge.rank",
                [[f"{path}.shape", [*item["shape"], 1]], [f"{path}.stride", [*item["stride"], 1]]],
                path,
            )
            add("edge.unknown_dim", [[f"{path}.shape", [-1, *item["shape"][1:]]]], path)
            add("edge.layout_any", [[f"{path}.layout_type", "any"]], path)
            if _strided(item) and len(item["shape"]) >= 2:
                shape = item["shape"]
                strides, step = [0] * len(shape), 1
                for dim in range(len(shape)):  # dim 0 innermost: a valid permutation of the dense strides
                    strides[dim] = step
                    step *= shape[dim]
                add("edge.strides", [[f"{path}.stride", strides]], path)
            other = "variable" if item.get("property_type") == "constant" else "constant"
            add("edge.property", [[f"{path}.property_type", other]], path)
    if place % 12:
        return out
    inputs = [tid for tid in consumed if tid not in produced and _roomy(items[consumed[tid][0]])]
    if inputs:
        tid = inputs[0]
        paths = consumed[tid]
        item = items[paths[0]]
        shape, strides = item["shape"], item["stride"]

        def every(field: str, value: Any) -> list[list[Any]]:
            return [[f"{p}.{field}", value] for p in paths]

        add("input.overlap", every("stride", [1] * len(shape)), paths[0])
        add("input.negative", every("stride", [-strides[0], *strides[1:]]), paths[0])
        add("input.zero_stride", every("stride", [0, *strides[1:]]), paths[0])
        add("input.short_strides", every("stride", strides[1:]), paths[0])
        add("input.unknown_strides", every("stride", [INT64_MIN] * len(shape)), paths[0])
        add("input.unknown_mark", every("stride", [INT64_MIN]), paths[0])
        add("input.padded", every("stride", [strides[0] + 3 * strides[-1], *strides[1:]] if len(shape) > 1
                                  else [strides[0]]), paths[0])  # fmt: skip
        add("input.any", every("layout_type", "any"), paths[0])
        add("input.opaque", every("layout_type", "opaque"), paths[0])
        add("input.layout_weird", every("layout_type", "weird"), paths[0])
        add("input.host_scalar", every("property_type", "host_scalar"), paths[0])
        add("input.property_nope", every("property_type", "nope"), paths[0])
    outputs = [tid for tid, path in produced.items() if tid not in consumed and _roomy(items[path])]
    if outputs:
        path = produced[outputs[0]]
        item = items[path]
        add("output.zero_stride", [[f"{path}.stride", [0, *item["stride"][1:]]]], path)
        add("output.overlap", [[f"{path}.stride", [1] * len(item["shape"])]], path)
        add("output.negative", [[f"{path}.stride", [-item["stride"][0], *item["stride"][1:]]]], path)
        add("output.any", [[f"{path}.layout_type", "any"]], path)
    mids = [tid for tid in produced if tid in consumed and _roomy(items[produced[tid]])]
    if mids:
        tid = mids[0]
        paths = [produced[tid], *consumed[tid]]
        item = items[paths[0]]
        for kind, strides in (
            ("mid.overlap", [1] * len(item["shape"])),
            ("mid.negative", [-item["stride"][0], *item["stride"][1:]]),
            ("mid.zero_stride", [0, *item["stride"][1:]]),
        ):
            add(kind, [[f"{p}.stride", strides] for p in paths], paths[0])
        add("mid.any", [[f"{p}.layout_type", "any"] for p in paths], paths[0])
    add("field.engine_kind", [["engine_kind", "tpu"]], "engine_kind")
    add("field.engine_kind_gpu", [["engine_kind", "gpu"]], "engine_kind")
    add("field.fpmath_mode", [["fpmath_mode", "fast"]], "fpmath_mode")
    add("field.fpmath_mode_bf16", [["fpmath_mode", "bf16"]], "fpmath_mode")
    add("field.apply_to_int", [["fpmath_mode_apply_to_int", "maybe"]], "fpmath_mode_apply_to_int")
    add("field.apply_to_int_true", [["fpmath_mode_apply_to_int", "true"]], "fpmath_mode_apply_to_int")
    add("field.version", [["version", "banana"]], "version")
    add("field.input_ports", [["input_ports", [987654]]], "input_ports[0]")
    add("field.output_ports", [["output_ports", [987654]]], "output_ports[0]")
    ops = document["graph"]
    add("op.duplicate_id", [["graph[1].id", ops[0]["id"]]], "graph[1].id")
    add("op.duplicate_name", [["graph[1].name", ops[0].get("name", "")]], "graph[1].name")
    return out


def verdict(answer: dict[str, Any]) -> dict[str, Any]:
    """The library's word: the first stage that failed, or accepts. A compile the CPU cannot do
    (unimplemented: the data type needs an ISA this machine lacks) is not the graph's fault."""
    compiled = all(p["supported"] for p in answer["graph"].get("partitions", []))
    for stage in answer["graph"]["stages"]:
        status = stage["status"]
        if stage["stage"].startswith("compile") and status == "unimplemented":
            compiled = False
            continue
        if status == "success":
            continue
        found = {"verdict": "refuses", "stage": stage["stage"].split(":")[0], "status": status}
        why = stage.get("why")
        if why:
            found["why"] = why[0][:300]
        return found
    return {"verdict": "accepts"} if compiled else {"verdict": "accepts", "compiled": False}


def _oracle(oracle: str, document: dict[str, Any], tmp: Path, key: str) -> dict[str, Any]:
    path = tmp / f"{key}.json"
    path.write_text(json.dumps(document, indent=2))
    done = subprocess.run([sys.executable, oracle, str(path)], capture_output=True, text=True, check=True)
    return verdict(json.loads(done.stdout))


def _graphs() -> list[tuple[str, dict[str, Any]]]:
    out = []
    for path in sorted(BENCHDNN.rglob("*.json")):
        document = json.loads(path.read_text())
        produced = {item["id"] for op in document["graph"] for item in op["outputs"]}
        if len(document["graph"]) > 1 and any(
            i["id"] in produced for op in document["graph"] for i in op["inputs"]
        ):
            out.append((str(path.relative_to(BENCHDNN)), document))
    return out


def record(oracle: str) -> list[dict[str, Any]]:
    graphs = _graphs()
    with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor(2) as pool:
        folder = Path(tmp)
        base = list(
            pool.map(lambda g: _oracle(oracle, g[1], folder, f"base{g[0].replace('/', '_')}"), graphs)
        )
        todo = []
        for place, ((name, document), answer) in enumerate(zip(graphs, base, strict=True)):
            if answer["verdict"] == "accepts":
                todo.extend((document, m) for m in mutations(name, document, place))
            else:
                print(f"{name}: refused as it is ({answer}), not mutated", file=sys.stderr)

        def one(job: tuple[int, tuple[dict, dict]]) -> dict[str, Any]:
            index, (document, mutation) = job
            mutation["onednn"] = _oracle(
                oracle, apply_edits(document, mutation["edits"]), folder, f"m{index}"
            )
            return mutation

        done = list(pool.map(one, enumerate(todo)))
    for mutation in done:
        rule = RULES.get(mutation["kind"])
        refuses = mutation["onednn"]["verdict"] == "refuses"
        differs = None
        if not refuses and rule is not None:
            differs = DIFFERS.get(mutation["kind"])
            if differs is None and mutation["onednn"].get("compiled") is False:
                differs = DIFFERS["not_compiled"]
        mutation["opspec"] = {
            "refuses": refuses or differs is not None,
            "rule": rule if (refuses or differs) else None,
        }
        if differs:
            mutation["differs"] = differs
    return done


def main(argv: list[str]) -> int:
    done = record(argv[0])
    lines = ",\n".join(json.dumps(m, separators=(",", ":")) for m in done)
    OUT.write_text("[\n" + lines + "\n]\n")
    refused = sum(m["onednn"]["verdict"] == "refuses" for m in done)
    print(
        f"{len(done)} mutations, {refused} refused by oneDNN, {sum('differs' in m for m in done)} where opspec differs"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
