"""``python -m server``: same as ``boardhall-server``."""

import sys

from server.cli import main

sys.exit(main())
