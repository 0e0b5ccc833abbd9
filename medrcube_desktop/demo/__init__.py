"""The demo benchmark, built from real public medical images that installed packages ship."""

from medrcube_desktop.demo.build import BUILDER_VERSION, build_demo, ensure_demo

__all__ = ["BUILDER_VERSION", "build_demo", "ensure_demo"]
