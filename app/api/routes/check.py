"""Validate and evaluate: parse (FastAPI + the ops' tagged union), then hand over to the core."""

import copy
import functools
from collections import Counter
from collections.abc import Awaitable, Callable

import msgspec
import pydantic_core
from fastapi import APIRouter, Request, Response
from fastapi.exceptions import RequestValidationError
from pydantic import ValidationError

from app.api import metrics
from app.api.deps import SettingsDep
from app.api.jsontext import is_plain
from app.api.models import BatchRequest, BatchResponse, EvaluateResponse, Problem, Verdict
from app.api.offload import off_loop
from app.core import collector, engine, jsonlists
from app.core.config import Settings
from app.core.dtypes import DTYPES
from app.core.payload import LimitExceeded, is_base64
from app.core.registry import Descriptor, OpSpec
from app.ops import BY_NAME, DESCRIPTOR, REGISTRY, first_pass

router = APIRouter(tags=["check"])
# The routes app/api/hot.py answers without FastAPI's routing, by these same functions (filled below;
# paths within the router, as its routes have them).
HOT: dict[str, Callable[[Request], Awaitable[Response]]] = {}

_EXAMPLES = {
    spec.kind: {"summary": spec.summary, "value": spec.examples[0]}
    for spec in REGISTRY.values()
    if spec.examples
}
# For evaluate, the first example of each op whose inputs all carry data.
_EVALUATE_EXAMPLES = {
    spec.kind: {"summary": f"{spec.kind} on a small payload", "value": example}
    for spec in REGISTRY.values()
    if (example := next((e for e in spec.examples if all("data" in t for t in e["inputs"])), None))
}


@functools.cache
def _descriptor_schema() -> dict:
    """The union's schema, made once (~0.3 s with 91 ops) for every route that shows it."""
    schema = DESCRIPTOR.json_schema(ref_template="#/components/schemas/{model}")
    schema.pop("$defs", None)
    return schema


def descriptor_body(examples: dict) -> dict:
    """The descriptor's schema for routes that parse the body themselves; the $refs resolve because
    the batch route's model puts every op's descriptor into the components."""
    content = {"application/json": {"schema": copy.deepcopy(_descriptor_schema()), "examples": examples}}
    return {"requestBody": {"required": True, "content": content}}


def parse_descriptor(body: bytes, settings: Settings | None = None) -> Descriptor:
    """The body as a descriptor, by pydantic's own JSON parser in one pass (FastAPI's generic body
    handling parses to Python objects first and costs more than the whole validation).

    With settings, a large body's `data` lists are read straight into arrays (app/core/jsonlists.py),
    not into millions of Python numbers; when that path is unsure, the body is parsed as it is."""
    if settings is not None and len(body) > settings.inline_body_bytes:
        lifted = jsonlists.lift(body)
        if lifted is not None:
            try:
                descriptor = DESCRIPTOR.validate_json(lifted.body)
            except ValidationError:
                descriptor = None
            if descriptor is not None and lifted.fill(descriptor.inputs, settings):
                return descriptor
            del descriptor
    try:
        return DESCRIPTOR.validate_json(body)
    except ValidationError as exc:
        raise RequestValidationError(exc.errors(include_url=False)) from None


def read_descriptor(body: bytes, settings: Settings | None = None) -> Descriptor:
    """The body as a descriptor: by msgspec's first pass where it reads it (app/ops/first_pass.py), else by
    parse_descriptor, which gives every error."""
    return first_pass.descriptor(body) or parse_descriptor(body, settings)


def _is_small(body: bytes, settings: Settings) -> bool:
    """Small enough to parse and check on the event loop: the thread-pool hop would cost more."""
    return len(body) <= settings.inline_body_bytes


_PROBLEMS = {
    413: {"model": Problem, "description": "Body or evaluation over a size limit; the limit is named."},
    422: {"model": Problem, "description": "Not a descriptor (JSON, types, unknown kind or attribute)."},
}


def verdict(descriptor: Descriptor, settings: Settings) -> engine.Verdict:
    return engine.verdict(BY_NAME[descriptor.kind], descriptor, settings)


def verdict_answer(result: engine.Verdict) -> dict:
    """The verdict as the route's documented model (Verdict) has it, as plain data: written by
    pydantic_core.to_json it is the model's bytes, without building a model per verdict (that cost
    as much as the check itself on a batch)."""
    return {
        "valid": result.valid,
        "kind": result.kind,
        "outputs": result.wire_outputs(),
        "diagnostics": result.diagnostics,
    }


def verdict_json(result: engine.Verdict) -> bytes:
    return verdict_text(result).encode()


def verdict_text(result: engine.Verdict) -> str:
    """The verdict's JSON as pydantic_core.to_json writes verdict_answer's data, character for
    character: by hand where it is plain (the common case of a batch), through to_json otherwise.
    tests/api/test_verdict_text.py holds the two to the same text."""
    return _plain_verdict_text(result) or pydantic_core.to_json(verdict_answer(result)).decode()


def _plain_verdict_text(result: engine.Verdict) -> str | None:
    """A verdict without diagnostics whose strings are all plain, written by hand (building the dicts
    for to_json cost more than half of a batch's answer: 2.4 of the 9 us per descriptor); None for
    any other."""
    if result.diagnostics or result.outputs is None or not _plain(result.kind):
        return None
    written = []
    for output in result.outputs:
        dtype, shape = output.dtype, output.shape
        if dtype is not None and not _plain(dtype):
            return None
        dims = []
        for dim in shape or ():
            if type(dim) is int:
                dims.append(str(dim))
            elif dim is None:
                dims.append("-1")
            elif type(dim) is str and _plain(dim):
                dims.append(f'"{dim}"')
            else:
                return None
        written_dtype = "null" if dtype is None else f'"{dtype}"'
        written_shape = "null" if shape is None else f"[{','.join(dims)}]"
        written.append(f'{{"dtype":{written_dtype},"shape":{written_shape}}}')
    valid = "true" if result.valid else "false"
    return f'{{"valid":{valid},"kind":"{result.kind}","outputs":[{",".join(written)}],"diagnostics":[]}}'


# Plain strings (jsontext.is_plain) as they are seen: dtype names, op kinds, symbols; a set lookup is
# cheaper than the test. Bounded, so a stream of new symbols cannot grow it.
_PLAIN: set[str] = set(DTYPES) | set(REGISTRY)
_PLAIN_LIMIT = 10_000


def _plain(text: str) -> bool:
    if text in _PLAIN:
        return True
    if not is_plain(text):
        return False
    if len(_PLAIN) < _PLAIN_LIMIT:
        _PLAIN.add(text)
    return True


@router.post(
    "/validate",
    response_model=Verdict,
    responses=_PROBLEMS,
    summary="Validate one descriptor",
    openapi_extra=descriptor_body(_EXAMPLES),
)
async def validate(request: Request) -> Response:
    """200 for every well-formed descriptor, valid or not: the verdict, the inferred outputs and every
    diagnostic with its rule id and path."""
    # async and pre-serialised: checking a small descriptor's shapes is light work, and the thread-pool
    # hop and FastAPI's re-validation of the answer cost more than it. A large body or payloads to decode
    # go to the pool, so the event loop stays free for every other request.
    body = await request.body()
    settings = request.app.state.settings  # not a dependency: solving one costs more than the check
    if not _is_small(body, settings):
        return await off_loop(request, _validate, body, settings)
    descriptor = read_descriptor(body)
    if any(tensor.data is not None for tensor in descriptor.inputs):
        answer = await off_loop(request, verdict, descriptor, settings)
    else:
        answer = verdict(descriptor, settings)
    metrics.record_verdict(answer.kind, answer.valid, answer.diagnostics)
    return Response(verdict_json(answer), media_type="application/json")


HOT["/validate"] = validate


def _validate(body: bytes, settings: Settings) -> Response:
    answer = verdict(read_descriptor(body, settings), settings)
    metrics.record_verdict(answer.kind, answer.valid, answer.diagnostics)
    return Response(verdict_json(answer), media_type="application/json")


_BATCH_BODY = {
    "requestBody": {
        "required": True,
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/BatchRequest"}}},
    }
}  # app/api/openapi.py puts BatchRequest and the descriptors it refers to into the components


@router.post(
    "/validate/batch",
    response_model=BatchResponse,
    responses=_PROBLEMS,
    summary="Validate many",
    openapi_extra=_BATCH_BODY,
)
async def validate_batch(request: Request, settings: SettingsDep) -> Response:
    """One verdict per descriptor, in order (up to max_batch, 100,000 by default)."""
    # Parsed by pydantic from the bytes in one pass, in a thread: FastAPI would parse a large body on
    # the event loop, and its json.loads-then-validate costs twice as much.
    return await off_loop(request, _validate_batch, await request.body(), settings)


def _validate_batch(body: bytes, settings: Settings) -> Response:
    # The collector paused: every descriptor and verdict lives to the answer (a third of a 100,000-
    # descriptor batch went to generation-2 passes that found nothing to free).
    with collector.paused():
        return _answer_batch(body, settings)


class _RawBatch(msgspec.Struct):
    """The batch body with each descriptor kept as its raw JSON text (BatchRequest's shape: `ops`)."""

    ops: list[msgspec.Raw]


_RAW_BATCH = msgspec.json.Decoder(_RawBatch)
REPEATS_SAMPLE = 256  # descriptors at a batch's head that tell whether it repeats its texts


def _answer_batch(body: bytes, settings: Settings) -> Response:
    return _answer_repeats(body, settings) or _answer_plain(body, settings) or _answer_each(body, settings)


def _answer_repeats(body: bytes, settings: Settings) -> Response | None:
    """The batch with each distinct descriptor text parsed and checked once: a compiler's graph repeats
    its ops (every layer the same shapes), and the same text always has the same verdict. None, and the
    batch is parsed whole, when it is not a list of descriptors that all parse: that path names each
    error by its `ops[i]` path."""
    try:
        raws = _RAW_BATCH.decode(body).ops
    except (msgspec.ValidationError, msgspec.DecodeError, UnicodeDecodeError):
        return None
    if len(raws) > settings.max_batch:
        return None
    # Mostly distinct (a compiler's distinct ops): one pass of the whole batch is faster. Told from its
    # head first, so such a batch does not pay for counting every text (a twentieth of its time).
    head = raws[:REPEATS_SAMPLE]
    if len(raws) > REPEATS_SAMPLE and 2 * len({bytes(raw) for raw in head}) > len(head):
        return None
    counts = Counter(bytes(raw) for raw in raws)
    if 2 * len(counts) > len(raws):
        return None
    answers: dict[bytes, tuple[bytes, engine.Verdict]] = {}
    order = []
    for raw in raws:
        text = bytes(raw)
        if text not in answers:
            try:
                descriptor = first_pass.descriptor(text) or DESCRIPTOR.validate_json(text)
            except ValidationError:
                return None
            answer = verdict(descriptor, settings)
            answers[text] = (verdict_json(answer), answer)
        order.append(answers[text][0])
    for text, (_, answer) in answers.items():
        metrics.record_verdict(answer.kind, answer.valid, answer.diagnostics, times=counts[text])
    return Response(b'{"results":[' + b",".join(order) + b"]}", media_type="application/json")


def _answer_plain(body: bytes, settings: Settings) -> Response | None:
    """The batch read by msgspec's first pass (app/ops/first_pass.py), when every descriptor is within it
    (a compiler's distinct ops); None, and pydantic parses the batch, otherwise."""
    descriptors = first_pass.batch(body)
    if descriptors is None or len(descriptors) > settings.max_batch:
        return None
    return _answer_verdicts([verdict(descriptor, settings) for descriptor in descriptors])


def _answer_each(body: bytes, settings: Settings) -> Response:
    try:
        batch = BatchRequest.model_validate_json(body)
    except ValidationError as exc:
        raise RequestValidationError(exc.errors(include_url=False)) from None
    if len(batch.ops) > settings.max_batch:
        raise LimitExceeded(
            "ops",
            "max_batch",
            f"the batch has {len(batch.ops):,} descriptors, above the limit of {settings.max_batch:,} (max_batch)",
        )
    return _answer_verdicts([verdict(descriptor, settings) for descriptor in batch.ops])


def _answer_verdicts(results: list[engine.Verdict]) -> Response:
    metrics.record_verdicts(results)
    # BatchResponse's bytes, from plain data (see verdict_answer).
    answer = '{"results":[' + ",".join([verdict_text(result) for result in results]) + "]}"
    return Response(answer.encode(), media_type="application/json")


@router.post(
    "/evaluate",
    response_model=EvaluateResponse,
    responses={
        **_PROBLEMS,
        422: {"model": Problem, "description": "Not a descriptor, not valid, or no data."},
    },
    summary="Evaluate the reference kernel on the inputs' data",
    openapi_extra=descriptor_body(_EVALUATE_EXAMPLES),
)
async def evaluate(request: Request) -> Response:
    """Validates first (an invalid descriptor is a 422 carrying the diagnostics); sizes are checked
    against the limits before anything is allocated. Outputs use the request's encoding."""
    # A small body is checked on the event loop, and when the check shows the run small too it is run
    # there (the thread-pool hop cost ~170 us of a ~1.1 ms round trip, more than the evaluation). Anything
    # else (a large body, a large or unknown output) goes to the thread pool, so the loop is not stalled.
    body = await request.body()
    settings = request.app.state.settings  # not a dependency, as in validate
    if not _is_small(body, settings):
        return await off_loop(request, _evaluate, body, settings)
    spec, verdict, ctx = _evaluable(read_descriptor(body), settings)
    size = engine.run_elements(verdict, ctx.descriptor)
    if size is not None and size <= settings.inline_elements:
        return _evaluation(spec, verdict, ctx)
    return await off_loop(request, _evaluation, spec, verdict, ctx)


HOT["/evaluate"] = evaluate


def _evaluate(body: bytes, settings: Settings) -> Response:
    return _evaluation(*_evaluable(read_descriptor(body, settings), settings))


def _evaluable(descriptor: Descriptor, settings: Settings) -> tuple[OpSpec, engine.Verdict, engine.Context]:
    spec = BY_NAME[descriptor.kind]
    try:
        return (spec, *engine.evaluable(spec, descriptor, settings))
    except engine.Invalid as exc:
        metrics.record_verdict(exc.verdict.kind, False, exc.verdict.diagnostics)
        raise


def _evaluation(spec: OpSpec, verdict: engine.Verdict, ctx: engine.Context) -> Response:
    result = engine.evaluation(spec, verdict, ctx)
    metrics.record_verdict(result.kind, True, result.diagnostics)
    return Response(evaluate_answer(result), media_type="application/json")


def evaluate_answer(result: engine.Evaluation) -> bytes:
    """The answer as EvaluateResponse (the route's documented model) writes it, the same bytes, without
    validating our own outputs into that model first: that was half the cost of a small answer."""
    outputs = b",".join(map(_output_json, result.outputs))
    kind, diagnostics = pydantic_core.to_json(result.kind), pydantic_core.to_json(result.diagnostics)
    return b'{"kind":%b,"outputs":[%b],"diagnostics":%b}' % (kind, outputs, diagnostics)


def _output_json(output: dict) -> bytes:
    """One output as pydantic_core.to_json writes it, with base64 text copied as it is: its alphabet
    needs no escape in JSON, and to_json's scan for escapes was most of a small answer's cost (1.9 of
    2.3 us for 1,000 f32)."""
    data = output["data"]
    if is_base64(data):  # {"encoding": "base64", "bytes": <str>}, as payload.encode builds it
        written = b'{"encoding":"base64","bytes":"%b"}' % data["bytes"].encode("ascii")
    else:
        written = pydantic_core.to_json(data)
    dtype, shape = pydantic_core.to_json(output["dtype"]), pydantic_core.to_json(output["shape"])
    return b'{"dtype":%b,"shape":%b,"data":%b}' % (dtype, shape, written)
