"""The request metrics, recorded per request and folded into the Prometheus series in batches
(app/api/metrics.py fold), against what Counter.inc and Histogram.observe per request give: the same
counts and bucket counts for latencies on, between and beyond the bounds, whatever the batch size."""

from __future__ import annotations

import math
from unittest import mock

from hypothesis import given, settings
from hypothesis import strategies as st
from prometheus_client import CollectorRegistry, Counter, Histogram

from app.api import metrics

_LATENCY = st.one_of(
    st.sampled_from([*metrics.LATENCY._upper_bounds[:-1], 0.0, 1e-9, 1e9]),
    st.floats(0, 60, allow_nan=False),
)
_ROUTE = st.sampled_from(["/v1/fold-a", "/v1/fold-b"])


def _samples(registry_metric) -> dict:
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in registry_metric.collect()
        for sample in family.samples
        if sample.labels.get("route", "").startswith("/v1/fold") and not sample.name.endswith("_created")
    }


@given(st.lists(st.tuples(_ROUTE, st.sampled_from([200, 422]), _LATENCY), max_size=300), st.integers(1, 50))
@settings(max_examples=60, deadline=None)
def test_folded_series_equal_one_observation_a_request(requests, fold_at) -> None:
    registry = CollectorRegistry()
    counter = Counter("opspec_requests", "x", ["method", "route", "status"], registry=registry)
    histogram = Histogram(
        "opspec_request_duration_seconds",
        "x",
        ["method", "route"],
        registry=registry,
        buckets=metrics.LATENCY._upper_bounds[:-1],
    )
    metrics.fold()
    before_counts, before_latency = _samples(metrics.REQUESTS), _samples(metrics.LATENCY)
    with mock.patch.object(metrics, "FOLD_AT", fold_at):
        for route, status, seconds in requests:
            metrics.record_request("POST", route, status, seconds)
            counter.labels("POST", route, str(status)).inc()
            histogram.labels("POST", route).observe(seconds)
    metrics.fold()
    assert not metrics._PENDING
    after_counts, after_latency = _samples(metrics.REQUESTS), _samples(metrics.LATENCY)
    want_counts, want_latency = _samples(counter), _samples(histogram)
    for key, value in want_counts.items():
        assert after_counts[key] - before_counts.get(key, 0) == value, key
    for key, value in want_latency.items():
        got = after_latency[key] - before_latency.get(key, 0)
        if key[0].endswith("_sum"):  # the same numbers added in another grouping
            # (less the sum before, which other tests' requests made large: rounding of its size)
            assert math.isclose(got, value, abs_tol=1e-9 * max(1.0, before_latency.get(key, 0))), key
        else:
            assert got == value, key


def _healthz_count(text: str) -> float:
    line = next(
        (
            line
            for line in text.splitlines()
            if line.startswith('opspec_requests_total{method="GET",route="/healthz"')
        ),
        None,
    )
    return 0.0 if line is None else float(line.rsplit(" ", 1)[1])


def test_a_scrape_counts_every_request_recorded_before_it(client) -> None:
    """Fewer requests than a fold holds are still counted by the next scrape, exactly."""
    before = _healthz_count(client.get("/metrics").text)
    for _ in range(3):
        client.get("/healthz")
    assert len(metrics._PENDING) < metrics.FOLD_AT
    assert _healthz_count(client.get("/metrics").text) == before + 3
