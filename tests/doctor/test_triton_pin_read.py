"""The triton-pin rule reads a plain pin ("NAME==VERSION") without importing
``packaging.requirements`` (``matchers._pin``): what it reads is what ``Requirement`` reads, and
anything else is still read by ``Requirement``."""
from __future__ import annotations

import subprocess
import sys

import pytest
from packaging.requirements import Requirement
from packaging.version import Version

from rocm_wizard.doctor import matchers

PINS = ["pytorch-triton-rocm==3.1.0", "pytorch-triton-rocm==3.1.0+cf34004b8a", "triton==3.3.1",
        "Pytorch_Triton.ROCm==3.0.0+21eae954ef", "triton==2", "triton==3.2.0+rocm6.4.1.git1234",
        # (not plain: Requirement reads them)
        "triton>=3.0,<4", "pytorch-triton-rocm (==3.1.0)", "triton[tests]==3.1.0", "triton==3.1.*",
        "triton~=3.1", "triton===weird", "triton"]
BAD = ["==3.1.0", "triton==", "triton=3.1.0", "-triton==3.1.0", "triton==3.1.0 extra"]
VERSIONS = ["3.1.0", "3.1.0+cf34004b8a", "3.0.0+21eae954ef", "3.3.1", "2", "2.0", "3.2.0+rocm6.4.1.git1234", "3.5.0rc1"]


@pytest.mark.parametrize("text", PINS)
def test_a_pin_reads_as_requirement_reads_it(text):
    want = Requirement(text)
    got = matchers._pin(text)
    assert got is not None and got.name == want.name
    assert str(got.specifier) == str(want.specifier)
    for v in VERSIONS:
        assert got.specifier.contains(Version(v), prereleases=True) == want.specifier.contains(Version(v), prereleases=True)


@pytest.mark.parametrize("text", BAD)
def test_what_is_no_requirement_is_none(text):
    assert matchers._pin(text) is None


def test_a_plain_pin_does_not_import_packaging_requirements():
    code = ("import sys; from rocm_wizard.doctor import matchers; p = matchers._pin('pytorch-triton-rocm==3.1.0'); "
            "print(p.name, p.specifier, 'packaging.requirements' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["pytorch-triton-rocm", "==3.1.0", "False"]
