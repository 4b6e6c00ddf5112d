"""The installed wheel: the module, its stubs, and the binary on PATH."""

import subprocess
from pathlib import Path

import quarry_code


def test_the_module_comes_from_the_installed_wheel_with_its_stubs():
    package = Path(quarry_code.__file__).parent
    assert "site-packages" in package.parts
    for name in ["py.typed", "_native.pyi", "metrics.pyi"]:
        assert (package / name).is_file(), name


def test_the_binary_runs_and_has_the_module_version(quarry_bin):
    done = subprocess.run([quarry_bin, "--version"], capture_output=True, text=True, check=True)
    assert quarry_code.__version__ in done.stdout


def test_every_error_is_a_quarry_error():
    from quarry_code import errors

    assert issubclass(errors.QuarryValueError, ValueError)
    assert issubclass(errors.QuarryOSError, OSError)
    assert issubclass(errors.QuarryValueError, errors.QuarryError)
    assert issubclass(errors.QuarryOSError, errors.QuarryError)


def test_a_rust_panic_becomes_a_quarry_error():
    import pytest

    with pytest.raises(quarry_code.QuarryError, match="internal error.*deliberate"):
        quarry_code._native._panic_for_test("deliberate")
