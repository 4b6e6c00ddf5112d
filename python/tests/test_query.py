"""quarry_code.query against `quarry query --format jsonl` on the same input."""

from __future__ import annotations

import errno
import json
import os
import textwrap
from pathlib import Path

import pytest

import quarry_code
from conftest import jsonl

PROJECT = {
    "pyproject.toml": """
        [tool.quarry]
        select = ["unused-import", "unused-local-variable", "py/test-equals-none"]
        extend-exclude = ["generated"]
    """,
    "pkg/__init__.py": "",
    "pkg/a.py": """
        import os
        import sys  # noqa
        def f(x):
            unused = 1
            if x == None:
                return 2
    """,
    "pkg/b.py": """
        from pkg import a
        def g():
            try:
                pass
            except:
                pass
            value = a
    """,
    "generated/c.py": "import json\n",
}


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    for name, text in PROJECT.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip())
    return tmp_path


def cli_findings(run_cli, *args: str, cwd=None):
    return jsonl(run_cli("query", "--format", "jsonl", "--quiet", *args, ok_codes=(0, 1), cwd=cwd))


def test_findings_equal_the_cli_with_the_project_configuration(project, run_cli):
    api = quarry_code.query([str(project)])
    assert api == cli_findings(run_cli, str(project))
    assert {f["query_id"] for f in api} == {"unused-import", "unused-local-variable", "equals-none"}
    assert not any(f["file"].endswith("c.py") for f in api)  # extend-exclude
    assert not any("sys" in f["answer_spans"][0]["span"] for f in api)  # noqa


def test_select_negative_and_config_equal_the_cli(project, run_cli, tmp_path_factory):
    for select in (["Q1"], ["unused-import", "F841"], ["py/catch-base-exception"]):
        api = quarry_code.query(project, select=select)
        assert api == cli_findings(run_cli, str(project), "--select", ",".join(select))
    assert quarry_code.query(project, negative=True) == cli_findings(run_cli, str(project), "--negative")
    other = tmp_path_factory.mktemp("config") / "quarry.toml"
    other.write_text('select = ["catching-base-exception"]\n')
    api = quarry_code.query([project / "pkg"], config=other)
    assert api == cli_findings(run_cli, str(project / "pkg"), "--config", str(other))
    assert [f["query_id"] for f in api] == ["catching-base-exception"]


def test_the_cache_is_the_cli_s_and_changes_no_finding(project, run_cli, monkeypatch):
    monkeypatch.delenv("QUARRY_CACHE_DIR", raising=False)
    assert quarry_code.query(project) == cli_findings(run_cli, str(project), "--no-cache")
    assert not (project / ".quarry_cache").exists(), "no cache unless asked"
    first = quarry_code.query(project, cache=True)
    assert (project / ".quarry_cache" / "CACHEDIR.TAG").is_file()
    assert quarry_code.query(project, cache=True) == first == cli_findings(run_cli, str(project))
    elsewhere = project / "elsewhere"
    monkeypatch.setenv("QUARRY_CACHE_DIR", str(elsewhere))
    assert quarry_code.query(project, cache=True) == first
    assert (elsewhere / "CACHEDIR.TAG").is_file()


def test_findings_on_the_standard_library_equal_the_cli(run_cli):
    folder = Path(json.__file__).parent
    api = quarry_code.query(folder)
    assert api, "expected findings in the json package"
    assert api == cli_findings(run_cli, str(folder))
    first = api[0]
    assert set(first) >= {"file", "query", "query_id", "example_type", "answer_spans", "supporting_fact_spans"}
    assert set(first["answer_spans"][0]) == {"span", "start_line", "start_column", "end_line", "end_column"}


def test_a_missing_path_is_an_os_error_naming_it(tmp_path):
    missing = tmp_path / "nowhere"
    with pytest.raises(quarry_code.QuarryOSError, match="nowhere") as raised:
        quarry_code.query([missing])
    assert isinstance(raised.value, OSError)
    # As Python's own: caught as FileNotFoundError, with its errno and filename.
    assert isinstance(raised.value, FileNotFoundError)
    assert raised.value.errno == errno.ENOENT
    assert raised.value.filename == str(missing)
    # A file where a directory is expected on the way.
    (tmp_path / "plain").write_text("")
    with pytest.raises(NotADirectoryError) as raised:
        quarry_code.query(tmp_path / "plain" / "m.py")
    assert isinstance(raised.value, quarry_code.errors.QuarryOSError)


def test_a_binary_file_is_a_value_error_naming_it(tmp_path):
    (tmp_path / "quarry.toml").write_text("")
    (tmp_path / "bad.py").write_bytes(b"x = 1\x00\n")
    with pytest.raises(quarry_code.QuarryValueError, match=r"bad\.py.*binary"):
        quarry_code.query(tmp_path / "bad.py")


def test_a_bad_configuration_and_an_unknown_query_are_value_errors(tmp_path):
    config = tmp_path / "quarry.toml"
    config.write_text("select = 3\n")
    (tmp_path / "a.py").write_text("import os\n")
    with pytest.raises(ValueError, match="quarry.toml"):
        quarry_code.query(tmp_path)
    empty = tmp_path / "empty.toml"
    empty.write_text("")
    with pytest.raises(quarry_code.QuarryValueError, match="no-such-query"):
        quarry_code.query(tmp_path / "a.py", select=["no-such-query"], config=empty)


def test_on_error_warn_returns_the_other_files_findings_as_the_cli_prints_them(tmp_path, run_cli):
    (tmp_path / "quarry.toml").write_text('select = ["unused-import"]\n')
    (tmp_path / "a.py").write_text("import os\n")
    (tmp_path / "deep.py").write_text("x = " + "(" * 2000 + "1" + ")" * 2000 + "\n")
    with pytest.raises(quarry_code.QuarryValueError, match=r"deep\.py"):
        quarry_code.query(tmp_path)
    with pytest.warns(quarry_code.QuarryWarning, match=r"deep\.py") as warned:
        findings = quarry_code.query(tmp_path, on_error="warn")
    assert len(warned) == 1
    cli = jsonl(run_cli("query", "--format", "jsonl", "--quiet", str(tmp_path), ok_codes=(2,)))
    assert findings == cli and [f["file"].endswith("a.py") for f in findings] == [True]
    assert quarry_code.query(tmp_path, on_error="ignore") == cli


def test_time_budget_and_on_error_are_checked(tmp_path):
    (tmp_path / "a.py").write_text("import os\n")
    assert quarry_code.query(tmp_path / "a.py", time_budget=None) == quarry_code.query(tmp_path / "a.py")
    for bad in (-1.0, float("nan"), float("inf")):
        with pytest.raises(quarry_code.QuarryValueError, match="time_budget"):
            quarry_code.query(tmp_path / "a.py", time_budget=bad)
    with pytest.raises(quarry_code.QuarryValueError, match="on_error"):
        quarry_code.query(tmp_path / "a.py", on_error="skip")


def _non_utf8_file(folder: Path, content: str) -> bytes:
    """A file named ``caf\\xe9.py`` (Latin-1, not UTF-8) in ``folder``, as bytes;
    skips where the file system refuses such a name (macOS, Windows)."""
    name = os.fsencode(folder) + b"/caf\xe9.py"
    try:
        with open(name, "w") as file:
            file.write(content)
    except (OSError, UnicodeError):
        pytest.skip("this file system refuses names that are not UTF-8")
    return name


def test_a_file_name_that_is_not_utf8_round_trips(tmp_path, run_cli):
    (tmp_path / "quarry.toml").write_text('select = ["unused-import"]\n')
    name = _non_utf8_file(tmp_path, "import os\n")
    for findings in (quarry_code.query(tmp_path), quarry_code.query(name), quarry_code.query(tmp_path, cache=True)):
        assert [f["query_id"] for f in findings] == ["unused-import"]
        # As os.fsdecode spells it: the bytes come back, and the file opens from it.
        assert os.fsencode(findings[0]["file"]) == name
        with open(findings[0]["file"]) as file:
            assert file.read() == "import os\n"
    # The command's JSON is unchanged (text, the name replaced); the rest is the same.
    (cli,) = cli_findings(run_cli, str(tmp_path), "--no-cache")
    assert cli["file"] == name.decode("utf-8", "replace")
    assert {**cli, "file": None} == {**findings[0], "file": None}


def test_an_os_error_names_a_path_that_is_not_utf8_as_given(tmp_path):
    missing = os.fsencode(tmp_path) + b"/nowhere-\xe9"
    with pytest.raises(FileNotFoundError) as raised:
        quarry_code.query(missing)
    assert os.fsencode(raised.value.filename) == missing
