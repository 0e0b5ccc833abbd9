"""The frozen bundle's entry point: the same ``main`` as the installed scripts."""

import sys

from medrcube_desktop.cli import main

if __name__ == "__main__":
    sys.exit(main())
