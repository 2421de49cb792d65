"""Prometheus metrics (prometheus-client): requests and latencies per route, verdicts per op and rule.

A registry of our own rather than the process-wide default, so that building the app twice (the tests
do) registers nothing twice, and /metrics shows opspec's series only.
"""

from __future__ import annotations

import bisect
import collections
from collections.abc import Iterable
from typing import Any

from fastapi import APIRouter, Response
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Histogram, generate_latest

from app.core.diagnostics import Diagnostic

REGISTRY = CollectorRegistry()
REQUESTS = Counter(
    "opspec_requests", "HTTP requests answered.", ["method", "route", "status"], registry=REGISTRY
)
LATENCY = Histogram(
    "opspec_request_duration_seconds",
    "Time from the request's start to its answer's last byte.",
    ["method", "route"],
    registry=REGISTRY,
    buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30),
)
VERDICTS = Counter(
    "opspec_verdicts", "Descriptors checked, by op and verdict.", ["op", "valid"], registry=REGISTRY
)
DIAGNOSTICS = Counter(
    "opspec_diagnostics",
    "Diagnostics given, by op, rule and severity.",
    ["op", "rule", "severity"],
    registry=REGISTRY,
)

router = APIRouter(tags=["operations"])

# The methods a route of ours answers, and HEAD and OPTIONS; any other token a client sends is counted
# as "other", so a client cannot grow the series without bound.
METHODS = frozenset({"GET", "POST", "HEAD", "OPTIONS", "PUT", "PATCH", "DELETE"})
_REQUEST_SERIES: dict[tuple[str, str, int], tuple[Any, Any]] = {}
# Requests answered since the last fold, folded into the series FOLD_AT at a time and before every
# scrape: a Counter.inc and a Histogram.observe per request took their locks and walked the buckets in
# Python (~1.5 us of a ~30 us validate in the app); a fold sorts a thousand latencies into buckets at once.
_PENDING: list[tuple[str, str, int, float]] = []
FOLD_AT = 1024
_VERDICT_SERIES: dict[tuple[str, bool], Any] = {}


def record_request(method: str, route: str, status: int, seconds: float) -> None:
    """Count one answered request and its latency (counted at the next fold, at the latest when
    /metrics is read)."""
    _PENDING.append((method, route, status, seconds))
    if len(_PENDING) >= FOLD_AT:
        fold()


def fold() -> None:
    """The pending requests into their series: one inc per label set, and per histogram one add to
    each bucket that got latencies (the bucket as Histogram.observe picks it: the first bound >= the
    latency) and one to its sum."""
    taken = _PENDING[:]
    del _PENDING[: len(taken)]  # a request recorded meanwhile stays for the next fold
    groups: dict[tuple[str, str, int], list[float]] = collections.defaultdict(list)
    for method, route, status, seconds in taken:
        groups[(method, route, status)].append(seconds)
    for key, latencies in groups.items():
        series = _REQUEST_SERIES.get(key)
        if series is None:
            method, route, status = key
            label = method if method in METHODS else "other"
            series = _REQUEST_SERIES[key] = (
                REQUESTS.labels(label, route, str(status)),
                LATENCY.labels(label, route),
            )
        series[0].inc(len(latencies))
        _observe_all(series[1], latencies)


def _observe_all(histogram: Any, latencies: list[float]) -> None:
    buckets, bounds, total = (
        getattr(histogram, name, None) for name in ("_buckets", "_upper_bounds", "_sum")
    )
    if buckets is None or bounds is None or total is None:  # another prometheus-client: one at a time
        for seconds in latencies:
            histogram.observe(seconds)
        return
    counts = collections.Counter(bisect.bisect_left(bounds, seconds) for seconds in latencies)
    for index, count in counts.items():
        buckets[index].inc(count)
    total.inc(sum(latencies))


def record_verdict(kind: str, valid: bool, diagnostics: Iterable[Diagnostic], times: int = 1) -> None:
    """Count a verdict (`times` over, for a batch's repeats of one descriptor) and its diagnostics."""
    series = _VERDICT_SERIES.get((kind, valid))
    if series is None:  # kinds are the registry's: a bounded set
        series = _VERDICT_SERIES[(kind, valid)] = VERDICTS.labels(kind, "true" if valid else "false")
    series.inc(times)
    for d in diagnostics:
        DIAGNOSTICS.labels(kind, d.rule, d.severity).inc(times)


def record_verdicts(verdicts: Iterable[Any]) -> None:
    """A batch's verdicts, counted per label set (one labels() lookup per verdict cost 4 us of 15)."""
    kinds = collections.Counter((v.kind, v.valid) for v in verdicts)
    rules = collections.Counter((v.kind, d.rule, d.severity) for v in verdicts for d in v.diagnostics)
    for (kind, valid), times in kinds.items():
        VERDICTS.labels(kind, "true" if valid else "false").inc(times)
    for labels, times in rules.items():
        DIAGNOSTICS.labels(*labels).inc(times)


@router.get("/metrics", include_in_schema=False)
async def metrics() -> Response:
    fold()
    return Response(generate_latest(REGISTRY), media_type=CONTENT_TYPE_LATEST)
