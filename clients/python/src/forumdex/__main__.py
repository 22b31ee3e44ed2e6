"""``python -m forumdex``: the command line (see :mod:`forumdex.cli`)."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
