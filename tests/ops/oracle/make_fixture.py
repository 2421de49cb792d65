"""Fixture from the feed-oracle's answer: per case the descriptor, oneDNN's statuses and outputs, and
where oneDNN departs from opspec's answer beyond the op's tolerance (flat indices per output)."""

import json
import sys
from pathlib import Path

import numpy as np

from app.core.config import Settings
from app.core.engine import evaluate
from app.ops import REGISTRY


def floats(data):
    return np.array([float(v) for v in (data if isinstance(data, list) else [data])], np.float32)


out = []
for r in json.loads(Path(sys.argv[1]).read_text()):
    attrs = dict(r["attrs"])
    if "keep_dims" in attrs:
        attrs["keep_dims"] = bool(attrs["keep_dims"])
    case = {
        "name": r["name"],
        "descriptor": {"kind": r["kind"], "attrs": attrs, "inputs": r["inputs"]},
        "onednn": {k: v for k, v in r["oracle"].items() if k in ("add_op", "compile", "execute") and v},
    }
    if r["oracle"].get("why"):
        case["onednn"]["why"] = sorted({m.split(",")[-2] for ms in r["oracle"]["why"].values() for m in ms})
    if r["outputs"][0] is not None:
        case["descriptor"]["outputs"] = [
            {"dtype": d, "shape": o["shape"]} for d, o in zip(r["output_dtypes"], r["outputs"], strict=True)
        ]
        case["onednn"]["outputs"] = r["outputs"]
        spec = REGISTRY[r["kind"]]
        ours = evaluate(spec, spec.descriptor.model_validate(case["descriptor"]), Settings()).outputs
        tol = spec.tolerance
        departs = []
        for o, t in zip(ours, r["outputs"], strict=True):
            a, b = (
                floats(
                    np.ravel(np.array(o["data"], dtype=object)).tolist()
                    if isinstance(o["data"], list)
                    else o["data"]
                ),
                floats(t["data"]),
            )
            same = (a.view(np.uint32) == b.view(np.uint32)) | (np.isnan(a) & np.isnan(b))
            if tol is not None:
                with np.errstate(all="ignore"):
                    near = np.abs(a.astype(np.float64) - b) <= np.maximum(
                        tol.ulps * np.spacing(np.abs(b)).astype(np.float64), tol.absolute
                    )
                same |= near & np.isfinite(a) & np.isfinite(b)
            departs.append(np.flatnonzero(~same).tolist())
        if any(departs):
            case["onednn"]["departs_at"] = departs
    out.append(case)
SOURCE = "oneDNN 3.13 (PyPI onednn) through shared/tools/onednn-oracle with fed inputs; see README.md"
lines = ",\n".join("  " + json.dumps(case, separators=(",", ":")) for case in out)
Path(sys.argv[2]).write_text(f'{{"source": {json.dumps(SOURCE)},\n "cases": [\n{lines}\n ]}}\n')
for c in out:
    if c["onednn"].get("departs_at"):
        print(c["name"], c["onednn"]["departs_at"])
