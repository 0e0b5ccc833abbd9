"""Command line: ``medrcube-desktop`` opens the review window; its subcommands run jobs.

One module per command group; :mod:`.app` holds the parser and :func:`main`,
:mod:`.common` the options and policies every command shares, :mod:`.argtypes` the value
types. Exit status (DESIGN.md): 0 done, 1 a job failed or was cancelled, 2 bad usage or
bad input (with a one-line reason on stderr).
"""

from medrcube_desktop.cli.app import build_parser, commands, main

__all__ = ["build_parser", "commands", "main"]
