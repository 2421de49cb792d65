"""A toy graph format, for tests/formats/test_readers.py to add to the reader table at test time: a line
`TOYGRAPH`, then a JSON list of oneDNN Graph ops (the `graph` of a oneDNN Graph JSON file, without the
fields around it). Its module is what a new format's is: a sniff that imports nothing and a `parse`."""

from __future__ import annotations

import json

from app.core.config import Settings

MAGIC = b"TOYGRAPH\n"


def sniff(head: bytes) -> bool:
    return head.startswith(MAGIC)


def parse(data: bytes, settings: Settings):
    from app.formats import onednn

    if not data.startswith(MAGIC):
        from app.formats.errors import Malformed

        raise Malformed("a toy graph starts with the line TOYGRAPH", "")
    ops = json.loads(data[len(MAGIC) :])
    document = {"version": "3.0.0", "engine_kind": "cpu", "fpmath_mode": "strict", "graph": ops}
    graph = onednn.parse(json.dumps(document).encode(), settings)
    graph.format = "toy"  # the format's own name in the answers, as a reader of its own would give it
    return graph
