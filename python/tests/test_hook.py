"""The pre-commit hook (.pre-commit-hooks.yaml) with `pre-commit try-repo`
in a scratch git repository.

pre-commit installs a hook repository with pip; compiling quarry there would
take minutes, so the hook repository here is the real hook file beside a
package that depends on quarry-code, installed from the wheel under test
(`QUARRY_HOOK_WHEELS`: a folder with it and setuptools, set by
scripts/test-python)."""

from __future__ import annotations

import os
import shutil
import subprocess
import textwrap
from pathlib import Path

import pytest

HOOKS = Path(__file__).resolve().parents[2] / ".pre-commit-hooks.yaml"


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def write(root: Path, files: dict) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip())


@pytest.fixture()
def env(tmp_path):
    wheels = os.environ.get("QUARRY_HOOK_WHEELS")
    if not wheels or shutil.which("pre-commit") is None or shutil.which("git") is None:
        pytest.skip("needs QUARRY_HOOK_WHEELS (set by scripts/test-python), pre-commit and git")
    return {
        **os.environ,
        "PIP_NO_INDEX": "1",
        "PIP_FIND_LINKS": wheels,
        "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"),
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
        "NO_COLOR": "1",
    }


def test_the_hook_runs_quarry_on_staged_files_with_the_projects_configuration(tmp_path, env):
    hook_repo = tmp_path / "hook"
    hook_repo.mkdir()
    shutil.copy(HOOKS, hook_repo / ".pre-commit-hooks.yaml")
    write(hook_repo, {
        "pyproject.toml": """
            [build-system]
            requires = ["setuptools>=61"]
            build-backend = "setuptools.build_meta"
            [project]
            name = "quarry-hook-under-test"
            version = "0"
            dependencies = ["quarry-code"]
            [tool.setuptools]
            py-modules = []
        """,
    })
    git(hook_repo, "init", "-q")
    git(hook_repo, "add", ".")
    subprocess.run(["git", "commit", "-qm", "hook"], cwd=hook_repo, check=True, env=env)

    work = tmp_path / "work"
    work.mkdir()
    write(work, {
        "pyproject.toml": """
            [tool.quarry]
            select = ["unused-import"]
            extend-exclude = ["generated"]
        """,
        "pkg/a.py": "import os\n",
        "pkg/b.py": "def f():\n    unused = 1\n",
        "generated/c.py": "import json\n",
        "notes.txt": "import sys\n",
    })
    git(work, "init", "-q")
    git(work, "add", ".")

    def try_repo():
        return subprocess.run(["pre-commit", "try-repo", str(hook_repo), "quarry"], cwd=work, env=env,
                              capture_output=True, text=True)

    failed = try_repo()
    output = failed.stdout + failed.stderr
    assert failed.returncode == 1, output
    assert "pkg/a.py" in output and "import os" in output
    assert "c.py" not in output  # extend-exclude holds for staged files (--force-exclude)
    assert "b.py" not in output  # only [tool.quarry]'s select runs

    (work / "pkg/a.py").write_text("import os  # noqa: unused-import\n")
    git(work, "add", ".")
    passed = try_repo()
    assert passed.returncode == 0, passed.stdout + passed.stderr
