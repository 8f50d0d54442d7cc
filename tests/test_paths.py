"""Finding the templates: the wheel's copy inside the package, else the checkout's folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from pbem import paths


def _templates(folder: Path) -> Path:
    folder.mkdir(parents=True)
    (folder / "base.html").write_text("<!doctype html>")
    return folder


def test_a_checkout_reads_the_top_level_folder() -> None:
    assert Path(__file__).resolve().parents[1] / "templates" == paths.TEMPLATES


def test_an_installed_wheel_reads_its_own_copy(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    package = tmp_path / "site-packages" / "pbem"
    packaged = _templates(package / "_templates")
    monkeypatch.setattr(paths, "_PACKAGE", package)
    assert paths.templates_dir() == packaged
    checkout = tmp_path / "checkout" / "pbem"
    top_level = _templates(checkout.parent / "templates")
    monkeypatch.setattr(paths, "_PACKAGE", checkout)
    assert paths.templates_dir() == top_level


def test_missing_templates_say_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(paths, "_PACKAGE", tmp_path / "pbem")
    with pytest.raises(RuntimeError, match="templates are missing"):
        paths.templates_dir()
