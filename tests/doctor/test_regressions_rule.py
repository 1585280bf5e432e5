"""The doctor's rules for a release the user changed (issue 28, s8-regress): ``known-regression`` (an
installed release in a known-bad range of ``catalog/data/regressions.toml`` for the GPU, with one of
the row's symptoms in the paste) and ``release-changed`` (the prose names a release change before a
failure).  Symptom lines are real, quoted from the threads named beside them."""
from __future__ import annotations

from pathlib import Path

from rwtest import realrun

from rocm_wizard.detect import detect_snapshot
from rocm_wizard.doctor import diagnose
from rocm_wizard.doctor.model import PROBLEM_SEVERITIES

# real: ROCm/ROCm#5616 (gfx1151 with linux-firmware 20251125)
FAULT = ("Memory access fault by GPU node-1 (Agent handle: 0x5570f8146df0) on address 0x7ff96a9ac000. "
         "Reason: Page not present or supervisor privilege")
GFXHUB = ("[   67.058794] amdgpu 0000:c4:00.0: amdgpu: [gfxhub] page fault (src_id:0 ring:153 vmid:8 pasid:32786)\n"
          "[   67.058812] amdgpu 0000:c4:00.0: amdgpu: GCVM_L2_PROTECTION_FAULT_STATUS:0x00800932\n")
ROCMINFO_1151 = "  Name:                    gfx1151\n  Marketing Name:          AMD Radeon Graphics\n  Device Type:             GPU\n"
# real: ROCm/ROCm#5905 (amdgpu-dkms 6.16.13 on mainline 6.18.7)
DKMS = ("Autoinstall of module amdgpu/6.16.13-2278356.24.04 for kernel 6.18.7-061807-generic (x86_64)\n"
        "Building module(s)......(bad exit status: 2)\n"
        "Failed command:\n'make' KERNELVER=6.18.7-061807-generic\n"
        "ERROR (dkms apport): kernel package linux-headers-6.18.7-061807-generic is not supported\n")


def _folder(tmp_path: Path, files: dict) -> str:
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    return str(tmp_path)


def _diag(tmp_path, files):
    return diagnose(detect_snapshot(_folder(tmp_path, files)))


def _problems(diag, rid):
    return [f for f in diag.findings if f.id == rid and f.severity in PROBLEM_SEVERITIES]


def test_firmware_release_in_the_bad_range_leads_at_firmware(tmp_path):
    diag = _diag(tmp_path, {"rocminfo.txt": ROCMINFO_1151, "dmesg.txt": GFXHUB, "run.txt": FAULT + "\n",
                            "rpm.txt": "amd-gpu-firmware-20251125-1.fc43.noarch\n"})
    found = _problems(diag, "known-regression")
    assert [f.layer for f in found] == ["firmware"]
    f = found[0]
    assert diag.problems[0] is f  # it leads over the runtime's fault and the kernel's page fault
    text = " ".join(f.evidence)
    assert "linux-firmware-20251125-gc115-mes-0x83" in text and "ROCm/ROCm#5724" in text and "gfx1151" in text
    assert "no fixed release known" in text  # unknown is never shown as fixed
    assert "20251111" in f.fix


def test_no_finding_outside_the_range_for_another_gpu_or_without_a_symptom(tmp_path):
    (tmp_path / "a").mkdir()
    older = _diag(tmp_path / "a", {"rocminfo.txt": ROCMINFO_1151, "run.txt": FAULT + "\n", "rpm.txt": "amd-gpu-firmware-20251111-1.fc43.noarch\n"})
    assert not _problems(older, "known-regression")
    (tmp_path / "b").mkdir()
    other_gpu = _diag(tmp_path / "b", {"rocminfo.txt": ROCMINFO_1151.replace("gfx1151", "gfx942"), "run.txt": FAULT + "\n",
                                       "rpm.txt": "amd-gpu-firmware-20251125-1.fc43.noarch\n"})
    assert not _problems(other_gpu, "known-regression")
    (tmp_path / "c").mkdir()
    healthy = _diag(tmp_path / "c", {"rocminfo.txt": ROCMINFO_1151, "rpm.txt": "amd-gpu-firmware-20251125-1.fc43.noarch\n"})
    assert not [f for f in healthy.findings if f.id in ("known-regression", "release-changed")]
    (tmp_path / "d").mkdir()
    unknown = _diag(tmp_path / "d", {"rocminfo.txt": ROCMINFO_1151, "run.txt": FAULT + "\n",
                                     "rpm.txt": "amd-gpu-firmware-20260110-1.fc43.noarch\n"})  # past the newest known-bad
    assert not _problems(unknown, "known-regression")


def test_a_driver_build_that_fails_on_a_new_kernel_is_packaging(tmp_path):
    diag = _diag(tmp_path, {"dkms.txt": DKMS, "uname.txt": "6.18.7-061807-generic\n",
                            "dpkg.txt": "ii  amdgpu-dkms  1:6.16.13.30300000-2278356.24.04  all  amdgpu driver in DKMS format.\n"})
    found = _problems(diag, "known-regression")
    assert found and found[0].layer == "packaging"
    assert "amdgpu-dkms-6.16-fails-on-6.18" in " ".join(found[0].evidence)
    assert diag.problems[0].id == "known-regression"


def test_the_prose_names_the_change_before_a_failure(tmp_path):
    # real: ROCm/ROCm#5616 (the sentence and the fault of one comment)
    diag = _diag(tmp_path, {"issue.txt": "I can confirm it always fails (to me) with latest firmware (20251125). It does not "
                                         "happen with 20251111.\n\n" + FAULT + "\n", "rocminfo.txt": ROCMINFO_1151})
    found = _problems(diag, "release-changed")
    assert [f.layer for f in found] == ["firmware"]
    text = " ".join(found[0].evidence)
    assert "linux-firmware 20251111 worked and 20251125 fails" in text
    assert "linux-firmware-20251125-gc115-mes-0x83" in text  # the row that fits the release named
    assert diag.problems[0].layer == "firmware"  # read before the runtime's fault


def test_a_change_named_without_any_failure_gives_nothing(tmp_path):
    diag = _diag(tmp_path, {"notes.txt": "After upgrading to kernel 6.19 I set up ROCm 7.2 on this box.\n",
                            "rocminfo.txt": ROCMINFO_1151})
    assert not [f for f in diag.findings if f.id in ("release-changed", "known-regression")]


def test_a_change_of_unknown_release_asks_to_confirm_it(tmp_path):
    # real: ROCm/amdgpu#213's title (a gfx1150 APU, the kernel series)
    title = ("# hipMemcpy Host-to-Device triggers WALKER_ERROR=1/MAPPING_ERROR=1 on gfx1150 APU \u2014 regression in kernel "
             "6.17 (works on 6.14)\n")
    diag = _diag(tmp_path, {"title.txt": title})
    found = _problems(diag, "release-changed")
    assert [f.layer for f in found] == ["kernel"]
    assert "kernel 6.14 worked and 6.17 fails" in " ".join(found[0].evidence)
    assert "Confirm it" in found[0].fix


def test_the_firmware_file_amdgpu_loaded_decides_over_the_package(tmp_path):
    # real lines: ROCm/ROCm#5724 (amdgpu_firmware_info's MES lines; 0x83 is the bad MES, 0x80 the revert)
    mes83 = "MES_KIQ feature version: 6, firmware version: 0x0000006f\nMES feature version: 1, firmware version: 0x00000083\n"
    (tmp_path / "a").mkdir()
    bad = _diag(tmp_path / "a", {"rocminfo.txt": ROCMINFO_1151, "run.txt": FAULT + "\n", "fw.txt": mes83})
    found = _problems(bad, "known-regression")
    assert [f.layer for f in found] == ["firmware"] and "MES firmware 0x00000083" in found[0].evidence[0]
    # the package is in the bad range, but the MES file loaded is the revert (an overlay in /lib/firmware/updates)
    (tmp_path / "b").mkdir()
    overlay = _diag(tmp_path / "b", {"rocminfo.txt": ROCMINFO_1151, "run.txt": FAULT + "\n",
                                     "fw.txt": mes83.replace("0x00000083", "0x00000080"),
                                     "rpm.txt": "amd-gpu-firmware-20251125-1.fc43.noarch\n"})
    assert not _problems(overlay, "known-regression")


def test_a_sentence_that_tells_of_a_failure_and_its_fix_stands_alone(tmp_path):
    # real: the Lemonade output of lemonade-sdk/lemonade#838 (no error line), with the thread's fix told in a sentence
    (tmp_path / "lemonade.txt").write_text("Loading model Gemma-3-4b-it-GGUF...\nStill waiting for llama-server...\n",
                                           encoding="utf-8")
    (tmp_path / "notes.txt").write_text("Downgrading linux-firmware to 20251111 fixed it\n", encoding="utf-8")
    found = _problems(diagnose(detect_snapshot(str(tmp_path))), "release-changed")
    assert [f.layer for f in found] == ["firmware"]
    assert "going back to linux-firmware 20251111 fixed it" in found[0].evidence[0]


def test_healthy_fixtures_get_no_release_finding():
    try:
        import tomllib  # type: ignore[import-not-found]
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib  # type: ignore[no-redef]

    real = Path(__file__).resolve().parents[2] / "tests" / "data" / "real"
    healthy = [d for d in sorted(real.iterdir()) if (d / "labels.toml").is_file()
               and tomllib.loads((d / "labels.toml").read_text(encoding="utf-8")).get("failure_class") == "none"]
    assert len(healthy) >= 50
    for d in healthy:
        ids = realrun.diagnosis(d).ids()
        assert "known-regression" not in ids and "release-changed" not in ids, d.name


def test_a_newer_release_that_fixed_it_puts_the_finding_at_its_layer(tmp_path):
    # real: the Ollama runner's line of robertrosenbusch/gfx803_rocm#49 (tests/data/real/615); the reporter's fix was
    # updating the host's kernel
    (tmp_path / "ollama.txt").write_text(
        "Error: llama runner process has terminated: error:invalid argument current device: 0, in function "
        "ggml_backend_cuda_device_get_memory at /ollama/ml/backend/ggml/ggml/src/ggml-cuda/ggml-cuda.cu:2902\n",
        encoding="utf-8")
    (tmp_path / "notes.txt").write_text("updating the host kernel fixed it\n", encoding="utf-8")
    diag = diagnose(detect_snapshot(str(tmp_path)))
    found = _problems(diag, "release-changed")
    assert [f.layer for f in found] == ["kernel"] and "moving kernel to another release fixed it" in found[0].evidence[0]
    assert diag.problems[0].layer == "kernel"
