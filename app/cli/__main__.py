"""`python -m app.cli`: the `opspec` command."""

import sys

from app.cli import main

sys.exit(main())
