"""Held-out set AF (tests/data/real/950-960, HELDOUT.md): installing ROCm in 2026 and failing.
Each miss's cause fixed from the program that prints the line: TheRock's rocm_sdk package (its devel expansion in
rocm_sdk/_devel.py, its shared-library load test in rocm_sdk/tests/libraries_test.py); tested on the fixtures and on
other wordings of the same source, with near-misses that must not match."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import assert_named_and_leads, ids

DEVEL = "s10af_rocm_sdk_devel_expansion_failed"
LOADTEST = "s10af_rocm_sdk_library_load_test_failed"


# -- rocm-sdk's devel expansion (954, 955) ----------------------------------------------------------------------
@pytest.mark.parametrize("num", ["954", "955"])
def test_devel_expansion_fixtures_are_named_and_lead_at_packaging(num):
    assert_named_and_leads(num, DEVEL, "packaging")


@pytest.mark.parametrize("line", [
    # Windows venv, rocm-sdk init (954's frame, the index cut the exception after it)
    '  File "J:\\ComfyUI\\bnb\\venv\\Lib\\site-packages\\rocm_sdk\\_devel.py", line 154, in _expand_devel_contents',
    # Linux venv, rocm-sdk path --root (955's frames)
    '  File "/home/u/venv/lib64/python3.12/site-packages/rocm_sdk/_devel.py", line 63, in get_devel_root',
    # the tarball expansion itself and the device-wheel links of a multi-arch install
    '  File "/opt/venv/lib/python3.12/site-packages/rocm_sdk/_devel.py", line 402, in _lock_and_expand',
    '  File "C:\\venv\\Lib\\site-packages\\rocm_sdk\\_devel.py", line 377, in _reconcile_device_links',
])
def test_devel_expansion_frames_are_named(line):
    assert DEVEL in ids(line), line


def test_other_rocm_sdk_frames_and_other_packages_devel_files_are_not_it():
    assert error_signatures.failure_layer(DEVEL) == "packaging"
    # rocm_sdk's library preloading (torch's import) is another step, with its own rows
    assert DEVEL not in ids('  File "/v/site-packages/rocm_sdk/__init__.py", line 79, in preload_libraries')
    # a helper of that module that is no part of the expansion
    assert DEVEL not in ids('  File "/v/site-packages/rocm_sdk/_devel.py", line 90, in _get_package_path')
    # another project's _devel.py with a function of the same name
    assert DEVEL not in ids('  File "/src/mypkg/_devel.py", line 12, in get_devel_root')


# -- rocm-sdk test's shared-library load test (957 and other wordings) --------------------------------------------
def test_the_load_test_row_names_957_and_the_system_library_row_still_leads_there():
    assert_named_and_leads("957", LOADTEST, "packaging")
    assert_named_and_leads("957", "system_library_missing", "packaging")


@pytest.mark.parametrize("text", [
    # ROCm/TheRock PR 3222 (the origami revert): the test's subprocess traceback
    'Traceback (most recent call last):\n  File "<string>", line 1, in <module>\n'
    '    import ctypes; import sys; ctypes.CDLL(sys.argv[1])\n'
    '  File "/__w/_tool/Python/3.12.12/x64/lib/python3.12/ctypes/__init__.py", line 379, in __init__\n'
    '    self._handle = _dlopen(self._name, mode)\n'
    'OSError: liborigami.so.1: cannot open shared object file: No such file or directory\n',
    # the runner's subTest line first, the OSError of the next library after it
    "testSharedLibrariesLoad (rocm_sdk.tests.devel_test.ROCmDevelTest.testSharedLibrariesLoad) [Check shared library "
    "loads] (so_path=PosixPath('/src/.venv/lib64/python3.11/site-packages/_rocm_sdk_devel/lib/librocprofiler-sdk-attach"
    ".so.1')) ... ERROR\nTraceback (most recent call last):\n  File \"<string>\", line 1, in <module>\n"
    "OSError: libatomic.so.1: cannot open shared object file: No such file or directory\n",
    # CI log with timestamps (ROCm/TheRock#2704's form)
    "2025-12-24T11:08:37.0059076Z     import ctypes; import sys; ctypes.CDLL(sys.argv[1])\n"
    "2025-12-24T11:08:37.0062753Z     return _dlopen(name, mode)\n"
    "2025-12-24T11:08:37.0063383Z OSError: libhsa-amd-aqlprofile64.so.1: cannot open shared object file: No such file\n",
])
def test_load_test_failures_are_named(text):
    assert LOADTEST in ids(text)


def test_a_program_missing_a_library_outside_rocm_sdk_test_is_not_the_load_test():
    assert error_signatures.failure_layer(LOADTEST) == "packaging"
    # import torch missing a library of the wheels: torch's own import, not the SDK's self-test
    torch = ('Traceback (most recent call last):\n  File "<string>", line 1, in <module>\n'
             '  File "/v/site-packages/torch/__init__.py", line 443, in <module>\n'
             '    from torch._C import *  # noqa: F403\n'
             'ImportError: libMIOpen.so.1: cannot open shared object file: No such file or directory\n')
    assert LOADTEST not in ids(torch)
    # a passing rocm-sdk test has no loader error
    ok = ("testSharedLibrariesLoad (rocm_sdk.tests.libraries_test.ROCmLibrariesTest.testSharedLibrariesLoad) ... ok\n"
          "testConsoleScripts (rocm_sdk.tests.core_test.ROCmCoreTest.testConsoleScripts) ... ok\n")
    assert LOADTEST not in ids(ok)


def test_959_the_load_tests_cut_traceback_is_named_and_leads_at_packaging():
    # the index cut the OSError line; the test's own subprocess line in the traceback is the load failing
    assert_named_and_leads("959", LOADTEST, "packaging")


def test_another_programs_ctypes_load_is_not_the_load_test():
    other = ('  File "/app/llama_cpp/llama_cpp.py", line 69, in _load_shared_library\n'
             '    return ctypes.CDLL(str(_lib_path), **cdll_args)\n'
             'OSError: libllama.so: cannot open shared object file: No such file or directory\n')
    assert LOADTEST not in ids(other)
    # the same command with another argument is no part of rocm-sdk's test
    assert LOADTEST not in ids("    import ctypes; import sys; ctypes.CDLL(sys.argv[2])")
