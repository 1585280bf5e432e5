"""The general causes behind issue 28's held-out misses (tests/data/real/HELDOUT.md), each tested on
its own input: a known failure text whose rule needs facts the paste lacks, an issue title that looks
like a bare command, PyTorch's "is_available() False", a failure line whose layer only its block
names, rocm-smi's "not supported" answers, product names without PCI ids and an override of another
instruction-set group, overrides written in docker/compose/Python/PowerShell/prose forms."""
from __future__ import annotations


import pytest

from rocm_wizard.catalog import gpus as gpu_catalog
from rocm_wizard.catalog import overrides
from rocm_wizard.detect import detect_snapshot, error_signatures, failure_lines
from rocm_wizard.detect.recognize import split
from rwtest.heldout import doctor_files as _doctor, problems as _problems


# -- a known failure text no rule reported ------------------------------------------------------
def test_rock_module_not_loaded_in_an_issue_form_is_a_kernel_failure(tmp_path):
    # rocminfo's own line typed into ROCm's form (fixture 315's shape); no lsmod, no GPU list
    diag = _doctor(tmp_path, {"issue.txt": "### Problem Description\n\nrocminfo show\n"
                                           "ROCk module is NOT loaded, possibly no GPU devices\n\n### GPU\n\nAMD Radeon RX 7900 XTX\n"})
    assert ("known-failure", "kernel") in _problems(diag)


def test_kfd_permission_without_groups_is_reported_at_the_runtime(tmp_path):
    # a container's rocminfo (no `id`, no `ls -l /dev/kfd`: the groups rule cannot decide)
    diag = _doctor(tmp_path, {"term.txt": "docker exec -it ollama rocminfo\nROCk module version 6.8.5 is loaded\n"
                                          "Unable to open /dev/kfd read-write: Permission denied\n"})
    assert ("known-failure", "runtime") in _problems(diag)


def test_a_line_another_finding_quotes_is_not_reported_twice(tmp_path):
    # rocminfo's ENOMEM: the HSA rule quotes the line; known-failure does not repeat it
    diag = _doctor(tmp_path, {"term.txt": "$ rocminfo\nROCk module is loaded\n"
                                          "Unable to open /dev/kfd read-write: Cannot allocate memory\n"
                                          "Failed to get user name to check for video group membership\n"})
    quoting = [f.id for f in diag.findings if any("Cannot allocate memory" in e for e in f.evidence)]
    assert len(quoting) == 1, quoting


def test_information_rows_are_not_failures():
    assert error_signatures.failure_layer("wsl_runtime") is None
    assert error_signatures.failure_layer("vm_guest") is None
    assert error_signatures.failure_layer("kfd_permission") == "runtime"
    assert error_signatures.failure_layer("amdgpu_not_loaded") == "kernel"


# -- what the recogniser must not drop ----------------------------------------------------------
def test_a_title_that_starts_with_a_tool_name_is_text():
    title = "rocminfo fails with HSA_STATUS_ERROR: A generic error has occurred on gfx1152\n"
    assert split(title) == [("part 1", None, title)]
    # a real bare command with output still labels its output
    assert split("lsmod | grep amdgpu\n\nrocminfo\nROCk module is loaded\n")[-1][:2] == ("rocminfo", "rocminfo")


def test_the_title_file_is_diagnosed(tmp_path):
    diag = _doctor(tmp_path, {"title.txt": "rocminfo fails with HSA_STATUS_ERROR: A generic error has occurred\n"})
    assert any(layer == "runtime" for _id, layer in _problems(diag)), _problems(diag)


# -- PyTorch says there is no GPU ---------------------------------------------------------------
@pytest.mark.parametrize("text", [
    '$ python -c "import torch; print(torch.cuda.is_available())"\nFalse\n',
    ">>> torch.cuda.is_available()\nFalse\n",
    "Is CUDA available: False\n",
])
def test_torch_without_a_gpu_is_a_failure(text):
    assert "torch_gpu_unavailable" in [s.id for s, _l in error_signatures.scan(text)]


@pytest.mark.parametrize("text", [
    '$ python -c "import torch; print(torch.cuda.is_available())"\nTrue\n',
    "Is CUDA available: True\n",
])
def test_torch_with_a_gpu_is_not(text):
    assert "torch_gpu_unavailable" not in [s.id for s, _l in error_signatures.scan(text)]


# -- layers -------------------------------------------------------------------------------------
def test_a_failure_line_takes_the_layer_its_block_names():
    text = ("Setting up amdgpu-dkms (1:6.12.12.60401-2164967.24.04) ...\n"
            "readelf: Error: Not an ELF file - it has the wrong magic bytes at the start\n")
    rows = failure_lines.scan([(text, None, "paste")])
    assert rows and rows[0][1] == "packaging", rows


def test_rocm_smi_not_supported_is_no_failure():
    line = "GPU[0]\t\t: get_firmware_version_SOS, Not supported on the given system"
    assert failure_lines.classify(line, "rocm-smi") is None
    # a real rocm-smi error still is one
    assert failure_lines.classify("ERROR: GPU[1]   : Cannot read Link Weight: failed to read", "rocm-smi") == "shown"


def test_apt_package_phrases_are_packaging():
    assert failure_lines.layer_of("E: Package 'rocm-hip-sdk' has no installation candidate") == "packaging"
    assert failure_lines.layer_of("I get that the package amdrocm7.14-gfx1200 does not exists.") == "packaging"


# -- product names, overrides -------------------------------------------------------------------
@pytest.mark.parametrize("name,gfx", [
    ("AMD Instinct MI50", "gfx906"), ("AMD MI50", "gfx906"), ("AMD Radeon RX 6800M", "gfx1031"),
    ("Radeon 8060S Graphics", "gfx1151"), ("AMD Radeon AI PRO R9700", "gfx1201"), ("RX 7900 XTX", "gfx1100"),
    ("Navi 22 [Radeon RX 6700/6700 XT / 6800M]", "gfx1031"), ("AMD 9070xt", "gfx1201"), ("RX 6500M", "gfx1034"),
])
def test_product_names_give_the_chip_target(name, gfx):
    assert gpu_catalog.gfx_of_product(name) == gfx


@pytest.mark.parametrize("name", ["AMD Radeon Graphics", "Radeon", "RX", "Intel Arc B580", "6"])
def test_unknown_or_ambiguous_names_give_none(name):
    assert gpu_catalog.gfx_of_product(name) is None


def test_isa_groups_follow_llvm_generic_processors():
    assert overrides.isa_group("gfx1032") == overrides.isa_group("gfx1030") == "gfx10-3-generic"
    assert overrides.isa_group("gfx1151") == "gfx11-generic" != overrides.isa_group("gfx1201")
    assert overrides.isa_group("gfx906") != overrides.isa_group("gfx1030")
    assert overrides.isa_group("gfx90a") == "gfx90a"


def test_an_override_of_another_isa_on_a_gpu_named_in_a_title(tmp_path):
    diag = _doctor(tmp_path, {"title.txt": "Runner crashes checking AMD MI50 GPU\n",
                              "issue.txt": "Flags:\nHSA_OVERRIDE_GFX_VERSION=10.3.0\n"})
    f = diag.finding("hsa-override-other-isa")
    assert f is not None and f.severity == "error" and "gfx906" in f.evidence[0], diag.ids()


def test_an_override_of_the_same_group_is_not_that_error(tmp_path):
    diag = _doctor(tmp_path, {"title.txt": "RX 6600 XT works with the override\n",
                              "issue.txt": "export HSA_OVERRIDE_GFX_VERSION=10.3.0\n"})
    assert diag.finding("hsa-override-other-isa") is None


@pytest.mark.parametrize("line,value", [
    ("docker run -it -e HSA_OVERRIDE_GFX_VERSION=10.3.0 --device=/dev/kfd rocm/pytorch", "10.3.0"),
    ("ENV HSA_OVERRIDE_GFX_VERSION=11.0.0", "11.0.0"),
    ('      HSA_OVERRIDE_GFX_VERSION: "10.3.0"', "10.3.0"),
    ('os.environ["HSA_OVERRIDE_GFX_VERSION"] = "10.3.0"', "10.3.0"),
    ('$Env:HSA_OVERRIDE_GFX_VERSION = "10.1.0"', "10.1.0"),
    ("When running comfyui with HSA_OVERRIDE_GFX_VERSION=12.0.1 (which is wrong) the kernel crashes", "12.0.1"),
])
def test_overrides_are_read_in_every_form(tmp_path, line, value):
    (tmp_path / "paste.txt").write_text(line + "\n", encoding="utf-8")
    assert detect_snapshot(str(tmp_path)).access.env.get("HSA_OVERRIDE_GFX_VERSION") == value


def test_a_version_string_is_no_override(tmp_path):
    (tmp_path / "paste.txt").write_text("MY_HSA_OVERRIDE_GFX_VERSION=10.3.0.1\n", encoding="utf-8")
    assert "HSA_OVERRIDE_GFX_VERSION" not in detect_snapshot(str(tmp_path)).access.env


def test_pytorch_oom_capacity_wordings_tell_a_small_carve_out():
    for line in ("HIP out of memory. Tried to allocate 72.00 MiB. GPU 0 has a total capacty of 512.00 MiB of which",
                 "HIP out of memory. Tried to allocate 2.00 MiB (GPU 0; 512.00 MiB total capacity; 0 bytes free)"):
        assert "small_vram" in [s.id for s, _l in error_signatures.scan(line)], line
    big = "GPU 0 has a total capacity of 15.92 GiB of which 13.60 GiB is free."
    assert "small_vram" not in [s.id for s, _l in error_signatures.scan(big)]


def test_rocminfo_interrupted_after_its_driver_line_is_a_hang():
    hung = "/opt/rocm/bin/rocminfo\nROCk module is loaded\n^C\n"
    assert "rocminfo_killed" in [s.id for s, _l in error_signatures.scan(hung)]
    done = "ROCk module is loaded\n=====================\nHSA System Attributes\n"
    assert "rocminfo_killed" not in [s.id for s, _l in error_signatures.scan(done)]


# -- set B's causes ----------------------------------------------------------------------------
@pytest.mark.parametrize("line,layer", [
    ("ROCm error: device kernel image is invalid", "hip"),
    ("zsh: command not found: rocminfo", "packaging"),
    ("bash: amd-smi: command not found", "packaging"),
    ("      And because torch>=2.13 has no wheels with a matching platform tag (e.g., `manylinux_2_39_x86_64`) and you "
     "require torch, we can conclude that your requirements are unsatisfiable.", "packaging"),
    ("rocminfo got kernel panic", "kernel"),
    ("[    5.692467] [drm:amdgpu_ras_eeprom_init [amdgpu]] *ERROR* Failed to read EEPROM table header, res:-5", "firmware"),
])
def test_layers_of_messages_the_stack_prints(line, layer):
    assert failure_lines.layer_of(line) == layer


def test_a_message_quoted_in_a_sentence_is_shown():
    line = ('When launching the model I get a "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 98988.40 MiB on '
            'device 0: cudaMalloc failed: out of memory" error')
    assert failure_lines.classify(line) == "shown"
    assert failure_lines.classify("I think the install failed somehow, any idea?") != "shown"


def test_a_traceback_cut_before_its_exception_is_a_failure():
    text = ('  File "D:\\\\app\\\\triton\\\\runtime\\\\build.py", line 122, in _build\n'
            "    subprocess.check_call(cc_cmd)\n"
            '  File "subprocess.py", line 415, in check_call\n')
    rows = failure_lines.scan([(text, None, "paste")])
    assert rows and rows[0][1] == "framework" and "subprocess.py" in rows[0][0], rows
    whole = text + "subprocess.CalledProcessError: Command 'cc' returned non-zero exit status 1.\n"
    assert not any("cut before" in r[0] for r in failure_lines.scan([(whole, None, "paste")]))


# -- set C's causes ----------------------------------------------------------------------------
@pytest.mark.parametrize("line", [
    "  libamdhip64.so: NOT FOUND",
    "\tlibamdhip64.so.6 => not found",
])
def test_a_shared_library_the_system_lacks_is_packaging(line):
    assert failure_lines.layer_of(line) == "packaging"


def test_cmake_errors_are_shown_and_a_missing_package_config_is_packaging():
    line = "CMake Error at cmake/public/LoadHIP.cmake:37 (find_package):"
    assert failure_lines.classify(line) == "shown"
    assert failure_lines.layer_of(line) == "packaging"
    # the import-time form stays the framework's (the first layer row)
    imp = "ImportError: libamdhip64.so: cannot open shared object file: No such file or directory"
    assert failure_lines.layer_of(imp) == "framework"


# -- set D's causes ----------------------------------------------------------------------------
def test_a_missing_optional_firmware_alone_is_a_firmware_warning(tmp_path):
    diag = _doctor(tmp_path, {"dmesg.txt": (
        "[    3.353884] amdgpu 0000:19:00.0: Direct firmware load for amdgpu/vega20_ta.bin failed with error -2\n"
        "[    3.353886] amdgpu 0000:19:00.0: psp v11.0: Failed to load firmware \"amdgpu/vega20_ta.bin\"\n")})
    f = diag.finding("amdgpu-init-failed")
    assert f is not None and f.layer == "firmware" and f.severity == "warning", (f and (f.layer, f.severity))


def test_firmware_missing_with_an_init_failure_stays_critical_at_the_firmware_layer(tmp_path):
    # (s20: the init failure whose named cause is a firmware file sits at firmware, as fixture 204 is labelled)
    diag = _doctor(tmp_path, {"dmesg.txt": (
        "[    4.825127] amdgpu 0000:01:00.0: Direct firmware load for amdgpu/polaris12_mc.bin failed with error -2\n"
        "[    4.826030] amdgpu 0000:01:00.0: amdgpu: Fatal error during GPU init\n")})
    f = diag.finding("amdgpu-init-failed")
    assert f is not None and f.layer == "firmware" and f.severity not in ("warning", "info")


@pytest.mark.parametrize("cause", [
    # linux-libre's refusal (include/linux/firmware.h, fixture 2411's wording) and the loader's own line
    "[    2.100000] amdgpu 0000:03:00.0: Missing Free firmware (non-Free firmware loading is disabled)\n",
    "[    2.100000] amdgpu 0000:03:00.0: firmware: failed to load amdgpu/gc_11_0_0_mes_2.bin (-2)\n"
    "[    2.100001] amdgpu 0000:03:00.0: Direct firmware load for amdgpu/gc_11_0_0_mes_2.bin failed with error -2\n",
])
def test_an_init_failure_after_a_firmware_file_was_not_loaded_sits_at_firmware(tmp_path, cause):
    diag = _doctor(tmp_path, {"dmesg.txt": cause + "[    2.200000] amdgpu 0000:03:00.0: amdgpu: Fatal error during GPU init\n"})
    f = diag.finding("amdgpu-init-failed")
    assert f is not None and f.layer == "firmware", (f and f.layer)


@pytest.mark.parametrize("line", [
    "Repository 'AMDGPU 6.1.1 repository' is invalid.",
    "[amdgpu|https://repo.radeon.com/amdgpu/6.1.1/sle/20240524/main/x86_64] Valid metadata not found at specified URL",
    "   Error code: Curl error 56",
])
def test_a_repository_that_cannot_be_read_is_packaging(line):
    assert failure_lines.layer_of(line) == "packaging"


def test_is_available_false_after_another_libraries_true():
    text = ("$ python -c 'import cupy; print(cupy.cuda.is_available()); import torch; "
            "print(torch.cuda.is_available())'\nTrue\nFalse\n")
    assert "torch_gpu_unavailable" in [s.id for s, _l in error_signatures.scan(text)]
    assert error_signatures.failure_layer("torch_gpu_unavailable") == "runtime"


def _unbounded(tree) -> bool:
    try:
        from re import _constants as sre_c, _parser as sre_parse  # type: ignore[attr-defined]
    except ImportError:  # Python 3.10
        import sre_constants as sre_c  # type: ignore[no-redef]
        import sre_parse  # type: ignore[no-redef]
    for op, av in tree:
        if op in (sre_c.MAX_REPEAT, sre_c.MIN_REPEAT):
            if av[1] == sre_c.MAXREPEAT or _unbounded(av[2]):
                return True
        elif op == sre_c.SUBPATTERN and _unbounded(av[-1]):
            return True
        elif op == sre_c.BRANCH and any(_unbounded(b) for b in av[1]):
            return True
    return False


def test_whole_text_signatures_cannot_scan_a_long_line_once_per_match():
    # a whole-text pattern is searched at every position of a paste: an unbounded repeat in it makes
    # one long line quadratic ("is_available()" or "ROCk module is loaded" repeated on one line);
    # only a pattern anchored at the start (\A: tried once) may use one
    try:
        from re import _parser as sre_parse  # type: ignore[attr-defined]
    except ImportError:  # Python 3.10
        import sre_parse  # type: ignore[no-redef]
    for sig in error_signatures.SIGNATURES:
        if sig.whole and not sig.pattern.startswith(r"\A"):
            assert not _unbounded(sre_parse.parse(sig.pattern)), sig.id


# -- set E's causes ----------------------------------------------------------------------------
@pytest.mark.parametrize("line", [
    "-- Performing Test CMAKE_HAVE_LIBC_PTHREAD - Failed",
    "-- Looking for pthread_create in pthreads - not found",
])
def test_cmake_probe_answers_are_no_failure(line):
    assert failure_lines.classify(line) is None


def test_cmake_find_package_and_bracketed_fatal_lines_are_shown():
    line = '  Could not find a configuration file for package "HIP" that is compatible'
    assert failure_lines.classify(line) == "shown" and failure_lines.layer_of(line) == "packaging"
    assert failure_lines.classify("[FATAL ERROR]: HIP failure: 'invalid device pointer'") == "shown"


def test_a_torch_built_without_hip_is_the_frameworks():
    line = "RuntimeError: cannot initialize HIP without the ATen_hip library"
    assert failure_lines.layer_of(line) == "framework"
