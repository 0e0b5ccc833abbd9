"""``python -m medrcube_desktop.cli``: the command line."""

import sys

from medrcube_desktop.cli.app import main

sys.exit(main())
