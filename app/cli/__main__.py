"""`python -m app.cli`: the `opspec` command."""

from app.cli import run

run()
