"""Held-out set GU (tests/data/real/3020-3024, HELDOUT.md): a theme-neutral sample of the AUTOMATIC1111 web UI's AMD
issues and its AMD forks' (lshqqytiger/stable-diffusion-webui-amdgpu, -amdgpu-forge).  Two rows were added, both read
from the forks' launcher (modules/launch_utils.py prepare_environment, modules/zluda_installer.py):

* gu_webui_zluda_load_missing_export (framework): zluda_installer.load() binds ZLUDA's exports with ctypes; an export the
  installed ZLUDA build lacks raises ctypes' "function 'name' not found" (Windows; '<lib>: undefined symbol: name'
  elsewhere) and the launcher prints "Failed to load ZLUDA: {e}" and falls back to CPU torch (3024).
* gu_webui_zluda_install_http_error (packaging): zluda_installer.install() downloads the pinned ZLUDA release archive
  with urllib.request.urlretrieve; an HTTP error answer is urllib's "HTTP Error 404: Not Found", printed as "Failed to
  install ZLUDA: {e}" (3023); SD.Next's installer logs the same words.

3022 keeps its labelled rocBLAS finding (libraries) but is led by the fork's "ROCm: no agent was found" (the catalogue's
runtime warning): doctor's lowest-layer-first order, left as it is (HELDOUT.md says why)."""
from __future__ import annotations

import pytest

from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids as _ids, lead_layer as _lead_layer


@pytest.mark.parametrize("num,layer", [("3020", "framework"), ("3021", "framework"), ("3023", "packaging"),
                                       ("3024", "framework")])
def test_the_set_gu_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


@pytest.mark.parametrize("num,row,layer", [
    ("3023", "gu_webui_zluda_install_http_error", "packaging"),
    ("3024", "gu_webui_zluda_load_missing_export", "framework"),
])
def test_the_fixed_fixtures_are_named_by_their_row_and_lead(num, row, layer):
    assert_named_and_leads(num, row, layer)


def test_3022_keeps_its_rocblas_finding():
    text = "\n".join(p.read_text(encoding="utf-8") for p in sorted(_fixture("3022").glob("*.txt")))
    assert {"rocblas_could_not_load", "rocblas_tensile_init_failed"} <= _ids(text)


LOAD = "gu_webui_zluda_load_missing_export"


@pytest.mark.parametrize("text", [
    # the fixture's line (lshqqytiger/stable-diffusion-webui-amdgpu-forge#81, 2025-03, commit e0972451)
    "Failed to load ZLUDA: function 'zluda_get_nightly_flag' not found",
    # the loader's other bound export, as ctypes words it on Windows (modules/zluda_installer.py Core.__init__)
    "Failed to load ZLUDA: function 'zluda_get_hip_object' not found",
    # ctypes' dlerror() text on Linux for the same missing export (CPython _ctypes.c), under a launcher prefix
    "Failed to load ZLUDA: /home/u/webui/.zluda/libcuda.so: undefined symbol: zluda_get_nightly_flag",
])
def test_the_zluda_loader_missing_export_row(text):
    assert LOAD in _ids(text)


@pytest.mark.parametrize("text", [
    # another load failure of the same launcher: a HIP SDK DLL not found (lshqqytiger/stable-diffusion-webui-amdgpu#552)
    "Failed to load ZLUDA: Could not find module 'C:\\Program Files\\AMD\\ROCm\\6.1\\bin\\rocblas.dll' (or one of its "
    "dependencies). Try using the full path with constructor syntax.",
    # the launcher's older bug (CS1o/Stable-Diffusion-Info#5)
    "Failed to load ZLUDA: list index out of range",
    # ctypes' words without the launcher's line
    "AttributeError: function 'zluda_get_nightly_flag' not found",
])
def test_other_zluda_load_failures_are_not_the_missing_export_row(text):
    assert LOAD not in _ids(text)


HTTP = "gu_webui_zluda_install_http_error"


@pytest.mark.parametrize("text", [
    # the fixture's line, bolded by the reporter (lshqqytiger/stable-diffusion-webui-amdgpu#656, 2026-04-15)
    "**Failed to install ZLUDA: HTTP Error 404: Not Found**",
    # SD.Next's installer logging the same words (vladmandic/sdnext#3482, 2024-10; #4495, 2025-12)
    "11:45:25-194150 WARNING  Failed to install ZLUDA: HTTP Error 404: Not Found",
    "20:18:52-923305 WARNING  Failed to install ZLUDA: HTTP Error 404: Not Found",
    # the amdgpu fork's issue title (lshqqytiger/stable-diffusion-webui-amdgpu#660, 2026-06)
    "[Bug]: Failed to install ZLUDA: HTTP Error 404: Not Found",
    # another HTTP status from the same urlretrieve (urllib's 'HTTP Error %s: %s')
    "Failed to install ZLUDA: HTTP Error 403: rate limit exceeded",
])
def test_the_zluda_installer_http_error_row(text):
    assert HTTP in _ids(text)


@pytest.mark.parametrize("text", [
    # the installer failing on a file, not on the download (lshqqytiger/stable-diffusion-webui-amdgpu#473)
    "Failed to install ZLUDA: [Errno 2] No such file or directory: '/home/u/stable-diffusion-webui-amdgpu/.zluda/"
    "cublas.dll'",
    # a certificate failure before any HTTP answer (lshqqytiger/stable-diffusion-webui-amdgpu#475)
    "Failed to install ZLUDA: <urlopen error [SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: certificate "
    "has expired (_ssl.c:997)>",
    # an HTTP error of another download
    "urllib.error.HTTPError: HTTP Error 404: Not Found",
])
def test_other_install_failures_are_not_the_http_error_row(text):
    assert HTTP not in _ids(text)
