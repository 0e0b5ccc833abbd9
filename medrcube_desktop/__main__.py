"""``python -m medrcube_desktop``."""

import sys

from medrcube_desktop.cli import main

sys.exit(main())
