"""The frozen bundle's entry point: the same ``main`` as the installed scripts.

In the bundle this executable is also the interpreter of every process the app starts
(image workers' fork server, engine guard, model workers): those command lines are run
here, before anything parses them as the app's (:mod:`medrcube_desktop.core.frozen`).
"""

import sys

from medrcube_desktop.core.frozen import run_child_if_asked

if __name__ == "__main__":
    run_child_if_asked()
    from medrcube_desktop.cli import main

    sys.exit(main())
