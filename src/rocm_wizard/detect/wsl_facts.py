"""What a WSL 2 system shows of ROCm's WSL stack: after the probes (it needs the packages dpkg lists
and the torch environments found), from files first and pasted outputs second.

Live (or a captured tree): the WSL kernel (``/proc/sys/kernel/osrelease``, read by the OS probe),
``/dev/dxg``, the DXCore libraries in ``/usr/lib/wsl/lib``, the WSL user space installed (dpkg's
status: ``hsa-runtime-rocr4wsl-amdgpu`` for ROCm 6.1.3-7.1, ``librocdxg``/``rocdxg-*`` packages or a
built ``librocdxg.so`` for 7.2 on), ``HSA_ENABLE_DXG_DETECTION`` in the environment, and a torch
wheel that still carries its own ``torch/lib/libhsa-runtime64.so*``.  No command runs: every fact
here is a file, a directory listing or the environment.

The Windows driver's version cannot be read from inside WSL: ``/usr/lib/wsl/drivers`` holds the
Windows driver store folders (INF name and a hash, no version) and the DXCore libraries carry none;
only a paste that names it (an Adrenalin version typed by the user) gives it, and the report says so.

Pastes: the Windows release and build, the Adrenalin version, the DXG switch shown set, ``wsl
--version``'s WSL version, a torch/lib listing.
"""
from __future__ import annotations

import re
from ..model import ErrorSighting, System
from .parsers._core_text import anchored_finditer, lazy, lazy_module
from . import _forked
from .probes._core_util import env, listdir, paste_label, pastes, read_text, stat
from .sources import Source

p_wsl = lazy_module("rocm_wizard.detect.parsers.wsl")  # (pasted texts only, or a WSL user space found)

DXG_NODE = "/dev/dxg"
WSL_LIB = "/usr/lib/wsl/lib"
WSL_DRIVERS = "/usr/lib/wsl/drivers"
DPKG_STATUS = "/var/lib/dpkg/status"
DPKG_STATUS_MAX = 32 * 1024 * 1024  # a desktop's status file is a few MiB
# librocdxg built from its README (`sudo make install`) or packaged
LIBROCDXG_FILES = ("/opt/rocm/lib/librocdxg.so", "/usr/local/lib/librocdxg.so", "/usr/lib/librocdxg.so")
ROCR4WSL_PACKAGES = ("hsa-runtime-rocr4wsl-amdgpu",)
LIBROCDXG_PACKAGES = ("librocdxg", "rocdxg-roct", "rocdxg-amd-smi-lib")
DXG_ENV = "HSA_ENABLE_DXG_DETECTION"
_HSA_FILE = lazy(r"^libhsa-runtime64\.so(?:\.\d+)*$")
_WSL_VERSION = lazy(r"^\s*WSL(?: version)?:\s*(\d+\.\d+\.\d+(?:\.\d+)?)\s*$", re.M)
_WSL1_KERNEL = lazy(r"-Microsoft$")
# a user telling that torch sees no GPU in prose ("the output of torch.cuda.is_available() is FALSE"),
# a form error_signatures' torch_gpu_unavailable (printed values) does not take
_TORCH_NO_GPU_SAID = lazy(r"is_available\(\)`?\)?[^\n]{0,12}?\b(?:is|returns?|gives|shows|prints|says)\s*[`'\"]?false\b", re.I)
TORCH_NO_GPU_SIGS = ("torch_gpu_unavailable", "torch_no_hip_gpus")


def _is_live(source: Source) -> bool:
    return getattr(source, "kind", "") == "live"


def merge(source: Source, system: System) -> None:
    info = system.os
    _files(source, system)  # a snapshot bundle answers from what it recorded; pasted texts from nothing
    _from_pastes(source, system)
    if info.wsl is not True:
        return
    k = info.kernel or ""
    if info.wsl_version is None and k:
        if "microsoft-standard-WSL2" in k:
            info.put("wsl_version", "2", info.sources.get("kernel", "kernel") + " (a WSL 2 kernel)")
        elif _WSL1_KERNEL.search(k):
            info.put("wsl_version", "1", info.sources.get("kernel", "kernel") + " (a WSL 1 kernel)")
    if info.windows_driver is None and _is_live(source):
        info.note("The Windows AMD driver's version cannot be read from inside WSL (the driver store under "
                  f"{WSL_DRIVERS} names no version): see AMD Software: Adrenalin Edition on Windows.")


def _files(source: Source, system: System) -> None:
    info = system.os
    node = stat(source, DXG_NODE)
    libs = sorted(n for n in listdir(source, WSL_LIB) if n.endswith(".so") or ".so." in n)
    if node is not None:
        info.put("wsl_dxg", True, "file:" + DXG_NODE)
    if libs:
        info.put("wsl_libs", libs[:40], "listdir:" + WSL_LIB)
    if info.wsl is None and (node is not None or "libdxcore.so" in libs):
        info.put("wsl", True, "file:" + (DXG_NODE if node is not None else WSL_LIB + "/libdxcore.so"))
    if info.wsl is True and node is None and info.wsl_dxg is None and _is_live(source):
        info.put("wsl_dxg", False, "file:" + DXG_NODE + " (missing)")
    value = env(source).get(DXG_ENV)
    if value is not None and info.wsl is True:
        info.put("wsl_dxg_switch", value, "env:" + DXG_ENV)
    pkgs = dict(system.rocm.packages or {})
    if info.wsl is True:
        pkgs.update(_dpkg_installed(source, ROCR4WSL_PACKAGES + LIBROCDXG_PACKAGES))
    gen = where = None
    for name in LIBROCDXG_PACKAGES:
        if name in pkgs:
            gen, where = p_wsl.LIBROCDXG, f"{_pkg_source(system, name)}: {name} {pkgs[name]}"
            break
    if gen is None:
        for path in LIBROCDXG_FILES:
            if stat(source, path) is not None:
                gen, where = p_wsl.LIBROCDXG, "file:" + path
                break
    if gen is None:
        for name in ROCR4WSL_PACKAGES:
            if name in pkgs:
                gen, where = p_wsl.ROCR4WSL, f"{_pkg_source(system, name)}: {name} {pkgs[name]}"
                break
    if gen is not None:
        info.put("wsl_userspace", gen, "%s (sources: %s)" % (where, ", ".join(p_wsl.GENERATION_SOURCES[gen])))
        info.put("wsl", True, where, overwrite=False)
    for t in system.torch:
        if t.site_packages and not t.bundled_hsa:
            lib = t.site_packages.rstrip("/") + "/torch/lib"
            own = sorted(n for n in listdir(source, lib) if _HSA_FILE.match(n))
            if own:
                t.put("bundled_hsa", own, "listdir:" + lib)


def _pkg_source(system: System, name: str) -> str:
    return system.rocm.sources.get("packages", "dpkg") if name in (system.rocm.packages or {}) else "file:" + DPKG_STATUS


def _dpkg_installed(source: Source, names) -> dict:
    """{package: version} for those of ``names`` dpkg's status file lists as installed."""
    raw = read_text(source, DPKG_STATUS, DPKG_STATUS_MAX)
    text = raw.text if raw is not None else ""
    out = {}
    for name in names:
        at = text.find("Package: %s\n" % name)
        while at >= 0:
            end = text.find("\n\n", at)
            stanza = text[at:end if end >= 0 else len(text)]
            st = re.search(r"^Status: (.*)$", stanza, re.M)
            ver = re.search(r"^Version: (\S+)$", stanza, re.M)
            if st and st.group(1).strip() == "install ok installed" and ver:
                out[name] = ver.group(1)
                break
            at = text.find("Package: %s\n" % name, at + 1)
    return out


# What the pasted texts say of the Windows host, WSL and torch's own HSA runtime, as the first pastes
# (in order) that say it: a pure function of the texts, so the recogniser's forked worker may work it
# out once it has sent its share (``detect.bundle._LATER``); the merge pass here replays it.  Each
# field's list holds the hits up to the first one that sets the field (``put`` ignores None or ""):
# the merge asks every paste until the field is set, no further.
PASTED_FIELDS = ("windows_host", "adrenalin", "dxg_switch", "wsl_version", "torch_hsa",
                 "torch_said", "repo_release", "wsl_said")


def pasted_hits(texts, wanted=PASTED_FIELDS) -> dict:
    """``{field: [(index of the text, what it says), ...]}`` for each field of ``wanted``: the texts
    that say it, in order, up to the first whose answer sets the field."""
    out = {}
    for field in wanted:
        hits = []
        for i, text in enumerate(texts):
            if field == "windows_host":
                host = p_wsl.windows_host(text)
                if host is not None:
                    hits.append((i, host))
                    if host.release not in (None, ""):
                        break
            elif field == "adrenalin":
                drv = p_wsl.adrenalin(text)
                if drv is not None:
                    hits.append((i, drv))
                    if drv[0] not in (None, ""):
                        break
            elif field == "dxg_switch":
                line = p_wsl.dxg_switch_set(text)
                if line:
                    hits.append((i, line))
                    break
            elif field == "wsl_version":
                m = next(anchored_finditer(_WSL_VERSION, text, ("WSL",)), None) if "WSL" in text else None
                if m:
                    hits.append((i, (m.group(1), m.group(0).strip())))
                    break
            elif field == "torch_hsa":
                line = p_wsl.torch_bundled_hsa(text)
                if line:
                    hits.append((i, line))
                    break
            elif field == "torch_said":
                m = next(anchored_finditer(_TORCH_NO_GPU_SAID, text, ("is_available",)), None) if "is_available" in text else None
                if m:
                    start = text.rfind("\n", 0, m.start()) + 1
                    end = text.find("\n", m.end())
                    hits.append((i, text[start:end if end >= 0 else len(text)].strip()[:500]))
                    break
            elif field == "repo_release":
                rel = p_wsl.repo_release(text)
                if rel:
                    hits.append((i, rel))
                    break
            elif field == "wsl_said":
                line = p_wsl.wsl_said(text)
                if line:
                    hits.append((i, line))
                    break
        out[field] = hits
    return out


def _from_pastes(source: Source, system: System) -> None:
    info = system.os
    texts = pastes(source)
    if not texts:
        return
    # (what each loop below asks: nothing they set changes these)
    said_no_gpu = info.wsl is True and not any(e.signature in TORCH_NO_GPU_SIGS for e in system.errors)
    wanted = [f for f, asked in (("windows_host", info.windows_release is None),
                                 ("adrenalin", info.windows_driver is None),
                                 ("dxg_switch", info.wsl_dxg_switch is None),
                                 ("wsl_version", info.wsl_version is None),
                                 ("torch_hsa", any(not t.bundled_hsa for t in system.torch)),
                                 ("torch_said", said_no_gpu),
                                 ("repo_release", info.wsl is True and not system.rocm.version),
                                 ("wsl_said", info.wsl is None)) if asked]
    if not wanted:
        return
    bodies = [text for _name, text in texts]
    got = _forked.worked_out_whole("wsl_pasted", bodies)  # (the recogniser's worker, where it worked them out)
    hits = got if isinstance(got, dict) and all(f in got for f in wanted) else pasted_hits(bodies, wanted)
    events = sorted((i, PASTED_FIELDS.index(f), value) for f in wanted if PASTED_FIELDS.index(f) < 5
                    for i, value in hits[f])
    for i, field, value in events:
        name = texts[i][0]
        if field == 0:
            if info.windows_release is None:
                src = paste_label(name) + " ('%s')" % value.evidence
                info.put("windows_release", value.release, src)
                info.put("windows_build", value.build, src)
        elif field == 1:
            if info.windows_driver is None:
                info.put("windows_driver", value[0], paste_label(name) + " ('%s')" % value[1])
        elif field == 2:
            if info.wsl_dxg_switch is None:
                info.put("wsl_dxg_switch", "1", paste_label(name) + " ('%s')" % value)
        elif field == 3:
            if info.wsl_version is None:
                info.put("wsl_version", value[0], paste_label(name) + " ('%s')" % value[1])
        else:
            for t in system.torch:
                if not t.bundled_hsa:
                    t.put("bundled_hsa", [value.rsplit("/", 1)[-1].split()[-1]], paste_label(name) + " ('%s')" % value)
    if said_no_gpu and hits["torch_said"]:
        i, line = hits["torch_said"][0]
        es = ErrorSighting()
        es.put("signature", "torch_gpu_unavailable", "catalog:error_signatures#torch_gpu_unavailable")
        es.put("text", line, paste_label(texts[i][0]) + " (said in prose)")
        from . import error_signatures  # the error table, only for a sighting

        es.put("layer", error_signatures.failure_layer("torch_gpu_unavailable"), "catalog:error_signatures")
        system.errors.append(es)
    if "repo_release" in wanted and hits["repo_release"]:
        i, rel = hits["repo_release"][0]
        info.put("wsl_rocm_named", rel, paste_label(texts[i][0]) + " (repo.radeon.com lines)")
    if "wsl_said" in wanted and hits["wsl_said"]:
        i, line = hits["wsl_said"][0]
        info.put("wsl", True, paste_label(texts[i][0]) + " ('%s')" % line)

