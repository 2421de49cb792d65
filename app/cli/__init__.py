"""The `opspec` command: `serve` runs the HTTP API, `check` validates descriptor and graph files for CI,
`verify` compares a kernel's outputs with the spec's, `merge` joins the reports of a check's shards,
`rule` explains a rule id from a report.

command.py parses the command line and runs a subcommand: check.py, verify.py and rule.py hold theirs,
files.py which files a check reads (folders, globs, [tool.opspec]), pool.py the worker processes of
--jobs and the shards of --shard, output.py the report as it is written. At import only the standard
library and the report writers: a subcommand imports what it runs.
"""

from app.cli.command import EXIT_INTERRUPTED, EXIT_INVALID, EXIT_MALFORMED, EXIT_VALID, main, run

__all__ = ["EXIT_INTERRUPTED", "EXIT_INVALID", "EXIT_MALFORMED", "EXIT_VALID", "main", "run"]
