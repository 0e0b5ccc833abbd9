"""Only medrcube_desktop.ui may import Qt (STYLE.md rule 1)."""

import subprocess
import sys
import textwrap


def test_no_module_outside_ui_imports_qt():
    # Import every non-UI module in a fresh interpreter where importing Qt fails.
    code = textwrap.dedent(
        """
        import importlib, pkgutil, sys

        class BlockQt:
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0] in ("PySide6", "shiboken6", "PyQt5", "PyQt6"):
                    raise ImportError(f"Qt imported: {name}")
                return None

        sys.meta_path.insert(0, BlockQt())
        import medrcube_desktop
        names = [m.name for m in pkgutil.walk_packages(medrcube_desktop.__path__, "medrcube_desktop.")]
        # __main__ runs the app when imported; it only calls cli.main
        checked = [n for n in names if not n.startswith("medrcube_desktop.ui") and not n.endswith("__main__")]
        for name in checked:
            importlib.import_module(name)
        assert "medrcube_desktop.cli" in checked and "medrcube_desktop.imaging.render" in checked
        print(len(checked))
        """
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert int(result.stdout.strip()) >= 15


def test_the_ui_package_does_import_qt():
    # the blocker above must be able to fail: the UI package cannot be imported under it
    code = (
        "import sys\n"
        "class B:\n"
        "    def find_spec(self, n, p=None, t=None):\n"
        "        if n.startswith('PySide6'): raise ImportError(n)\n"
        "sys.meta_path.insert(0, B())\n"
        "import medrcube_desktop.ui.main_window\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode != 0 and "PySide6" in result.stderr


def _top_level_modules() -> set[str]:
    import pkgutil

    import medrcube_desktop

    return {
        f"medrcube_desktop.{m.name}"
        for m in pkgutil.iter_modules(medrcube_desktop.__path__)
        if m.name != "__main__"
    }


def _contracts() -> dict[str, dict]:
    import tomllib
    from pathlib import Path

    pyproject = Path(__file__).resolve().parents[1] / "pyproject.toml"
    config = tomllib.loads(pyproject.read_text())["tool"]["importlinter"]["contracts"]
    return {contract["name"]: contract for contract in config}


def test_the_layer_contract_names_every_module_of_the_package():
    # a new package or module cannot slip past the layers by not being listed
    layers = _contracts()["Layers of DESIGN.md: nothing points back up"]["layers"]
    listed = {name.strip() for layer in layers for name in layer.split("|")}
    assert listed == _top_level_modules()


def test_the_qt_and_argparse_contracts_cover_everything_but_their_own_homes():
    everything = _top_level_modules()
    qt = _contracts()["Only medrcube_desktop.ui imports Qt"]["source_modules"]
    assert set(qt) == everything - {"medrcube_desktop.ui"}
    terminal = _contracts()[
        "argparse and tqdm stay in the command line and the terminal job runner"
    ]["source_modules"]
    assert set(terminal) == everything - {"medrcube_desktop.cli", "medrcube_desktop.jobs"}


def test_no_import_cycle():
    # Every import counts, those inside functions too: a module that imports another is
    # never imported back by it, directly or through others (issue 12: imaging/loading.py
    # and its readers, evaluation/engines/model_worker.py and its backends).
    import grimp

    # names imported only for type checking (``if TYPE_CHECKING:``) never run
    graph = grimp.build_graph(
        "medrcube_desktop", cache_dir=None, exclude_type_checking_imports=True
    )
    cycles = [
        [module, *chain]
        for module in sorted(graph.modules)
        for imported in sorted(graph.find_modules_directly_imported_by(module))
        if (chain := graph.find_shortest_chain(importer=imported, imported=module))
    ]
    assert cycles == []
    # the graph does hold the lazy imports: loading opens the readers inside load_slice
    assert graph.find_shortest_chain(
        importer="medrcube_desktop.imaging.loading", imported="medrcube_desktop.imaging.dicom"
    ) == ("medrcube_desktop.imaging.loading", "medrcube_desktop.imaging.dicom")
    assert (
        graph.find_shortest_chain(
            importer="medrcube_desktop.imaging.dicom", imported="medrcube_desktop.imaging.loading"
        )
        is None
    )


UI_LAYERS = "ui: the window's shell above the features above the shared widgets"
UI_FEATURES = "ui: the features do not import each other (a shared piece goes in ui.widgets)"


def _ui_children() -> tuple[set[str], set[str]]:
    """ui's top-level modules and its folders (subpackages), by name."""
    import pkgutil

    import medrcube_desktop.ui

    children = list(pkgutil.iter_modules(medrcube_desktop.ui.__path__))
    return {m.name for m in children if not m.ispkg}, {m.name for m in children if m.ispkg}


def test_the_ui_contracts_name_every_module_and_folder_of_ui():
    # a new pane folder or shell module cannot slip past the ui layers by not being listed:
    # the shell is every top-level module, the features every folder but widgets
    modules, folders = _ui_children()
    assert "widgets" in folders and "main_window" in modules and len(folders) >= 5
    contract = _contracts()[UI_LAYERS]
    assert contract["containers"] == ["medrcube_desktop.ui"] and contract["exhaustive"]
    shell, features, bottom = (
        {name.strip() for name in layer.replace("|", ":").split(":")}
        for layer in contract["layers"]
    )
    assert "|" not in contract["layers"][0] and ":" not in contract["layers"][1]
    assert shell == modules
    assert features == folders - {"widgets"} and bottom == {"widgets"}
    independent = _contracts()[UI_FEATURES]["modules"]
    assert set(independent) == {f"medrcube_desktop.ui.{name}" for name in features}


def test_no_import_cycle_in_ui_counting_type_checking_and_function_imports():
    # Stricter than test_no_import_cycle for ui: an import under ``if TYPE_CHECKING:``
    # counts too (issue 22: main_window, file_actions, window_factory and review_binding
    # imported each other that way), as do imports inside functions (the panes, loaded
    # when first opened).
    import grimp

    graph = grimp.build_graph(
        "medrcube_desktop", cache_dir=None, exclude_type_checking_imports=False
    )
    ui = sorted(m for m in graph.modules if m.startswith("medrcube_desktop.ui."))
    cycles = [
        [module, *chain]
        for module in ui
        for imported in sorted(graph.find_modules_directly_imported_by(module))
        if imported.startswith("medrcube_desktop.ui.")
        if (chain := graph.find_shortest_chain(importer=imported, imported=module))
    ]
    assert cycles == []
    # the graph does hold both kinds: the opener imports each pane inside a function,
    # and review_controls imports the rubric pane only for type checking
    assert graph.direct_import_exists(
        importer="medrcube_desktop.ui.pane_opener", imported="medrcube_desktop.ui.compare.pane"
    )
    assert graph.direct_import_exists(
        importer="medrcube_desktop.ui.review.review_controls",
        imported="medrcube_desktop.ui.review.rubric_pane",
    )


def test_the_window_starts_without_the_sdk_pydantic_or_the_evaluation_runner():
    # the command line's parser reads run defaults (llm.config, engines.base); it must not
    # pull what only a job needs into the window's start-up
    code = (
        "import sys, medrcube_desktop.cli, medrcube_desktop.ui.app\n"
        "heavy = ('pydantic', 'openai', 'statsmodels', 'medrcube_desktop.llm.judge',\n"
        "         'medrcube_desktop.evaluation.runner')\n"
        "print([m for m in heavy if m in sys.modules])\n"
    )
    env = {**__import__("os").environ, "QT_QPA_PLATFORM": "offscreen"}
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_the_wheel_lists_every_package_folder():
    """A package folder missing from pyproject's ``[tool.setuptools] packages`` is left
    out of the wheel and the frozen bundle while the editable install the tests run on
    still finds it (``ui/corrections`` was, issue 23): every folder with an
    ``__init__.py`` is listed."""
    import tomllib
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    listed = set(
        tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]
    )
    folders = {
        ".".join(init.parent.relative_to(root).parts)
        for init in (root / "medrcube_desktop").rglob("__init__.py")
    }
    assert folders, "no package folder found"
    assert folders - listed == set()
