"""The tests of MedRCube Desktop. Importing this package (pytest, or a child process
run as ``python -m tests.…``) makes ``medrcube_desktop.review_db`` and
``medrcube_desktop.resources`` this checkout's own (see below)."""

from pathlib import Path


def _use_this_checkouts_data_packages() -> None:
    """Test this checkout's ``review_db/`` and ``resources/``: an editable install made
    from another checkout (a git worktree beside it) maps those two packages to its own
    folders, so a migration added here would not be read."""
    import importlib.util
    import sys

    import medrcube_desktop

    root = Path(__file__).resolve().parents[1]
    if Path(medrcube_desktop.__file__).resolve().parent != root / "medrcube_desktop":
        return  # testing an installed package: leave it as installed
    for name, folder in (("review_db", root / "review_db"), ("resources", root / "resources")):
        full = f"medrcube_desktop.{name}"
        spec = importlib.util.spec_from_file_location(
            full, folder / "__init__.py", submodule_search_locations=[str(folder)]
        )
        if spec is None or spec.loader is None:
            continue
        module = importlib.util.module_from_spec(spec)
        sys.modules[full] = module
        spec.loader.exec_module(module)
        setattr(medrcube_desktop, name, module)


_use_this_checkouts_data_packages()
