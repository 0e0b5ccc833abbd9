"""Every MEDRCUBE_* override is written once (settings.ENVIRONMENT) and documented."""

import re
from pathlib import Path

from medrcube_desktop import settings

ROOT = Path(__file__).resolve().parents[1]


def _names_in(text: str) -> set[str]:
    # MEDRCUBE_API_KEY_<HOST> stands for every per-host variable
    names = set(re.findall(r"MEDRCUBE_[A-Z_]*[A-Z]", text))
    return {"MEDRCUBE_API_KEY_<HOST>" if n.startswith("MEDRCUBE_API_KEY") else n for n in names}


def test_every_variable_the_code_reads_is_in_the_table_and_the_readme():
    code = "\n".join(p.read_text() for p in (ROOT / "medrcube_desktop").rglob("*.py"))
    used = _names_in(code)
    listed = {variable.name for variable in settings.ENVIRONMENT}
    assert used == listed
    # README and the user guide (the table of variables is on docs/index.md)
    readme = "\n".join(p.read_text() for p in [ROOT / "README.md", *(ROOT / "docs").glob("*.md")])
    public = {v.name for v in settings.ENVIRONMENT if not v.meaning.startswith("internal:")}
    assert public <= _names_in(readme) | {"MEDRCUBE_API_KEY_<HOST>"}
    assert "MEDRCUBE_API_KEY_<HOST>" in readme


def test_folder_overrides_expand_home_and_ignore_blank(monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("MEDRCUBE_IMAGE_CACHE", "~/images")
    monkeypatch.setenv("MEDRCUBE_LOG_DIR", "  ")
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    assert settings.image_cache_dir() == tmp_path / "images"
    assert settings.log_dir() == tmp_path / "state" / "medrcube-desktop" / "log"
    monkeypatch.setenv("MEDRCUBE_LOG_DIR", str(tmp_path / "logs"))
    assert settings.log_dir() == tmp_path / "logs"
