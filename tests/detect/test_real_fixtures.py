"""End to end on real systems: every folder of the project's ``tests/data/real`` (outputs users pasted in public bug reports, with ``labels.toml`` ground truth
and the source URL) through ``detect_snapshot(folder)`` must give every labelled field right.  One test per (fixture, field), so a failure names both.

Fairness rules (a label is only checked when the pasted outputs can show it):

* a value that appears nowhere in the fixture's outputs came from the issue form or the prose
  (e.g. a torch version typed into the form) and is skipped;
* ``rocm_version`` is checked only when ``rocm_version_source`` says a host tool told it (RCCL's version banner of a library in /opt/rocm, dpkg,
  dnf, apt list, amd-smi) or an install path the outputs show (``/opt/rocm-6.4.0/...``); when it says the number is the torch wheel's (collect_env), detection
  must *not* report it as the host's ROCm;
* GPU names written in prose (``Cezanne (integrated Radeon Graphics of ...)``) match by the name
  before the parenthesis or a key word inside it; AMD dGPU names must match exactly;
* ``error_signature`` labels are prose: the signature id expected is the one whose error name the
  label quotes; labels that say "no error" require that no error is reported.
"""
from __future__ import annotations

import functools
import re
from collections import Counter
from pathlib import Path
from typing import Dict, List, Optional, Tuple

import pytest
from rwtest import ci, realrun

from rocm_wizard.model import System



try:
    import tomllib  # type: ignore[import-not-found]
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

FIELDS = ("gfx_targets", "gpu_names", "gpu_count", "gpu_count_rocm", "chip_ids", "device_ids", "pci_ids", "pci_bus", "bdf",
          "isa_names", "rocm_version", "torch_version", "torch_hip_version", "triton_version", "distro_id",
          "distro_version", "kernel", "wsl", "python_version", "hsa_runtime_version", "kfd_driver_version", "cpu",
          "error_signature", "rocm_stream", "rocm_streams", "host_hip_version", "torch_rocm", "torch_stream",
          "torch_channel", "torch_device_gfx", "wsl_userspace", "os_id")
HOST_TOOL_SOURCES = re.compile(r"\bdpkg\b|\bdnf\b|apt list|amd-smi|\bpacman -Q\b|\brpm -q|RCCL version banner", re.I)
WHEEL_SOURCES = re.compile(r"collect_env|wheel", re.I)
# (s14-detect) a versioned install path the outputs show (/opt/rocm-6.4.0/bin/amdclang): detect reads the release from it
PATH_SOURCES = re.compile(r"/opt/rocm-\d")
# error names quoted in labels -> the signature id detection must report
LABEL_SIGNATURES: Tuple[Tuple[str, str], ...] = (
    (r"HIPBLAS_STATUS_", "hipblas_status"),
    (r"hipErrorNoBinaryForGpu", "no_binary_for_gpu"),
    (r"HSA_STATUS_ERROR_OUT_OF_RESOURCES", "hsa_out_of_resources"),
    (r"HSA_STATUS_ERROR_OUT_OF_REGISTERS", "hsa_out_of_registers"),
    (r"no attribute 'language'", "triton_language"),
    (r"only the CPU agent|no GPU agent", "no_gpu_agent"),
    (r"rocm-smi.*'ERROR: \d+ GPU\[", "rocm_smi_error"),
    (r"Unable to open /dev/kfd read-write: (Permission denied|Operation not permitted)", "kfd_permission"),
    (r"Unable to open /dev/kfd read-write: (Invalid argument|Cannot allocate memory|Bad address)", "kfd_open_failed"),
    (r"Key was rejected by servic", "module_key_rejected"),
    (r"hipErrorInvalidDevice", "invalid_device"),
    # (s14-detect) the errors other labels quote, each the id detection's catalogue gives the quoted line (a label that
    # quotes one of these was skipped before, unchecked)
    (r"Fatal error during GPU init", "amdgpu_init_failed"),
    # (s20-nonen) the driver core's newer form of a failed probe (drivers/base/dd.c call_driver_probe, 2024)
    (r"probe with driver amdgpu failed with error", "amdgpu_init_failed"),
    (r"PSP firmware loading failed", "fw_psp_hw_init_failed"),
    (r"hw_init of IP block <\w+> failed", "kernel_ip_block_init_failed"),
    (r"ROCk module is NOT loaded|Driver not initialized \(amdgpu not found in modules", "amdgpu_not_loaded"),
    (r"Bad return status for module build", "dkms_build_failed"),
    (r"PCI rejects atomics", "pcie_atomics_rejected"),
    (r"kgd2kfd_probe failed", "kernel_kgd2kfd_probe_failed"),
    (r"MES failed to respond to msg=", "kernel_mes_no_response"),
    (r"Unable to change power state from D3hot to D0", "gpu_off_bus"),
    (r"Timeout waiting for VM flush ACK", "kernel_vm_flush_timeout"),
    (r"Memory access fault by GPU node-\d", "memory_access_fault"),
    (r"Internal error while accessing SQLite", "miopen_db_error"),
    (r"OutOfResources: out of resource: shared|local memory limit exceeded", "lds_limit"),
    (r"NCCL WARN Missing .{0,20}iommu", "iommu_settings"),
    (r"HIP out of memory", "oom"),
    (r"rocBLAS error: Cannot read .{0,60}TensileLibrary|rocBLAS error: Cannot read [./]", "rocblas_tensile_cannot_read"),
    (r"rocblaslt error: Cannot read \"?TensileLibrary", "rocblaslt_tensile_missing"),
)


def _folders() -> List[Path]:
    return ci.real_fixtures(labelled=True)


def _labels(folder: Path) -> dict:
    with open(folder / "labels.toml", "rb") as fh:
        return tomllib.load(fh)


def _cases():
    out = []
    for folder in _folders():
        labels = _labels(folder)
        for field in FIELDS:
            if field in labels:
                out.append(pytest.param(folder, field, id="%s-%s" % (folder.name.split("-", 1)[0], field)))
    return out


CASES = _cases()


@functools.lru_cache(maxsize=None)
def system_of(folder: Path) -> System:
    return realrun.snapshot(folder)  # shared with the doctor tier's fixture-wide files


@functools.lru_cache(maxsize=None)
def text_of(folder: Path) -> str:
    return "\n".join(p.read_text(encoding="utf-8", errors="replace") for p in sorted(folder.glob("*.txt")))


def shown(folder: Path, value: object) -> bool:
    return str(value).lower() in text_of(folder).lower()


def _graphics_key(name: str) -> str:
    return re.sub(r"\s+Graphics$", "", name.strip())


def _hex(v: str) -> str:
    return v.lower().replace("0x", "").zfill(4)


def _prose_ok(label: str, names: List[str]) -> Optional[bool]:
    """None: the label's name is not in any output (skip); else whether a detected name fits."""
    head, _sep, inner = label.partition(" (")
    inner = inner.rstrip(")")
    lows = [n.lower() for n in names]
    keys = [head] + re.findall(r"\b(?:Radeon \d{3,4}M|[A-Z][a-z]+ Ridge|Cezanne|Rembrandt|Phoenix|Strix \w+)\b", inner)
    if not any(k and k.lower() in text_of_current[0].lower() for k in keys):
        return None
    return any(k.lower() == n or k.lower() in n or n in label.lower() for k in keys if k for n in lows)


text_of_current: List[str] = [""]


@pytest.mark.skipif(not CASES, reason=ci.MISSING + "no labelled folder in tests/data/real")
@pytest.mark.parametrize("folder,field", CASES)
def test_real_fixture_field(folder: Path, field: str) -> None:
    labels = _labels(folder)
    want = labels[field]
    system = system_of(folder)
    amd = system.amd_gpus
    text_of_current[0] = text_of(folder)

    if field == "gfx_targets":
        assert {g.gfx_target for g in amd if g.gfx_target} == set(want)
    elif field == "gpu_names":
        names = [g.name for g in amd if g.name]
        plain = [n for n in want if " (" not in n]
        prose = [n for n in want if " (" in n]
        if plain and not all(shown(folder, n) for n in plain) and not prose:
            pytest.skip("the GPU name comes from the issue text, not from an output")
        for n, count in Counter(p for p in plain if shown(folder, p)).items():
            # (s14-heldcf) AMD writes an APU's graphics with and without ' Graphics' ("AMD Radeon 890M Graphics",
            # "AMD Radeon 890M"): one product name either way
            assert [_graphics_key(x) for x in names].count(_graphics_key(n)) >= count, (n, names)
        checked = bool(plain)
        for label in prose:
            ok = _prose_ok(label, names)
            if ok is None:
                continue
            checked = True
            assert ok, (label, names)
        if not checked:
            pytest.skip("no labelled GPU name appears in the outputs")
        if not prose:
            assert len(names) == len(plain), names
    elif field == "gpu_count":
        assert len(amd) == want
    elif field == "gpu_count_rocm":
        assert len([g for g in amd if g.gfx_target]) == want
    elif field in ("chip_ids", "device_ids"):
        assert {g.device_id for g in amd if g.device_id} == {_hex(v) for v in want}
    elif field == "pci_ids":
        assert {g.pci_id for g in amd if g.pci_id} == {v.lower() for v in want}
    elif field in ("pci_bus", "bdf"):
        assert {(g.bdf or "").lower() for g in amd if g.bdf} >= {v.lower() for v in want}
    elif field == "isa_names":
        assert {g.isa for g in amd if g.isa} == set(want)
    elif field == "rocm_version":
        src = labels.get("rocm_version_source", "")
        if HOST_TOOL_SOURCES.search(src):
            assert system.rocm.version == want, system.rocm.sources
        elif PATH_SOURCES.search(src) and shown(folder, "/opt/rocm-" + want):
            assert system.rocm.version == want, system.rocm.sources
        elif WHEEL_SOURCES.search(src):
            assert system.rocm.version != want, "the torch wheel's ROCm was taken for the host's"
        else:
            pytest.skip("rocm_version comes from %r, which no output shows" % src)
    elif field == "torch_version":
        if not shown(folder, want):
            pytest.skip("torch version only in the issue text")
        assert want in [t.version for t in system.torch]
    elif field == "torch_hip_version":
        if not shown(folder, want):
            pytest.skip("HIP version only in the issue text")
        assert any(t.hip and (t.hip == want or t.hip.startswith(want + "-")) for t in system.torch), \
            [t.hip for t in system.torch]
    elif field == "triton_version":
        if not shown(folder, want):
            pytest.skip("triton version only in the issue text")
        assert any(want in t.triton.values() for t in system.torch)
    elif field == "distro_id":
        evidence = re.search(r"\b%s\b" % re.escape(want), text_of(folder), re.I) or (
            want == "ubuntu" and re.search(r"~\d\d\.\d\d\b", text_of(folder)))
        if not evidence:
            pytest.skip("distribution only in the issue text")
        assert system.os.id == want
    elif field == "os_id":  # (s14-detect) "windows": a native Windows host (os.windows_native), else os-release's ID
        if want == "windows":
            assert system.os.windows_native is True and system.os.wsl is not True, system.os.sources
        else:
            if not re.search(r"\b%s\b" % re.escape(want), text_of(folder), re.I):
                pytest.skip("operating system only in the issue text")
            assert system.os.id == want
    elif field == "distro_version":
        if not shown(folder, want):
            pytest.skip("distribution version only in the issue text")
        assert system.os.version_id == want
    elif field == "kernel":
        if not shown(folder, want):
            pytest.skip("kernel only in the issue text")
        assert system.os.kernel == want
    elif field == "wsl":
        assert system.os.wsl is want
    elif field == "wsl_userspace":  # "rocr4wsl", "librocdxg" or "" (none shown)
        assert system.os.wsl is True
        assert (system.os.wsl_userspace or "") == want
        if want:
            assert "sources:" in system.os.sources["wsl_userspace"]
    elif field == "python_version":
        if not shown(folder, want):
            pytest.skip("python version only in the issue text")
        assert want in [t.python for t in system.torch] + [system.os.python]
    elif field == "hsa_runtime_version":
        assert system.rocm.hsa_runtime_version == want
    elif field == "kfd_driver_version":
        assert system.rocm.kfd_version == want
    elif field == "cpu":
        if not shown(folder, want):
            pytest.skip("CPU only in the issue text")
        assert system.os.cpu == want
    elif field == "error_signature":
        sigs = [e.signature for e in system.errors]
        expected = [sid for rx, sid in LABEL_SIGNATURES if re.search(rx, want)]
        if expected:
            for sid in expected:
                assert sid in sigs, (want, sigs)
        elif re.match(r"^(wrong result, no error|no error)\b", want):
            assert sigs == [], "the label says there was no error"
        else:
            pytest.skip("the label names no known error signature: %r" % want[:60])
    elif field == "rocm_stream":
        assert system.rocm.stream == want, system.rocm.sources
    elif field == "rocm_streams":
        assert system.rocm.streams == want
    elif field == "host_hip_version":
        assert system.rocm.hip_version == want
    elif field in ("torch_rocm", "torch_stream", "torch_channel"):
        assert want in [getattr(t, field[6:]) for t in system.torch], [t.sources for t in system.torch]
    elif field == "torch_device_gfx":
        assert set(want) <= {g for t in system.torch for g in t.device_gfx}
    else:  # pragma: no cover
        raise AssertionError(field)
