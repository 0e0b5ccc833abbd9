"""MedRCube Desktop: review, score and evaluate MedRCube-style medical-imaging benchmarks."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("medrcube-desktop")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0+unknown"
