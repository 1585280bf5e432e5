"""Held-out set DI (tests/data/real/2180-2184, HELDOUT.md): ROCm work under conda environments, unusual Python
versions and interactive (IPython / IDE) sessions.
The miss's cause, from the programs that print the line: glibc's loader reports a missing symbol version as
"version `%s' not found (required by %s)" (bminor/glibc elf/dl-version.c, match_symbol); a program that cannot
start prints it after its own name (2180, read at packaging by glibc_symbol_version_missing), while Python's import
of an extension raises it as ImportError with dlerror()'s text (python/cpython Python/dynload_shlib.c) and ctypes
as OSError (Modules/_ctypes/callproc.c) -- read at framework like the corpus's other import-time loader failures.
The packaging row also claimed the ImportError form, so 2181 led at packaging.  The two detection fixes: Ubuntu's
/etc/lsb-release (DISTRIB_* keys, the file lsb_release reads) and IPython's echo 'Out[N]: '<torch version>''."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rocm_wizard.detect.parsers import os_release, paste_facts
from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids as _ids, lead_layer as _lead_layer

ROW = "di_symbol_version_missing_import"
LOADER = "glibc_symbol_version_missing"


@pytest.mark.parametrize("num,layer", [("2180", "packaging"), ("2181", "framework"), ("2182", "hip"),
                                       ("2183", "hip"), ("2184", "packaging")])
def test_the_set_di_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


def test_the_fixture_is_named_and_leads():
    assert_named_and_leads("2181", ROW, "framework")


def test_the_rows_sit_at_their_layers():
    assert error_signatures.failure_layer(ROW) == "framework"
    assert error_signatures.failure_layer(LOADER) == "packaging"


# -- the loader's symbol-version failure raised by an import (ImportError) or by ctypes (OSError) -------------------
@pytest.mark.parametrize("line", [
    # the fixture's line (ROCm/AMDMIGraphX#3405, conda base environment)
    "ImportError: /opt/conda/bin/../lib/libstdc++.so.6: version `GLIBCXX_3.4.30' not found "
    "(required by /workspace/AMDMIGraphX/build/lib/libmigraphx_gpu.so.2011000)",
    # a miniconda environment under ROS 2's rclpy (an Isaac Sim Unitree Go2 repository's README, 'Common Issue')
    "ImportError: /home/zhefan/miniconda3/envs/isaaclab/bin/../lib/libstdc++.so.6: version `GLIBCXX_3.4.30' not found "
    "(required by /opt/ros/humble/local/lib/python3.10/dist-packages/rclpy/_rclpy_pybind11.cpython-310-x86_64-linux-gnu.so)",
    # ctypes loading LightGBM's library under miniforge, straight quotes (a LightGBM note on microsoft/LightGBM#5106)
    "OSError: /root/miniforge/bin/../lib/libstdc++.so.6: version 'GLIBCXX_3.4.30' not found "
    "(required by /usr/local/src/LightGBM/python-package/compile/lib_lightgbm.so)",
    # glibc itself too old for a wheel's library (python-exiv2's install notes)
    "OSError: /lib64/libm.so.6: version `GLIBC_2.29' not found (required by "
    "/usr/lib64/python3.6/site-packages/exiv2/libexiv2.so.0.27.4)",
])
def test_import_time_symbol_version_wordings_are_named_at_framework(line):
    found = _ids(line)
    assert ROW in found, line
    assert LOADER not in found, line


@pytest.mark.parametrize("line", [
    # a program that cannot start: the loader's own line stays with the packaging row (the fixture 2180)
    "/opt/rocm_sdk_612/bin/flang2: /home/keilla/miniconda3/lib/libstdc++.so.6: version `GLIBCXX_3.4.30' not found "
    "(required by /opt/rocm_sdk_612/bin/flang2)",
    "/opt/rocm/bin/rocminfo: /usr/lib/x86_64-linux-gnu/libstdc++.so.6: version `GLIBCXX_3.4.20' not found "
    "(required by /opt/rocm/hsa/lib/libhsa-runtime64.so.1)",
    # the import's other loader failures have their own rows
    "ImportError: /usr/local/lib64/python3.13/site-packages/torch/lib/libtorch_hip.so: undefined symbol: "
    "_ZNK2at10TensorBase14const_data_ptrIN3c104HalfELi0EEEPKT_v",
    "OSError: libtorch_cuda.so: cannot open shared object file: No such file or directory",
])
def test_symbol_version_lookalikes_are_not_named(line):
    assert ROW not in _ids(line), line


def test_the_bare_loader_lines_stay_with_the_packaging_row():
    assert LOADER in _ids("/opt/rocm_sdk_612/bin/flang2: /home/keilla/miniconda3/lib/libstdc++.so.6: version "
                          "`GLIBCXX_3.4.30' not found (required by /opt/rocm_sdk_612/bin/flang2)")


# -- detection: /etc/lsb-release and IPython's output prompt --------------------------------------------------------
def test_etc_lsb_release_is_read():
    text = ('DISTRIB_ID=Ubuntu\nDISTRIB_RELEASE=24.10\nDISTRIB_CODENAME=oracular\n'
            'DISTRIB_DESCRIPTION="Ubuntu 24.10"\n')
    assert os_release.looks_like(text) >= 0.6
    rel = os_release.parse(text)
    assert (rel.id, rel.version_id, rel.codename, rel.format) == ("ubuntu", "24.10", "oracular", "lsb-release")


def test_os_release_wins_over_lsb_release_in_one_paste():
    text = ('DISTRIB_ID=Ubuntu\nDISTRIB_RELEASE=22.04\nPRETTY_NAME="Ubuntu 24.04.1 LTS"\nNAME="Ubuntu"\n'
            'VERSION_ID="24.04"\nID=ubuntu\n')
    assert os_release.parse(text).version_id == "24.04"


@pytest.mark.parametrize("line,want", [
    ("Out[2]: '2.2.0.dev20231010+rocm5.7'", "2.2.0.dev20231010+rocm5.7"),   # the fixture's IPython session
    ("'2.4.1+rocm6.1'", "2.4.1+rocm6.1"),                                     # the plain REPL, as before
    ("Out[12]: 'hello 2.4.1+rocm6.1'", None),                                 # not a bare version
])
def test_ipython_output_prompt_torch_version(line, want):
    facts = paste_facts.parse(line + "\n")
    assert [t for t, _h in facts.torch] == ([want] if want else [])
