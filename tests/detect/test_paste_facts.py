"""Single-line facts anywhere in a paste (parsers/paste_facts.py): each kind on lines copied from
the real pastes in tests/data/real, the GPU-by-name lookup, and property tests (never raises,
whatever the text; a megabyte of the worst lines for its patterns goes through)."""
from __future__ import annotations

import time
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rocm_wizard.detect.parsers import paste_facts as pf
from rocm_wizard.detect.probes.gpus import names_to_gfx

REAL = Path(__file__).resolve().parents[1] / "data" / "real"


def gpus(text):
    return [(g.how, g.bdf, g.device_id, g.name, g.gfx_target, g.skipped) for g in pf.parse(text).gpus]


def test_kernel_log_lines_name_the_gpu():
    text = ("[    9.291189] amdgpu 0000:83:00.0: enabling device (0000 -> 0002)\n"
            "[    9.291714] amdgpu 0000:83:00.0: amdgpu: initializing kernel modesetting (ALDEBARAN 0x1002:0x740F "
            "0x1002:0x0C34 0x02).\n"
            "[13908.084587] pcieport 0000:08:00.0: Unable to change power state from D3hot to D0, device inaccessible\n")
    assert gpus(text) == [("dmesg", "0000:83:00.0", "740f", None, None, False)]
    old = "[    5.480922] [drm] initializing kernel modesetting (POLARIS10 0x1002:0x67DF 0x1DA2:0xE366 0xE7).\n"
    assert gpus(old) == [("dmesg", None, "67df", None, None, False)]


def test_kfd_added_and_skipped_devices_even_quoted_in_prose():
    text = ('So, I\'m getting a "kfd kfd: skipped device 1002:67ef, PCI rejects atomics"\n'
            "[    1.577002] kfd kfd: added device 1002:67df\n")
    assert gpus(text) == [("kfd", None, "67ef", None, None, True), ("kfd", None, "67df", None, None, False)]


def test_torch_prints_and_device_properties():
    text = ('$ print(torch.__version__, "hip:", torch.version.hip)\n2.11.0+rocm7.2 hip: 7.2.26015\n'
            "AMD Instinct MI300X _CudaDeviceProperties(name='AMD Instinct MI300X', major=9, minor=4, "
            "gcnArchName='gfx942:sramecc+:xnack-', total_memory=196592MB, multi_processor_count=304\n"
            ">>> torch.__version__\n'2.4.1+rocm6.1'\n")
    facts = pf.parse(text)
    assert facts.torch == [("2.11.0+rocm7.2", "7.2.26015"), ("2.4.1+rocm6.1", None)]
    assert [(g.name, g.gfx_target, g.isa_features) for g in facts.gpus] == [
        ("AMD Instinct MI300X", "gfx942", ":sramecc+:xnack-")]


def test_llama_cpp_comfyui_and_issue_template_lines():
    text = ("  Device 0: AMD Radeon Graphics, gfx1151 (0x1151), VMM: no, Wave Size: 32\n"
            "pytorch version: 2.10.0.dev20251206+rocm7.1\nAMD arch: gfx1100 \n"
            "GPU:\n  Name:                    gfx1151\n  Marketing Name:          AMD Radeon Graphics\n"
            "  Name:                    aie2p\n  Marketing Name:          RyzenAI-npu5\n")
    facts = pf.parse(text)
    assert [(g.how, g.name, g.gfx_target) for g in facts.gpus] == [
        ("ggml", "AMD Radeon Graphics", "gfx1151"), ("comfyui", None, "gfx1100"),
        ("rocminfo-names", "AMD Radeon Graphics", "gfx1151")]
    assert facts.torch == [("2.10.0.dev20251206+rocm7.1", None)]


def test_smi_table_and_csv_rows():
    table = "| 0000:c1:00.0 ...adeon 890M Graphics | N/A      59 °C   0                17 W |\n"
    assert gpus(table) == [("amd-smi", "0000:c1:00.0", None, "...adeon 890M Graphics", None, False)]
    csv = ("device,Card series,Card model,Card vendor,Card SKU\n"
           "card0,Arcturus GL-XL [AMD Instinct MI100],0x0c34,Advanced Micro Devices Inc. [AMD/ATI],D34316\n"
           "card1,Arcturus GL-XL [AMD Instinct MI100],0x0c34,Advanced Micro Devices Inc. [AMD/ATI],D34316\n")
    facts = pf.parse(csv)
    assert [(g.name, g.chip, g.card) for g in facts.gpus] == [("AMD Instinct MI100", "Arcturus GL-XL", 0),
                                                              ("AMD Instinct MI100", "Arcturus GL-XL", 1)]


def test_kernel_and_distribution_lines():
    text = ("`Linux host 4.15.0-45-generic #48-Ubuntu SMP Tue Jan 29 16:28:13 UTC 2019 x86_64 x86_64 x86_64 GNU/Linux`\n"
            "   Linux 3.10.0-1160.31.1.el7.x86_64 #1 SMP Thu Jun 10 13:32:12 UTC 2021 x86_64\n"
            "Linux kernel version : 5.15.0-101-generic\n"
            "Ubuntu 24.04.3 LTS (Noble Numbat)\n"
            "I run Ubuntu 22.04 at home\n")
    facts = pf.parse(text)
    assert facts.kernels == ["4.15.0-45-generic", "3.10.0-1160.31.1.el7.x86_64"]
    assert facts.kernel_lines == ["5.15.0-101-generic"]
    assert facts.distros == ["Ubuntu 24.04.3 LTS (Noble Numbat)"]


def test_names_to_gfx_unique_cut_and_ambiguous():
    assert names_to_gfx("AMD Instinct MI100")[0] == ["gfx908"]
    assert names_to_gfx("...adeon 890M Graphics")[0] == ["gfx1150"]
    assert names_to_gfx("...adeon 860M Graphics")[0] == ["gfx1152"]
    assert len(names_to_gfx("AMD Radeon Graphics")[0]) > 1  # generic: several targets, no guess
    assert names_to_gfx("adeon 890M Graphics")[0] == []  # not cut: must match whole


def test_real_pastes_parse():
    texts = [p.read_text(encoding="utf-8", errors="replace") for p in sorted(REAL.glob("*/*.txt"))]
    assert len(texts) >= 40
    assert sum(1 for t in texts if pf.parse(t).ok) >= 20


LINES = st.sampled_from([
    "amdgpu 0000:83:00.0: ", "initializing kernel modesetting (", "0x1002:0x740F ", "kfd kfd: skipped device 1002:",
    "gcnArchName='gfx942", ":sramecc+", "_CudaDeviceProperties(name='", "  Device 0: ", ", gfx1151 (0x1151)",
    "AMD arch: gfx1100", "Device: cuda:0 ", " : native", "2.4.1+rocm6.1", " hip: 7.2.26015", "'", "Linux host ",
    "6.8.0-45-generic #", "Kernel version: ", "Ubuntu 24.04 LTS (", "Name:  gfx1100", "Marketing Name: ", "| 0000:c1:00.0 ",
    "card0,", "[AMD Instinct MI100],", "`", "\r", "\n", "\t", "\x00", "\ufffd", "...",
])


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(LINES, st.text(max_size=30)), max_size=40).map("".join))
def test_parse_never_raises_and_returns_its_types(text):
    facts = pf.parse(text)
    for g in facts.gpus:
        assert g.gfx_target is None or g.gfx_target.startswith("gfx")
        assert g.device_id is None or len(g.device_id) == 4
    assert all(isinstance(v, str) for v, _h in facts.torch)


def test_a_megabyte_of_near_misses_goes_through():
    # each line starts like a fact and goes wrong at the end: what makes a backtracking pattern slow
    bad = ["amdgpu 0000:83:00.0" + "0" * 200, "initializing kernel modesetting (" + "A" * 300,
           "Linux " + "h" * 100 + " 6.8.0-" + "1" * 300, "2.4.1+" + "rocm" * 100 + " hip: x",
           "| 0000:c1:00.0 " + "x" * 1500, "card0," + "," * 500, "Ubuntu " + "1." * 200, "  Device 0: " + "a" * 118 + "," * 300]
    text = "\n".join(bad * (1024 * 1024 // sum(len(b) + 1 for b in bad) + 1))
    assert len(text) >= 1024 * 1024
    start = time.perf_counter()
    facts = pf.parse(text)
    print("paste_facts: %.2f MB of near misses in %.3f s" % (len(text) / 1e6, time.perf_counter() - start))
    assert not facts.torch and not facts.kernels


def test_clinfo_gpu_devices_both_formats():
    amd_app = ("  Device Type:\t\t\t\t\t CL_DEVICE_TYPE_GPU\n  Vendor ID:\t\t\t\t\t 1002h\n"
               "  Board name:\t\t\t\t\t Navi 10 [Radeon RX 5600 OEM/5600 XT / 5700/5700 XT]\n"
               "  Device Topology:\t\t\t\t PCI[ B#3, D#0, F#0 ]\n  Max compute units:\t\t\t\t 18\n"
               "  Name:\t\t\t\t\t\t gfx1010:xnack-\n")
    assert gpus(amd_app) == [("clinfo", "0000:03:00.0", None, "Navi 10 [Radeon RX 5600 OEM/5600 XT / 5700/5700 XT]",
                              "gfx1010", False)]
    ocl_icd = ("  Device Name                                     gfx1030\n"
               "  Device Type                                     GPU\n"
               "  Device Board Name (AMD)                         AMD Radeon RX 6800 XT\n"
               "  Device Topology (AMD)                           PCI-E, 0000:0b:00.0\n")
    # ocl-icd prints the name before the type: the board name and topology are kept
    assert [(g.name, g.bdf) for g in pf.parse(ocl_icd).gpus] == [("AMD Radeon RX 6800 XT", "0000:0b:00.0")]


def test_pci_ids_names_map_through_the_chip_table():
    assert names_to_gfx("Navi 21 [Radeon RX 6800/6800 XT / 6900 XT]")[0] == ["gfx1030"]
    assert names_to_gfx("Ellesmere [Radeon RX 470/480/570/570X/580/580X]")[0] == ["gfx803"]
    assert names_to_gfx("Arcturus GL-XL [AMD Instinct MI100]")[0] == ["gfx908"]
    assert names_to_gfx("Oland XT [Radeon HD 8670 / R5 340X OEM / R7 250/350/350X OEM]")[0] == []  # GCN 1: unknown


def test_rocm_smi_json_even_when_cut():
    cut = ('{\n    "card0": {\n        "Device Name": "Phoenix3",\n        "Device ID": "0x1900",\n'
           '        "Device Rev": "0x01",\n        "PCI Bus": "0000:C4:00.0",\n        "MES firmware version": "0x6e",\n')
    assert [(g.device_id, g.revision, g.bdf, g.name) for g in pf.parse(cut).gpus] == [
        ("1900", "01", "0000:c4:00.0", "Phoenix3")]
    assert pf.smi_gfx("gfx9010") == "gfx90a" and pf.smi_gfx("gfx942") == "gfx942" and pf.smi_gfx("N/A") is None


def test_a_gpu_seen_only_by_name_gets_its_gfx_or_a_note(tmp_path):
    from rocm_wizard.detect import detect_snapshot

    f = tmp_path / "lspci.txt"
    f.write_text("$ lspci | grep VGA\n03:00.0 VGA compatible controller: Advanced Micro Devices, Inc. [AMD/ATI] "
                 "Navi 21 [Radeon RX 6800/6800 XT / 6900 XT] (rev c1)\n", encoding="utf-8")
    g = detect_snapshot(str(f)).amd_gpus[0]
    assert g.gfx_target == "gfx1030" and "name" in g.sources["gfx_target"]
    f.write_text("| 0000:c1:00.0 AMD Radeon Graphics | N/A      59 °C   0                17 W |\n", encoding="utf-8")
    g = detect_snapshot(str(f)).amd_gpus[0]
    assert g.gfx_target is None and any("several GPU targets" in n for n in g.notes)


def test_rocblas_names_the_running_gpus_target():
    """rocBLAS's missing-kernels error (library/src/tensile_host.cpp) names the device's target: the
    lines of tests/data/real/300 and 301 (pytorch/pytorch#179865, ROCm/legacy-rocm-build#4625)."""
    for name, gfx in (("300-gfx900-vega56-torch2.12-rocm7.2-rocblas-tensile-missing", "gfx900"),
                      ("301-gfx906-radeon-vii-rocm6.4.0-rocblas-tensile-missing-ubuntu24.04", "gfx906")):
        text = (REAL / name / "error.txt").read_text()
        assert ("rocblas", None, None, None, gfx, False) in gpus(text), name
    cut = "rocBLAS error: Cannot read /plugins/torch/lib/rocblas/library/TensileLibrary.dat:\n  Illegal seek for GPU arch : gfx906\n"
    assert gpus(cut) == [("rocblas", None, None, None, "gfx906", False)]
    # under HSA_OVERRIDE_GFX_VERSION rocBLAS names the overridden target: nothing is taken from it
    over = "export HSA_OVERRIDE_GFX_VERSION=11.0.0\n" + cut.replace("gfx906", "gfx1100")
    assert gpus(over) == []
    assert gpus("for GPU arch : gfx90600") == []  # not a target


def test_a_scripts_torch_and_gcn_arch_lines():
    """A check script's own prints (tests/data/real/453: unslothai/unsloth#7354 on an MI50): 'Torch:
    2.9.1+rocm6.3' and 'GCN arch: gfx906:sramecc-:xnack-' (torch's gcnArchName)."""
    text = (REAL / "453-mi50-gfx906-unsloth-torch2.9.1-rocm6.3-fp16-gemm-pass-healthy" / "check.txt").read_text()
    facts = pf.parse(text)
    assert [(g.how, g.gfx_target, g.isa_features) for g in facts.gpus] == [("torch", "gfx906", ":sramecc-:xnack-")]
    assert facts.torch == [("2.9.1+rocm6.3", None)]
    assert pf.parse("GPU arch: gfx906").gpus == []  # a person's statement in an issue form, not torch's property
    assert pf.parse("Torch: 2.9.1").torch == []  # no ROCm label: not taken


# s8-heldo: set O's detection misses, each on its real lines (tests/data/real/631, 637, 639)
def _real_lines(prefix: str, name: str) -> str:
    return next(REAL.glob(prefix + "-*")).joinpath(name).read_text(encoding="utf-8")


def test_rccl_tests_device_lines_of_both_formats():
    """rccl-tests prints "[%04x:%02x:%02x]" (domain, bus, device) since the Group column; older
    releases the whole BDF.  A GPU's compute function is 0."""
    new = _real_lines("631", "rccl-tests.txt")
    assert gpus(new) == [("rccl", "0000:03:00.0", None, "AMD Radeon Graphics", None, False),
                         ("rccl", "0000:09:00.0", None, "AMD Radeon Graphics", None, False)]
    old = "#   Rank  0 Pid 117738 on sharbox-ultra device  0 [0000:63:00.0] AMD Instinct MI210\n"
    assert gpus(old) == [("rccl", "0000:63:00.0", None, "AMD Instinct MI210", None, False)]
    # (a device of another vendor is not an AMD GPU)
    assert gpus("#  Rank  0 Group  0 Pid   4766 on   GENOA-06 device  0 [0x21] NVIDIA GeForce RTX 5090\n") == []


def test_rccl_init_kernel_line():
    facts = pf.parse(_real_lines("639", "rccl-log.txt"))
    assert facts.kernel_lines == ["6.8.0-136-generic"]
    # NVIDIA's NCCL prints only major.minor ("Kernel version 6.8"): no release to take
    assert pf.parse("host:1:1 [0] NCCL INFO Kernel version 6.8\n").kernel_lines == []


def test_comfyui_arch_and_device_lines_are_one_gpu():
    """ComfyUI (comfy/model_management.py) logs the arch and the name of its current device."""
    facts = pf.parse(_real_lines("637", "comfyui.txt"))
    assert [(g.how, g.name, g.gfx_target) for g in facts.gpus] == [("comfyui", "AMD Radeon RX 7900 XTX", "gfx1100")]
    # newer releases log "AMD Arch: {}" with the full gcnArchName
    later = "AMD Arch: gfx942:sramecc+:xnack-\nDevice: cuda:0 AMD Instinct MI300X : native\n"
    assert [(g.name, g.gfx_target) for g in pf.parse(later).gpus] == [("AMD Instinct MI300X", "gfx942")]


def test_apt_lines_of_the_distributions_archive_name_it(tmp_path):
    from rocm_wizard.detect import detect_snapshot

    src = next(REAL.glob("638-*")) / "amdgpu-install.txt"
    (tmp_path / "apt.txt").write_text(src.read_text(encoding="utf-8"), encoding="utf-8")
    os_ = detect_snapshot(str(tmp_path)).os
    assert (os_.id, os_.version_id, os_.codename) == ("debian", "13", "trixie")  # not the noble of AMD's repository
    assert "apt lines" in os_.sources["id"]
    ubuntu = tmp_path / "u"
    ubuntu.mkdir()
    (ubuntu / "apt.txt").write_text("Hit:1 http://us.archive.ubuntu.com/ubuntu noble InRelease\n"
                                    "Get:2 http://security.ubuntu.com/ubuntu noble-security InRelease [126 kB]\n",
                                    encoding="utf-8")
    assert (detect_snapshot(str(ubuntu)).os.id, detect_snapshot(str(ubuntu)).os.version_id) == ("ubuntu", "24.04")
    # a third-party repository under a debian/ path says nothing about the host
    other = tmp_path / "o"
    other.mkdir()
    (other / "apt.txt").write_text("Hit:1 http://download.proxmox.com/debian/pve trixie InRelease\n", encoding="utf-8")
    assert detect_snapshot(str(other)).os.id is None


def test_dnf_and_zypper_lines_name_the_distribution(tmp_path):
    """dnf's repository names, zypper's SUSE product service and Fedora's .fcNN release tags, on
    lines of public pastes (legacy-rocm-build#1549, future-architect/vuls#1635, ROCm/rocDecode#318,
    tests/data/real/136; the padding of the first line shortened)."""
    from rocm_wizard.detect import detect_snapshot

    def os_of(text):
        d = tmp_path / str(abs(hash(text)))
        d.mkdir()
        (d / "out.txt").write_text(text, encoding="utf-8")
        o = detect_snapshot(str(d)).os
        return o.id, o.version_id

    assert os_of("Fedora 39 - x86_64                                                                     "
                 "6.5 MB/s |  89 MB     00:13    \n") == ("fedora", "39")
    assert os_of("Rocky Linux 8 - AppStream                        13 MB/s |  10 MB     00:00    \n"
                 "Rocky Linux 8 - BaseOS                          8.8 MB/s | 6.1 MB     00:00    \n") == ("rocky", "8")
    assert os_of("Refreshing service 'Basesystem_Module_15_SP4_x86_64'.\n"
                 "Refreshing service 'SUSE_Linux_Enterprise_Server_15_SP4_x86_64'.\n") == ("sles", "15.4")
    fedora = next(REAL.glob("136-*")) / "dnf.txt"
    assert os_of(fedora.read_text(encoding="utf-8")) == ("fedora", "39")
    # AMD's .elN rpms on a Fedora host name no distribution; two Fedora releases give no answer
    assert os_of("hip-runtime-amd-5.4.22801.50400-72.el7.x86_64\n") == (None, None)
    assert os_of("kernel-6.9.8-200.fc40.x86_64\nkernel-6.17.1-100.fc42.x86_64\n") == (None, None)


def test_amd_smi_static_driver_section_names_the_kernel():
    """amd-smi static --driver (ROCm 7) on an MI350X (tests/data/real/152): the running kernel."""
    assert pf.parse(_real_lines("152", "amd-smi-static.txt")).kernel_lines == ["5.15.0-164-generic"]
    assert pf.parse('            "os_kernel_version": "6.8.0-106-generic",\n').kernel_lines == ["6.8.0-106-generic"]


def test_a_distribution_kernels_release_names_the_distribution(tmp_path):
    """Only a kernel release shown (uname -r): Fedora's dist tag, Debian's +debNN ABI suffix, Arch's,
    CachyOS's and Manjaro's release tags name the distribution; EL and SUSE kernels do not."""
    from rocm_wizard.detect import detect_snapshot

    def os_of(release):
        d = tmp_path / release.replace("+", "p")
        d.mkdir()
        (d / "uname.txt").write_text("$ uname -r\n%s\n" % release, encoding="utf-8")
        o = detect_snapshot(str(d)).os
        return o.kernel, o.id, o.version_id

    assert os_of("6.19.12-arch1-1") == ("6.19.12-arch1-1", "arch", None)  # tests/data/real/200's kernel
    assert os_of("6.19.11-200.fc43.x86_64") == ("6.19.11-200.fc43.x86_64", "fedora", "43")  # 250's
    assert os_of("6.12.48+deb13-amd64") == ("6.12.48+deb13-amd64", "debian", "13")
    assert os_of("6.17.9-2-cachyos") == ("6.17.9-2-cachyos", "cachyos", None)
    assert os_of("6.6.54-1-MANJARO") == ("6.6.54-1-MANJARO", "manjaro", None)
    for shared in ("5.14.0-570.el9_6.x86_64", "6.4.0-150600.23.33-default", "6.8.0-45-generic"):
        assert os_of(shared)[1] is None, shared


def test_ollama_verify_line_gives_name_target_and_address():
    # ollama/ollama discover/runner.go, second discovery pass (s9-heldu, fixture 754)
    line = ('Jun 04 14:29:12 node ollama[221627]: time=2026-06-04T14:29:12.865Z level=DEBUG source=runner.go:144 '
            'msg="verifying if device is supported" library=/usr/lib/ollama/rocm_v7_2 description="Radeon 8060S Graphics" '
            'compute=gfx1151 id=0 pci_id=0000:c3:00.0')
    got = [(g.how, g.name, g.gfx_target, g.bdf) for g in pf.parse(line).gpus]
    assert got == [("ollama", "Radeon 8060S Graphics", "gfx1151", "0000:c3:00.0")]
    # a line without an address or with a CUDA capability gives no AMD GPU
    assert not pf.parse(line.replace("compute=gfx1151", "compute=8.9")).gpus
    assert not pf.parse(line.replace(" pci_id=0000:c3:00.0", "")).gpus
