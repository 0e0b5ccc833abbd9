"""README and .ci/run name the same system packages Qt needs (issue 13: a first launch
crashed on xcb libraries README did not list)."""

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _ci_packages() -> set[str]:
    """The packages of resources/qt_system_libraries.txt, the list .ci/run installs from."""
    from medrcube_desktop.core.system_libraries import qt_libraries

    assert "< resources/qt_system_libraries.txt" in (ROOT / ".ci" / "run").read_text()
    return {lib.package for lib in qt_libraries()}


def test_readme_and_ci_list_the_same_packages():
    # README and the user guide (docs/install-clinicians.md says it in full)
    readme = "\n".join(p.read_text() for p in [ROOT / "README.md", *(ROOT / "docs").glob("*.md")])
    listed = set()
    for command in re.findall(r"`apt-get install ([^`]+)`", readme, flags=re.S):
        listed |= set(command.split())
    assert listed == _ci_packages()


@pytest.mark.skipif(shutil.which("ldd") is None, reason="needs ldd (Linux)")
def test_every_x11_library_qts_xcb_plugin_links_is_in_the_lists():
    import PySide6

    qt = Path(PySide6.__file__).parent / "Qt"
    plugin = qt / "plugins" / "platforms" / "libqxcb.so"
    if not plugin.exists():
        pytest.skip("this PySide6 has no xcb plugin")
    linked = set()
    for library in (plugin, qt / "lib" / "libQt6XcbQpa.so.6"):
        out = subprocess.run(["ldd", str(library)], capture_output=True, text=True).stdout
        linked |= set(re.findall(r"(libxcb-[a-z-]+|libxkbcommon-x11)\.so\.(\d+)", out))
    # Debian's package name: the library's name with its soname version (libxcb-icccm4)
    wanted = {name + ("-" if name[-1].isdigit() or name.endswith("x11") else "") + version
              for name, version in linked}  # fmt: skip
    assert wanted and wanted <= _ci_packages(), wanted - _ci_packages()


def test_ci_runs_the_readmes_test_commands_exactly():
    """CI runs README's test command and its real-component command as written: a
    command edited in one place only would pass CI and fail a user (or the reverse)."""
    blocks = re.findall(r"```bash\n(.*?)\n```", (ROOT / "README.md").read_text(), re.S)
    ci = (ROOT / ".ci" / "run").read_text()
    tests, real = blocks[1].strip(), blocks[2].strip()
    assert "pytest" in tests and "-m real" in real
    assert tests in ci and real in ci
