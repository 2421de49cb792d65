# The opspec image: `run IMAGE` serves the HTTP API on port 8000; `run --rm -v "$PWD:/src:ro" -w /src
# IMAGE check .` checks a repository's descriptors. It runs as a non-root user on a read-only root.
ARG BASE_IMAGE=python:3.12-slim

# Build stage: every wheel the app needs, and the app's own, so the final stage installs offline.
FROM ${BASE_IMAGE} AS build
ARG PIP_CERT
ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_PROGRESS_BAR=off \
    PYTHONDONTWRITEBYTECODE=1
WORKDIR /src
COPY pyproject.toml README.md ./
COPY app ./app
RUN python -m venv /opt/build \
    && /opt/build/bin/pip wheel --wheel-dir /wheels .

# Final stage: the wheels installed into a venv, with no pip, build tools, sources or tests kept.
FROM ${BASE_IMAGE}
ARG VERSION=0.1.0
# Where the source lives: the project's repository (pyproject.toml's [project.urls] Repository);
# scripts/image.sh passes the clone's https remote instead when it has one.
ARG SOURCE=https://github.com/opspec/opspec
ARG LICENSES=NOASSERTION
LABEL org.opencontainers.image.title="opspec" \
      org.opencontainers.image.description="Checks tensor-op descriptors against their specifications: an HTTP API and a CI checker." \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.source="${SOURCE}" \
      org.opencontainers.image.licenses="${LICENSES}"
# No byte code is written at run time (the root file system is read-only; the venv's is compiled at
# install), output is not buffered so logs arrive as they happen.
ENV PATH=/opt/opspec/bin:$PATH \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PYTHONFAULTHANDLER=1
RUN --mount=type=bind,from=build,source=/wheels,target=/wheels \
    python -m venv /opt/opspec \
    && /opt/opspec/bin/pip install --no-cache-dir --no-index --find-links /wheels opspec \
    && /opt/opspec/bin/pip uninstall --yes pip setuptools \
    && useradd --uid 10001 --user-group --no-log-init --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin opspec
USER 10001:10001
WORKDIR /src
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=4)"]
ENTRYPOINT ["opspec"]
CMD ["serve", "--host", "0.0.0.0", "--port", "8000"]
