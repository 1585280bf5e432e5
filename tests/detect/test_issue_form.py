"""Issue-form fields and the single-line facts item 7 of issue 28 added (amd-smi's header, modinfo's
version line, WSL and container signs), on lines shaped like the real pastes in tests/data/real."""
from __future__ import annotations

from rocm_wizard.detect import detect_snapshot
from rocm_wizard.detect.parsers import issue_form, paste_facts

FORM = """### Problem Description

rocminfo fails

### Operating System

Arch Linux (Linux 6.19.12-arch1-1)

### CPU

AMD Ryzen 5 7600X 6-Core Processor

### GPU

AMD Radeon RX 9070 XT

### ROCm Version

ROCm 7.2.2
"""


def test_template_sections_are_read_by_field():
    f = issue_form.parse(FORM)
    assert f.os == ["Arch Linux (Linux 6.19.12-arch1-1)"]
    assert f.gpu == ["AMD Radeon RX 9070 XT"]
    assert f.cpu == ["AMD Ryzen 5 7600X 6-Core Processor"]
    assert f.rocm == ["ROCm 7.2.2"]
    assert issue_form.os_parts(f.os[0]) == ("Arch Linux", "6.19.12-arch1-1", False)


def test_bullets_bold_and_tables():
    f = issue_form.parse("- OS: Ubuntu 24.04\n- **Kernel:** 6.14.0-1014-oem\n| Kernel | 6.17.7-ba29.fc43.x86_64 |\n")
    assert f.os == ["Ubuntu 24.04"]
    assert f.kernel == ["6.14.0-1014-oem", "6.17.7-ba29.fc43.x86_64"]


def test_os_values_people_type():
    assert issue_form.os_parts('NAME="Ubuntu" VERSION="25.10 (Questing Quokka)"')[0] == 'NAME="Ubuntu"\nVERSION="25.10 (Questing Quokka)"'
    assert issue_form.os_parts("Fedora Linux 43 kernel version: 6.19.11-200.fc43.x86_64") == (
        "Fedora Linux 43", "6.19.11-200.fc43.x86_64", False)
    assert issue_form.os_parts("Windows WSL2")[2] is True
    assert issue_form.os_parts("Oracle Linux Server 9.4 (WSL2)")[:1] == ("Oracle Linux Server 9.4",)
    assert issue_form.os_parts("24.04.4 LTS (Noble Numbat)")[0] == "Ubuntu 24.04.4 LTS (Noble Numbat)"


def test_only_plain_names_and_real_versions_are_taken():
    assert issue_form.gpu_name("AMD Radeon RX 9070 XT") == "AMD Radeon RX 9070 XT"
    assert issue_form.gpu_name("2x AMD Radeon (TM) Pro WX 5100 Graphics") is None
    assert issue_form.gpu_name("RX 7900xtx") is None
    assert issue_form.rocm_version("ROCm 6.4.4.60404-129~24.04") == "6.4.4"
    assert issue_form.rocm_version("ROCk module version 6.16.6 is loaded") is None
    assert issue_form.rocm_version("7.1.26233") is None  # torch.version.hip printed as "ROCm version"


def test_fenced_neofetch_lines_are_fields():
    f = issue_form.parse("```bash\nOS: Pop!_OS 24.04 LTS x86_64\nKernel: 6.12.10-76061203-generic\n```\n")
    assert f.os == ["Pop!_OS 24.04 LTS x86_64"] and f.kernel == ["6.12.10-76061203-generic"]


def test_single_line_facts():
    f = paste_facts.parse(
        "| AMD-SMI 26.2.0+021c61fc      amdgpu version: 6.14.0-37 ROCm version: 7.1.1    |\n"
        "$ modinfo amdgpu\nfilename:       /lib/modules/6.8.0-49-generic/updates/dkms/amdgpu.ko.zst\nversion:        6.10.5\n"
        "[    1.130512] kfd kfd: DID 6fdf is missing in supported_devices\n"
        "AMD Radeon RX 9070 XT (radeonsi, gfx1201, ACO, DRM 3.64, 6.17.0-6-generic)\n"
        "Python 3.8.5 (default, Dec 19 2020, 10:38:31) \n")
    assert f.amd_smi_headers == [("26.2.0+021c61fc", "6.14.0-37", "7.1.1")]
    assert f.amdgpu_versions == ["6.10.5"]
    assert [(g.how, g.device_id, g.skipped) for g in f.gpus if g.how == "kfd"] == [("kfd", "6fdf", True)]
    assert [(g.name, g.gfx_target) for g in f.gpus if g.how == "mesa"] == [("AMD Radeon RX 9070 XT", "gfx1201")]
    assert "6.17.0-6-generic" in f.kernel_lines and f.pythons == ["3.8.5"]


def test_a_version_line_of_another_module_is_not_amdgpus():
    f = paste_facts.parse("filename:       /lib/modules/6.8.0/kernel/drivers/net/foo.ko\nversion:        1.2.3\n")
    assert f.amdgpu_versions == []


def test_detection_takes_form_and_header(tmp_path):
    (tmp_path / "issue.txt").write_text(FORM)
    s = detect_snapshot(str(tmp_path))
    assert (s.os.id, s.os.kernel) == ("arch", "6.19.12-arch1-1")
    assert [g.name for g in s.amd_gpus] == ["AMD Radeon RX 9070 XT"]
    assert s.rocm.version == "7.2.2" and "issue form" in s.rocm.sources["version"]


def test_a_driver_version_in_the_rocm_field_is_not_rocm(tmp_path):
    (tmp_path / "issue.txt").write_text("### ROCm Version\n\n6.12.12\n")
    assert detect_snapshot(str(tmp_path)).rocm.version is None


def test_wsl_and_container_signs(tmp_path):
    (tmp_path / "a.txt").write_text("crw-rw-rw- 1 root root 10, 125 Nov 26 10:00 /dev/dxg\n")
    assert detect_snapshot(str(tmp_path)).os.wsl is True
    (tmp_path / "a.txt").write_text("root@3f2a9c1b7d4e:/workspace# cat /proc/1/cgroup\n0::/docker/3f2a9c1b7d4e5f\n")
    assert detect_snapshot(str(tmp_path)).os.container == "docker"


def test_workloads_by_lines_the_programs_print():
    from rocm_wizard.detect.parsers import workloads

    assert workloads.scan("ggml_cuda_init: found 2 ROCm devices (Total VRAM: 31898 MiB):") == [
        ("llama.cpp", "ggml_cuda_init: found 2 ROCm devices (Total VRAM: 31898 MiB):")]
    assert [w for w, _ in workloads.scan('time=2025-07-26T11:15:53.149+03:00 level=INFO source=amd_linux.go:386 '
                                         'msg="amdgpu is supported" gpu=0 gpu_type=gfx1102')] == ["ollama"]
    assert [w for w, _ in workloads.scan("INFO 06-24 07:19:54 [__init__.py:244] Automatically detected platform rocm.")] == ["vllm"]
    assert [w for w, _ in workloads.scan("!!! Exception during processing !!!")] == ["comfyui"]
    # the name in prose is not the program's output
    assert workloads.scan("I tried ollama and vllm but both fail") == []


def test_workloads_reach_the_system(tmp_path):
    (tmp_path / "log.txt").write_text("ggml_cuda_init: found 1 ROCm devices:\n"
                                      "  Device 0: AMD Radeon RX 9070, gfx1201 (0x1201), VMM: no, Wave Size: 32\n")
    s = detect_snapshot(str(tmp_path))
    assert [w.id for w in s.workloads] == ["llama.cpp"] and s.workloads[0].sources["line"] == "paste:log.txt"


# -- hostile input: never raise, and every value comes from the text ----------------------------------
from pathlib import Path as _Path  # noqa: E402

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from rocm_wizard.detect.parsers import workloads as _workloads  # noqa: E402

_REAL = _Path(__file__).resolve().parents[1] / "data" / "real"
_POOL = [l for f in sorted(_REAL.glob("2*/*.txt")) for l in f.read_text(encoding="utf-8", errors="replace").splitlines()[:60]]
_POOL = _POOL or ["### GPU", "AMD Radeon RX 9070 XT", "- OS: Ubuntu 24.04"]
_TEXTS = st.one_of(st.text(max_size=2000),
                   st.lists(st.sampled_from(_POOL), max_size=60).map("\n".join),
                   st.lists(st.one_of(st.sampled_from(_POOL), st.text(max_size=80)), max_size=40).map("\r\n".join))


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_TEXTS)
def test_new_parsers_never_raise_and_quote_the_text(text):
    f = issue_form.parse(text)
    for values in (f.os, f.gpu, f.cpu, f.kernel, f.rocm):
        for v in values:
            assert v.replace("`", "") in text.replace("`", "").replace("\r", "\n") or v in text
            issue_form.os_parts(v), issue_form.gpu_name(v), issue_form.rocm_version(v)
    for wid, line in _workloads.scan(text):
        assert wid in ("llama.cpp", "ollama", "vllm", "comfyui") and line[:40] in text
    facts = paste_facts.parse(text)
    for ver in facts.pythons + facts.amdgpu_versions:
        assert ver in text


def test_guest_signs_are_sighted():
    from rocm_wizard.detect import error_signatures

    text = ("[    0.000000] Hypervisor detected: KVM\n"
            "  Marketing Name:          AMD Instinct MI300X VF\n"
            "| Platform: Linux Guest                                                        |\n"
            "| Platform: Linux Baremetal                                                    |\n")
    hits = [line for sig, line in error_signatures.scan(text) if sig.id == "vm_guest"]
    assert len(hits) == 3 and not any("Baremetal" in h for h in hits)
