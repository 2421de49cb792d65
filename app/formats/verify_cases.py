"""Verify cases for `opspec verify`: JSON files whose descriptors carry input data and the
implementation's outputs as data, or a descriptor with its tensors kept in NumPy .npz files.

Each case becomes a Unit: valid when every output is conformant, invalid when some element differs
(one finding per output and mismatch class, one note per modelled implementation it matches) or the
descriptor breaks a rule, malformed when it cannot be read or compared (no data, a limit crossed).
"""

from __future__ import annotations

import base64
import json
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from app.core.config import for_local_files, get_settings
from app.core.diagnostics import PathError
from app.core.dtypes import DTYPES, canonical_dtype
from app.core.engine import Invalid, NotEvaluable
from app.core.payload import LimitExceeded
from app.core.registry import Descriptor, OpSpec, Port
from app.core.verify import Verification, verify
from app.formats import descriptors, jsonpos
from app.formats.source import Source, load, unreadable
from app.ops import BY_NAME, DescriptorErrors, parse
from app.report.model import FileReport, Finding, RuleInfo, Unit

FORMAT = "verify-json"
NPZ_FORMAT = "verify-npz"

CASE_RULE = RuleInfo(
    "opspec.verify.case",
    "A verify case carries data on every input and the implementation's answer on every output, within "
    "the size limits.",
    "opspec verify (docs: Verify)",
)
NPZ_RULE = RuleInfo(
    "opspec.verify.npz",
    "A .npz file holds plain arrays (no pickles), one per port, named by port or given in port order, each "
    "of the port's dtype and shape.",
    "opspec verify (docs: Verify)",
)


def mismatch_rule(spec: OpSpec, cls: str) -> RuleInfo:
    description = next(c.description for c in spec.all_mismatch_classes if c.id == cls)
    return RuleInfo(f"{spec.kind}.mismatch.{cls}", description, spec.source)


def like_rule(spec: OpSpec) -> RuleInfo:
    return RuleInfo(
        f"{spec.kind}.like",
        "The given output equals, bit for bit, a modelled real implementation's answer.",
        "opspec verify: implementations listed by GET /v1/ops/{kind}",
    )


def _value(value: Any) -> str:
    return json.dumps(value)


def verify_unit(index: int, where: str, descriptor: Descriptor, report: FileReport) -> Unit:
    """The verdict of one parsed case, as a Unit with findings."""
    spec = BY_NAME[descriptor.kind]
    try:
        result = verify(spec, descriptor, get_settings())
    except Invalid as exc:
        unit = Unit(index, where, spec.kind, "invalid")
        descriptors.add_diagnostics(unit, spec.kind, where, exc.verdict.diagnostics, report)
        return unit
    except (NotEvaluable, LimitExceeded) as exc:
        return _malformed(index, where, spec.kind, jsonpos.join(where, exc.path), exc.message, report)
    unit = Unit(
        index,
        where,
        spec.kind,
        "valid" if result.conformant else "invalid",
        outputs=[{"dtype": o["dtype"], "shape": o["shape"]} for o in result.outputs] or None,
        detail={"conformant": result.conformant, "outputs": result.outputs},
    )
    descriptors.add_diagnostics(unit, spec.kind, where, result.diagnostics, report)
    _mismatches(unit, spec, where, result, report)
    return unit


def _mismatches(unit: Unit, spec: OpSpec, where: str, result: Verification, report: FileReport) -> None:
    """One error per output and class, at its first mismatch; one note per implementation matched."""
    for output in result.outputs:
        index = output["index"]
        for cls, count in output["classes"].items():
            info = mismatch_rule(spec, cls)
            report.rules[info.id] = info
            first = next(m for m in output["first"] if m["class"] == cls) if output["first"] else None
            message = f"output {index}: {count} of {output['elements']} elements are {cls}"
            path = f"outputs[{index}].data"
            if first is not None:
                at = "".join(f"[{i}]" for i in first["at"])
                message += (
                    f"; first at {at}: expected {_value(first['expected'])}, got {_value(first['got'])}"
                )
                if first.get("detail"):
                    message += f" ({first['detail']})"
                path += at
            unit.findings.append(Finding("error", info.id, message, jsonpos.join(where, path), info.spec))
        for like in output["like"]:
            info = like_rule(spec)
            report.rules[info.id] = info
            message = f"output {index} {like['message']} (evidence: {like['evidence']})"
            unit.findings.append(
                Finding("info", info.id, message, jsonpos.join(where, f"outputs[{index}]"), info.spec)
            )


def _malformed(index: int, where: str, kind: str | None, path: str, message: str, report: FileReport) -> Unit:
    report.rules[CASE_RULE.id] = CASE_RULE
    return Unit(
        index, where, kind, "malformed", [Finding("error", CASE_RULE.id, message, path, CASE_RULE.spec)]
    )


def _document(source: Source, format: str) -> tuple[FileReport, str, Any] | FileReport:
    """The file's JSON, or a report that says why there is none (read as `opspec check` reads it)."""
    report = FileReport(source.name, format)
    if source.error is not None:
        return unreadable(report, source.error)
    text = descriptors.decode_text(source, report)
    if text is None:
        return report
    try:
        return report, text, json.loads(text)
    except json.JSONDecodeError as exc:
        return descriptors.not_json(report, f"not JSON: {exc.msg}", exc.lineno, exc.colno)
    except RecursionError:
        return descriptors.not_json(report, "not JSON this reader can nest: too deep", 1, 1)


def read(source: Source) -> FileReport:
    """A JSON file of cases: a descriptor, a list of them, or {"ops": [...]}, outputs carrying data."""
    loaded = _document(source, FORMAT)
    if isinstance(loaded, FileReport):
        return loaded
    report, text, document = loaded
    for index, (where, raw) in enumerate(descriptors.entries(document)):
        try:
            descriptor = parse(raw)
        except DescriptorErrors:
            report.units.append(descriptors.check_descriptor(index, where, raw, report))  # says what is wrong
            continue
        report.units.append(verify_unit(index, where, descriptor, report))
    if any(unit.findings for unit in report.units):
        descriptors.place(report, text)
    return report


# --- tensors kept in .npz files ------------------------------------------------------------------


class NpzError(PathError):
    """An .npz file that cannot give a port its array; `path` is the side (inputs, outputs[1], ...)."""


def _load_npz(path: Path, side: str, max_bytes: int) -> list[tuple[str, np.ndarray]]:
    """The arrays in file order; pickled objects are refused (allow_pickle off), and so is an archive
    that unpacks to more than `max_bytes` (max_total_bytes), before any array is unpacked: a compressed
    archive of zeros is small on disk whatever it unpacks to."""
    try:
        archive = np.load(path, allow_pickle=False, mmap_mode="r")  # a .npy is mapped, not read
        if not isinstance(archive, np.lib.npyio.NpzFile):
            raise NpzError(
                side, f"cannot read {path} as a .npz file: it is a single .npy array; save with numpy.savez"
            )
        with archive:
            size = sum(info.file_size for info in archive.zip.infolist())
            if size > max_bytes:
                raise NpzError(
                    side,
                    f"{path} unpacks to {size:,} bytes, above the limit of {max_bytes:,} (max_total_bytes)",
                )
            return [(name, archive[name]) for name in archive.files]
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as exc:
        raise NpzError(side, f"cannot read {path} as a .npz file of plain arrays: {exc}") from None


def _bind(ports: tuple[Port, ...], arrays: list[tuple[str, np.ndarray]]) -> list[np.ndarray]:
    """The arrays in port order: by name when every array is named after a port (Max's inputs are X1,
    X2, ...), else in the file's order (np.savez's arr_0, arr_1, ...)."""
    if ports and ports[-1].variadic:
        names = [f"{ports[-1].name}{i + 1}" for i in range(len(arrays))]
    else:
        names = [port.name for port in ports]
    by_name = dict(arrays)
    if set(by_name) <= set(names):
        return [by_name[name] for name in names if name in by_name]
    return [array for _, array in arrays]


def _dtype(array: np.ndarray, declared: str | None, accepted: frozenset[str], where: str) -> str:
    """The array's own dtype, so a kernel's wrong type shows as a diagnostic; where several dtypes share
    its memory type (int8 is s8 and MLI's sa8), the declared one, else the one the port accepts."""
    same = [name for name, dt in DTYPES.items() if dt.numpy == array.dtype]
    if not same:
        raise NpzError(
            where, f"the array's type {array.dtype} is none of opspec's dtypes ({', '.join(DTYPES)})"
        )
    for choice in (declared, *sorted(set(same) & accepted, key=list(DTYPES).index)):
        if choice in same:
            return choice
    return same[0]


def _tensor(where: str, port: Port, declared: dict | None, array: np.ndarray) -> dict:
    """The wire tensor for an array: the declared shape and strides kept, the data as raw bytes."""
    tensor = dict(declared or {})
    tensor.pop("data", None)
    try:
        named = canonical_dtype(str(tensor["dtype"])) if "dtype" in tensor else None
    except ValueError:
        named = None  # the descriptor's own check says what is wrong with it
    tensor["dtype"] = _dtype(array, named, port.dtypes, where)
    if all(tensor.get(name) is None for name in ("strides", "stride", "mem_stride")):
        tensor["shape"] = list(array.shape)  # symbols in the descriptor take the array's sizes
    raw = np.ascontiguousarray(array).astype(array.dtype.newbyteorder("<"), copy=False).tobytes()
    tensor["data"] = {"encoding": "base64", "bytes": base64.b64encode(raw).decode("ascii")}
    return tensor


def read_npz(descriptor_path: str, inputs_path: str, outputs_path: str) -> FileReport:
    """One case: the descriptor's JSON, its inputs' and the implementation's outputs' arrays."""
    source = load(descriptor_path, Path(descriptor_path), for_local_files(get_settings()).max_body_bytes)
    loaded = _document(source, NPZ_FORMAT)
    if isinstance(loaded, FileReport):
        return loaded
    report, _, raw = loaded
    kind = raw.get("kind") if isinstance(raw, dict) else None
    spec = BY_NAME.get(kind) if isinstance(kind, str) else None
    if spec is None:
        report.units.append(descriptors.check_descriptor(0, "", raw, report))
        return report
    max_bytes = get_settings().max_total_bytes
    try:
        document = dict(raw)
        for side, path in (("inputs", inputs_path), ("outputs", outputs_path)):
            declared = document.get(side) or []
            ports = spec.inputs if side == "inputs" else spec.outputs
            document[side] = [
                # Past the last port: Max's variadic X, or one too many, which the check reports.
                _tensor(
                    f"{side}[{i}]",
                    ports[min(i, len(ports) - 1)],
                    declared[i] if i < len(declared) else None,
                    array,
                )
                for i, array in enumerate(_bind(ports, _load_npz(Path(path), side, max_bytes)))
            ]
    except NpzError as exc:
        report.rules[NPZ_RULE.id] = NPZ_RULE
        finding = Finding("error", NPZ_RULE.id, exc.message, exc.path, NPZ_RULE.spec)
        report.units.append(Unit(0, "", spec.kind, "malformed", [finding]))
        return report
    try:
        descriptor = parse(document)
    except DescriptorErrors:
        report.units.append(descriptors.check_descriptor(0, "", document, report))
        return report
    report.units.append(verify_unit(0, "", descriptor, report))
    return report
