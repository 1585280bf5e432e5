"""GPUs: every display/compute PCI function, AMD or not, with its gfx target.

Evidence, best first: PCI sysfs (``/sys/bus/pci/devices/*``, ``/sys/class/drm/card*``), KFD
topology (``/sys/class/kfd/kfd/topology/nodes/*/properties``), ``amd-smi``, ``rocminfo``,
``rocm-smi``, ``lspci``, ``lshw`` and PyTorch's ``collect_env`` -- whichever the source has (a live
system has the first ones, a pasted bug report often only the last ones).  Each tool's view of a
GPU is an *observation*; observations of the same GPU are merged by PCI address, KFD node, PCI
ids and, when nothing else identifies them, by order, so one GPU is never counted twice.

The gfx target comes from what ROCm itself reports (KFD ``gfx_target_version``, then the tools),
else from the IP-discovery GC version, else from the PCI id table.  The name prefers the PCI
table when the device id and revision pin one product; otherwise the tools' marketing name --
except that ROCm names integrated GPUs after the CPU, which is then said plainly.
"""
from __future__ import annotations

import functools
import re
from ...model import field
from typing import Any, Dict, List, Optional, Set, Tuple

from ...catalog import gpus as gpu_catalog
from ...model import GPU, ErrorSighting, System, lean_dataclass
from ..parsers import sysfs
from ..parsers._core_text import lazy, lazy_module
from ..parsers._paste import norm_bdf
from .._jobs import in_parallel, run_jobs
from ..sources import Raw, Source
from . import _gpu_shared as sh

# the tools' parsers, imported only where a tool printed something (_gpu_shared.tool_parser)
_amd_smi_parse, _lspci_parse = sh.tool_parser("amd_smi"), sh.tool_parser("lspci")
_rocm_smi_parse, _rocminfo_parse = sh.tool_parser("rocm_smi"), sh.tool_parser("rocminfo")

issue_form = lazy_module("rocm_wizard.detect.parsers.issue_form")  # pasted text only
paste_facts = lazy_module("rocm_wizard.detect.parsers.paste_facts")  # pasted text only

PCI_DEVICES = "/sys/bus/pci/devices"
DRM = "/sys/class/drm"
KFD_NODES = "/sys/class/kfd/kfd/topology/nodes"

VENDOR_NAMES = {"1002": "AMD", "10de": "NVIDIA", "8086": "Intel", "1a03": "ASPEED", "102b": "Matrox", "15ad": "VMware",
                "1234": "QEMU", "1af4": "virtio", "1414": "Microsoft"}

# the order observations are merged in (and so which value wins a field)
TOOL_ORDER = ("sysfs", "drm", "kfd", "amd-smi", "rocminfo", "rocm-smi", "lspci", "lshw", "collect_env", "paste")

_CPU_WORDS = lazy(r"\b(Processor|CPU|Core\(TM\)|Ryzen|Threadripper|EPYC|Xeon|Athlon)\b", re.I)
_GPU_WORDS = lazy(r"\b(Radeon|Instinct|FirePro|Vega|Navi|GPU|Graphics|GeForce|Quadro|Tesla|Arc|UHD|Iris)\b", re.I)


@lean_dataclass
class Obs:
    """One tool's view of one GPU."""

    tool: str
    source: str
    vendor_id: Optional[str] = None
    is_amd: Optional[bool] = None
    device_id: Optional[str] = None
    revision: Optional[str] = None
    bdf: Optional[str] = None
    bdf_domain_known: bool = True
    kfd_node: Optional[int] = None
    gfx_target: Optional[str] = None
    name: Optional[str] = None  # the tool's own name for it
    series: Optional[str] = None  # pci.ids style name (lspci, old rocm-smi)
    vram_bytes: Optional[int] = None
    driver: Optional[str] = None
    isa: Optional[str] = None
    apu: Optional[bool] = None
    gc_ip: Optional[Tuple[int, int, int]] = None
    class_id: Optional[str] = None
    unclaimed: Optional[str] = None  # the tool's lines showing that no driver is bound to it
    firmware: Optional[Dict[str, str]] = None  # amd-smi firmware: FW_ID -> FW_VERSION
    firmware_source: Optional[str] = None


@lean_dataclass
class Slot:
    """One GPU being assembled from the observations that agree on it."""

    gpu: GPU
    obs: List[Obs] = field(default_factory=list)

    def val(self, attr: str) -> Any:
        """The attribute of the first observation that has one (None: none has).  Observations are
        only ever appended once gathered, so a value found stays the answer: kept, as merging asks
        every slot about every observation of every tool."""
        d = self.__dict__
        known = d.get("_first")
        if known is None:
            known = d["_first"] = {}
            d["_none"] = {}
        v = known.get(attr)
        if v is not None:
            return v
        # (no value among the observations looked at so far: only those appended since are asked)
        none = d["_none"]
        obs = self.obs
        i, n = none.get(attr, 0), len(obs)
        while i < n:
            v = getattr(obs[i], attr)
            if v is not None:
                known[attr] = v
                return v
            i += 1
        none[attr] = n
        return None

    def with_address(self) -> Optional["Obs"]:
        """The first observation with a PCI address (kept as :meth:`val` keeps its answers; where
        none has one, only the observations appended since are looked at next time)."""
        d = self.__dict__
        known = d.get("_addressed")
        if known is not None:
            return known
        obs = self.obs
        i, n = d.get("_unaddressed", 0), len(obs)
        while i < n:
            o = obs[i]
            if o.bdf:
                d["_addressed"] = o
                return o
            i += 1
        d["_unaddressed"] = n
        return None


# ---------------------------------------------------------------------------------------------
# gathering


def _sysfs_pci(source: Source) -> List[Obs]:
    out: List[Obs] = []
    for name in sh.listdir(source, PCI_DEVICES):
        base = "%s/%s" % (PCI_DEVICES, name)
        cls = sh.read_text(source, base + "/class", 64)
        pci_class = sysfs.parse_hex(cls.text, 6) if cls else None
        if not sysfs.is_gpu_class(pci_class):
            continue
        out.append(_pci_function(source, base, name, pci_class, "sysfs"))
    return out


def _pci_function(source: Source, base: str, name: str, pci_class: Optional[str], tool: str) -> Obs:
    vendor = sh.read_text(source, base + "/vendor", 64)
    device = sh.read_text(source, base + "/device", 64)
    rev = sh.read_text(source, base + "/revision", 64)
    o = Obs(tool=tool, source=(vendor or device or Raw(None, "file:" + base)).source)
    o.vendor_id = sysfs.parse_hex(vendor.text) if vendor else None
    o.device_id = sysfs.parse_hex(device.text) if device else None
    o.revision = sysfs.parse_hex(rev.text, 2) if rev else None
    o.bdf = norm_bdf(name)
    o.class_id = pci_class[:4] if pci_class else None
    o.is_amd = (o.vendor_id == "1002") if o.vendor_id else None
    link = sh.readlink(source, base + "/driver")
    if link:
        o.driver = link.rstrip("/").rsplit("/", 1)[-1] or None
    if o.is_amd:
        vram = sh.read_text(source, base + "/mem_info_vram_total", 64)
        n = sysfs.parse_int(vram.text) if vram else None
        o.vram_bytes = n if n else None
        gc = []
        for part in ("major", "minor", "revision"):
            r = sh.read_text(source, base + "/ip_discovery/die/0/GC/0/" + part, 64)
            gc.append(sysfs.parse_int(r.text) if r else None)
        if all(v is not None for v in gc):
            o.gc_ip = (gc[0], gc[1], gc[2])  # type: ignore[assignment]
    return o


def _drm(source: Source) -> List[Obs]:
    out: List[Obs] = []
    for name in sh.listdir(source, DRM):
        if not re.fullmatch(r"card\d+", name):
            continue
        base = "%s/%s/device" % (DRM, name)
        ue = sh.read_text(source, base + "/uevent", 8192)
        info = sysfs.parse_uevent(ue.text) if ue else sysfs.Uevent()
        cls = sh.read_text(source, base + "/class", 64)
        pci_class = (sysfs.parse_hex(cls.text, 6) if cls else None) or info.pci_class
        if pci_class and not sysfs.is_gpu_class(pci_class):
            continue
        o = _pci_function(source, base, info.bdf or "", pci_class, "drm")
        o.bdf = info.bdf or _bdf_from_link(sh.readlink(source, "%s/%s/device" % (DRM, name)))
        o.vendor_id = o.vendor_id or info.vendor_id
        o.device_id = o.device_id or info.device_id
        o.driver = o.driver or info.driver
        if o.vendor_id:
            o.is_amd = o.vendor_id == "1002"
        if ue:
            o.source = ue.source
        if o.vendor_id or o.device_id or o.bdf:
            out.append(o)
    return out


def _bdf_from_link(link: Optional[str]) -> Optional[str]:
    if not link:
        return None
    return norm_bdf(link.rstrip("/").rsplit("/", 1)[-1])


def _kfd(source: Source, system: System) -> List[List[Obs]]:
    out: List[Obs] = []
    batches: List[List[Obs]] = [out]
    nodes = [n for n in sh.listdir(source, KFD_NODES) if n.isdigit()]
    for n in sorted(nodes, key=int):
        raw = sh.read_text(source, "%s/%s/properties" % (KFD_NODES, n), 65536)
        if raw is None:
            continue
        node = sysfs.parse_properties(raw.text)
        node.node = int(n)
        if not node.is_gpu:
            continue
        o = _kfd_obs(node, raw.source)
        vram = 0
        for bank in sh.listdir(source, "%s/%s/mem_banks" % (KFD_NODES, n)):
            b = sh.read_text(source, "%s/%s/mem_banks/%s/properties" % (KFD_NODES, n, bank), 8192)
            if b is None:
                continue
            props = sysfs.parse_properties(b.text).props
            if props.get("heap_type") in (1, 2):  # frame buffer public / private
                vram += props.get("size_in_bytes") or 0
        o.vram_bytes = vram or None
        out.append(o)
    # a pasted `cat .../nodes/*/properties`
    for raw, res in sh.parsed(source, system, "kfd-properties", sysfs.parse):
        batches.append([_kfd_obs(node, raw.source) for node in res.nodes if node.is_gpu])
    return batches


def _kfd_obs(node: sysfs.KfdNode, label: str) -> Obs:
    o = Obs(tool="kfd", source=label)
    o.kfd_node = node.node
    o.vendor_id = node.vendor_id
    o.is_amd = (o.vendor_id == "1002") if o.vendor_id else True
    o.device_id = node.device_id
    o.bdf = node.bdf
    o.gfx_target = gpu_catalog.gfx_from_kfd_version(node.gfx_target_version)
    o.apu = node.is_apu
    return o


def _rocminfo_obs(source: Source, system: System, cpu_names: List[str], notes: List[str]) -> List[List[Obs]]:
    batches: List[List[Obs]] = []
    for raw, res in sh.parsed(source, system, "rocminfo", _rocminfo_parse):
        out: List[Obs] = []
        batches.append(out)
        for a in res.agents:
            if a.device_type == "CPU" and a.marketing_name:
                cpu_names.append(a.marketing_name)
        if res.error:
            detail = res.error_line if res.error_line and res.error not in res.error_line else None
            notes.append("rocminfo failed (%s): %s%s" % (raw.source, res.error, " -- %s" % detail if detail else ""))
        for a in res.gpus:
            o = Obs(tool="rocminfo", source=raw.source)
            o.is_amd = True
            o.vendor_id = "1002"
            o.device_id = a.chip_id
            o.bdf = a.bdf
            o.bdf_domain_known = False
            o.kfd_node = a.node
            o.gfx_target = a.gfx_target
            o.name = a.marketing_name
            o.vram_bytes = a.vram_bytes
            isas = [i for i in a.isa if "generic" not in i]
            o.isa = isas[0] if isas else None
            o.apu = a.apu
            out.append(o)
    return batches


def _amd_smi_obs(source: Source, system: System) -> List[List[Obs]]:
    batches: List[List[Obs]] = []
    firmware_only: List[Tuple[Obs, int]] = []  # amd-smi firmware records: they name no GPU
    by_index = {}
    for raw, res in sh.parsed(source, system, "amd-smi", _amd_smi_parse):
        out: List[Obs] = []
        batches.append(out)
        for g in res.gpus:
            if g.firmware and not (g.bdf or g.device_id or g.market_name or g.product_name or g.gfx_target
                                   or g.node is not None or g.uuid):
                firmware_only.append((Obs(tool="amd-smi", source=raw.source, vendor_id="1002", is_amd=True,
                                          firmware=dict(g.firmware), firmware_source=raw.source), g.index))
                continue
            o = Obs(tool="amd-smi", source=raw.source)
            o.vendor_id = g.vendor_id or "1002"
            o.is_amd = o.vendor_id == "1002"
            o.device_id = g.device_id
            o.revision = g.revision
            o.bdf = g.bdf
            o.kfd_node = g.node
            o.gfx_target = g.gfx_target
            o.name = g.market_name or g.product_name
            o.vram_bytes = g.vram_bytes if g.vram_bytes else None
            o.driver = g.driver_name
            o.firmware, o.firmware_source = dict(g.firmware) or None, raw.source
            out.append(o)
            by_index.setdefault(g.index, o)
    for o, index in firmware_only:
        if by_index:  # the same amd-smi numbering: the firmware belongs to that GPU
            if index in by_index and not by_index[index].firmware:
                by_index[index].firmware, by_index[index].firmware_source = o.firmware, o.firmware_source
        else:  # only the firmware output: it still shows an AMD GPU
            batches.append([o])
    return batches


def _rocm_smi_obs(source: Source, system: System) -> List[List[Obs]]:
    batches: List[List[Obs]] = []
    for raw, res in sh.parsed(source, system, "rocm-smi", _rocm_smi_parse):
        batch = []
        for g in res.gpus:
            o = Obs(tool="rocm-smi", source=raw.source, vendor_id="1002", is_amd=True)
            o.device_id = g.device_id
            o.revision = g.revision
            o.bdf = g.bdf
            o.kfd_node = g.node
            o.gfx_target = g.gfx_target
            o.name = g.name
            o.series = g.series
            o.vram_bytes = g.vram_bytes
            batch.append(o)
        if batch:
            batches.append(batch)
    return batches


def _lspci_obs(source: Source, system: System) -> List[List[Obs]]:
    batches = []
    for raw, res in sh.parsed(source, system, "lspci", _lspci_parse):
        batch = []
        for d in res.gpus:
            o = Obs(tool="lspci", source=raw.source)
            o.vendor_id = d.vendor_id or ({"AMD": "1002", "NVIDIA": "10de", "Intel": "8086"}.get(d.vendor or ""))
            o.is_amd = d.is_amd if (d.vendor_id or d.vendor_name) else None
            o.device_id = d.device_id
            o.revision = d.revision
            o.bdf = d.bdf
            o.bdf_domain_known = bool(re.match(r"^(Slot:\s*)?[0-9a-fA-F]{4,8}:[0-9a-fA-F]{2}:", d.line or ""))
            o.series = d.device_name
            o.driver = d.driver
            o.class_id = d.class_id
            if d.unclaimed:
                o.unclaimed = "%s / Kernel modules: %s (no 'Kernel driver in use')" % (d.line, ", ".join(d.modules))
            batch.append(o)
        if batch:
            batches.append(batch)
    return batches


def _lshw_obs(source: Source, system: System) -> List[List[Obs]]:
    batches = []
    for raw, res in sh.parsed(source, system, "lshw", sh.parse_lshw):
        batch = []
        for d in res.devices:
            o = Obs(tool="lshw", source=raw.source)
            o.is_amd = d.is_amd if (d.vendor or d.vendor_id) else None
            o.vendor_id = d.vendor_id or ("1002" if d.is_amd else None)
            o.device_id = d.device_id
            o.revision = d.revision
            o.bdf = d.bdf
            o.series = d.product_name
            o.driver = d.driver
            if d.claimed is False:
                o.unclaimed = " / ".join(x for x in (d.line, "product: %s" % d.product if d.product else "") if x)
            batch.append(o)
        if batch:
            batches.append(batch)
    return batches


def _collect_env_obs(source: Source, system: System) -> List[List[Obs]]:
    try:
        from ..parsers import collect_env
    except ImportError:
        return []
    batches = []
    for raw, res in sh.parsed(source, system, "collect_env", collect_env.parse):
        batch = []
        for g in getattr(res, "gpus", []) or []:
            name = getattr(g, "name", None)
            gfx = getattr(g, "gfx_target", None)
            if not name and not gfx:
                continue
            o = Obs(tool="collect_env", source=raw.source)
            low = (name or "").lower()
            if "nvidia" in low or "geforce" in low or "tesla" in low or "quadro" in low:
                o.is_amd, o.vendor_id = False, "10de"
            elif "intel" in low and not gfx:
                o.is_amd, o.vendor_id = False, "8086"
            elif gfx or "amd" in low or "radeon" in low or "instinct" in low:
                o.is_amd, o.vendor_id = True, "1002"
            o.name = name
            o.gfx_target = gfx
            feat = getattr(g, "isa_features", None)
            if gfx:
                o.isa = "amdgcn-amd-amdhsa--%s%s" % (gfx, feat or "")
            batch.append(o)
        if batch:
            batches.append(batch)
    return batches


_TARGET_ONLY_HOWS = ("#rocblas", "#unsloth")


def _paste_obs(source: Source, system: System) -> List[List[Obs]]:
    """GPUs named by single lines anywhere in the pastes: kernel log (amdgpu/kfd), PyTorch's
    device properties, llama.cpp and ComfyUI start-up lines (see parsers/paste_facts.py)."""
    from ._core_util import paste_label, pastes

    batch: List[Obs] = []
    pci_lines: List[Obs] = []
    seen = set()
    for name, text in pastes(source):
        for pg in paste_facts.parse_cached(text).gpus:
            key = (pg.how, pg.bdf, pg.device_id, pg.name, pg.gfx_target, pg.skipped, pg.card)
            if key in seen:
                continue
            seen.add(key)
            o = Obs(tool="paste", source=paste_label(name, pg.how), vendor_id="1002", is_amd=True)
            o.bdf = pg.bdf
            o.device_id = pg.device_id
            o.revision = pg.revision
            o.gfx_target = pg.gfx_target
            o.name = pg.name
            if pg.gfx_target:
                o.isa = "amdgcn-amd-amdhsa--%s%s" % (pg.gfx_target, pg.isa_features or "")
            (pci_lines if pg.how == "lspci-line" else batch).append(o)
    # (s13-heldbe) a line that names only a target (a library's failed load of its kernel file for the device's
    # target, an installer's summary) is no GPU of its own where another line names a GPU of that target
    named = {o.gfx_target for o in batch if o.gfx_target and (o.name or o.bdf or o.device_id)}
    batch = [o for o in batch if not (o.gfx_target in named and not (o.name or o.bdf or o.device_id))
             or not o.source.endswith(_TARGET_ONLY_HOWS)]
    # single lspci lines go first, in a batch of their own: within one batch a GPU takes one line, and
    # the line naming a GPU's address must not keep a torch or llama.cpp line off that GPU
    return [b for b in (pci_lines, batch) if b]


# an ISA name as ROCr reports an agent's (rocminfo's "Name: amdgcn-amd-amdhsa--gfx1150", with its features
# ":sramecc+:xnack-" where it has them): a GPU's own target; the generic targets ("gfx11-generic") are
# families, not a GPU (s10-heldy)
_FORM_ISA = re.compile(r"(?<![\w-])amdgcn-amd-amdhsa--(gfx\d{2,4}[a-f]?)(?=[:\s`'\",;)]|$)")


def _form_obs(source: Source) -> List[Obs]:
    """The GPU an issue form names ("### GPU" / "GPU: AMD Radeon RX 9070 XT"): a plain AMD marketing
    name, or the agents' ISA names pasted into the field (rocminfo's names, "... gfx1150
    amdgcn-amd-amdhsa--gfx1150 ..."; one GPU per distinct target); used as a last resort, when no output
    names a GPU at all."""
    from ._core_util import paste_label, pastes

    out: List[Obs] = []
    seen = set()
    for name, text in pastes(source):
        for value in issue_form.parse_cached(text).gpu:
            gname = issue_form.gpu_name(value)
            if gname and gname not in seen:
                seen.add(gname)
                out.append(Obs(tool="paste", source=paste_label(name, "issue form: GPU"), vendor_id="1002",
                               is_amd=True, name=gname))
            elif not gname and "amdgcn-amd-amdhsa--" in value:
                for gfx in dict.fromkeys(_FORM_ISA.findall(value)):
                    if ("isa", gfx) not in seen:
                        seen.add(("isa", gfx))
                        out.append(Obs(tool="paste", source=paste_label(name, "issue form: GPU (ISA name)"),
                                       vendor_id="1002", is_amd=True, gfx_target=gfx,
                                       isa="amdgcn-amd-amdhsa--%s" % gfx))
    return out


# an AMD product as people write it in titles, prose and tools without PCI ids ("AMD MI50",
# "AMD Radeon AI PRO R9700", "RX 7900 XTX", "Radeon 8060S Graphics", clinfo's "Board name:")
# (s20-rocmwin4) with the word "Series" where the marketing name has it: libdrm's data/amdgpu.ids names Polaris boards
# "AMD Radeon RX 570 Series", "AMD Radeon RX 580 Series", ..., which ROCr's agent name and so torch's
# get_device_name() print ("Radeon RX 570 Series", ROCm/ROCm#1930); the name is kept whole, the table's key ignores the word
# (s25-mi3win) an Instinct SR-IOV virtual function with its " VF": libdrm's amdgpu.ids names the MI300X's VF (0x74B5)
# "AMD Instinct MI300X VF", which ROCr's agent name, torch's get_device_name() and SGLang's check_env print
# ("GPU 0,1,2,3,4,5,6,7: AMD Instinct MI300X VF", sgl-project/sglang#3622); the GPU table knows it as its own product
_PRODUCT_MENTION = re.compile(
    r"(?<![\w/-])(?:AMD\s+)?(?:Radeon\s+(?:AI\s+)?(?:PRO\s+)?(?:RX\s*)?[A-Z]?\d{3,4}[A-Z]{0,2}(?:\s+(?:XTX|XT|GRE))?"
    r"|RX\s?\d{3,4}\s?(?:XTX|XT|GRE|[MS])?|Instinct\s+MI\d{2,3}[A-Z]{0,2}(?:\s+VF)?|MI\d{2,3}[AXL]?)(?: Series)?(?![\w/-])")


# (s14-heldcf) ggml's Vulkan backend (ggml/src/ggml-vulkan/ggml-vulkan.cpp, ggml_vk_print_gpu_info) lists each device it
# uses with its Vulkan name and driver: 'ggml_vulkan: 0 = AMD Radeon RX 7900 XTX (RADV NAVI31) | uma: 0 | fp16: 1 | ...'
# (GGML_LOG_DEBUG("ggml_vulkan: %zu = %s (%s) | uma: %d ...")), before late 2024 'Vulkan0: AMD Radeon(TM) Graphics (AMD
# proprietary driver) | uma: 1 | fp16: 1 | warp size: 64' (GGML_VK_NAME << idx << ": " << name << " (" << driver << ")"),
# the oldest without the driver.  The AMD devices only; a Direct3D12-layered device (Dozen: 'Microsoft Direct3D12 (AMD
# ...)') is the same GPU seen through another driver and is left out.
_GGML_VULKAN_DEVICE = re.compile(r"^(?:ggml_vulkan: \d{1,2} = |Vulkan\d{1,2}: )(?P<name>[^|\n]{2,120}?)"
                                 r"(?: \((?P<driver>[^()|\n]{1,60})\))? \| uma: [01]\b", re.M)


def _listed_obs(source: Source, marker: str, rx: "re.Pattern[str]", what: str, keep) -> List[Obs]:
    """The AMD GPUs a program's Vulkan device list names (``rx``'s ``name``, in pastes holding ``marker``), each once,
    at most 8: ``keep(match, name)`` says whether a listed device is an AMD GPU."""
    from ._core_util import paste_label, pastes

    out: List[Obs] = []
    seen = set()
    for name, text in pastes(source):
        if marker not in text:
            continue
        for m in rx.finditer(text[:200000]):
            dev = m.group("name").strip()
            if dev in seen or not keep(m, dev):
                continue
            seen.add(dev)
            out.append(Obs(tool="paste", source=paste_label(name, what), vendor_id="1002", is_amd=True, name=dev))
            if len(out) >= 8:
                return out
    return out


def _vulkan_obs(source: Source) -> List[Obs]:
    """The AMD GPUs ggml's Vulkan backend lists, by name: a last resort, when no tool that lists GPUs and no
    product name did (the Vulkan name gives no target)."""
    return _listed_obs(source, "| uma: ", _GGML_VULKAN_DEVICE, "ggml Vulkan device",
                       lambda m, dev: not dev.startswith("Microsoft") and bool(
                           re.search(r"\b(?:AMD|Radeon)\b", dev) or re.search(r"\bRADV\b|\bAMD\b", m.group("driver") or "")))


# (s21-appwin2) ncnn's Vulkan back-end (Tencent/ncnn src/gpu.cpp, create_gpu_instance) lists each Vulkan device it finds
# with its index and Vulkan device name: NCNN_LOGE("[%u %s]  queueC=%u[%u]  queueG=%u[%u]  queueT=%u[%u]", i,
# physicalDeviceProperties.deviceName, ...), older releases '[%u %s]  queueC=%u[%u]  queueT=%u[%u]  memU=...'; the
# applications built on it (waifu2x-ncnn-vulkan, realesrgan-ncnn-vulkan, Upscayl, RIFE) print it first.  The AMD devices
# only (a name with AMD or Radeon; a driver that names the device by its PCI ids, '[0 7360:41]', gives no name).
_NCNN_VULKAN_DEVICE = re.compile(r"^\[\d{1,2} (?P<name>[^\]\n]{2,120})\]  queueC=\d{1,2}\[\d{1,3}\]", re.M)


def _ncnn_obs(source: Source) -> List[Obs]:
    """The AMD GPUs ncnn's Vulkan back-end lists, by their Vulkan names: a last resort, when no tool that lists GPUs did
    (the list is the program's own device enumeration, more exact than a product named in passing)."""
    return _listed_obs(source, "]  queueC=", _NCNN_VULKAN_DEVICE, "ncnn Vulkan device",
                       lambda m, dev: bool(re.search(r"\b(?:AMD|Radeon)\b", dev)))


def _named_obs(source: Source) -> List[Obs]:
    """GPUs named by their AMD product name anywhere in the pastes (an issue's title, prose, clinfo,
    vulkaninfo): one per product the GPU table maps to one gfx target; a last resort, when no output
    and no issue form names a GPU (the name gives the chip's target where no PCI id is shown)."""
    from ._core_util import paste_label, pastes

    out: List[Obs] = []
    seen: Dict[str, int] = {}
    for name, text in pastes(source):
        if len(out) >= 8:
            break
        for m in _PRODUCT_MENTION.finditer(text[:200000]):
            mention = m.group(0).strip()
            gfx = gpu_catalog.gfx_of_product(mention)
            key = gpu_catalog._name_key(mention)
            # (s25-mi3win) "MI300X" in a title and "AMD Instinct MI300X VF" in an output are one product: keyed without
            # the VF, the output's VF name kept
            vf = key.endswith("vf")
            base = key[:-2] if vf else key
            if not gfx:
                continue
            if base in seen:
                if vf and not gpu_catalog._name_key(out[seen[base]].name or "").endswith("vf"):
                    out[seen[base]] = Obs(tool="paste", source=paste_label(name, "product name"), vendor_id="1002",
                                          is_amd=True, name=mention)
                continue
            seen[base] = len(out)
            out.append(Obs(tool="paste", source=paste_label(name, "product name"), vendor_id="1002", is_amd=True,
                           name=mention))
            if len(out) >= 8:
                break
    return out


def _name_from_mentions(source: Source, system: System) -> None:
    """An AMD GPU an output knows only by its target (hipInfo's gcnArchName, amdgpu-arch, a ROCm
    agent without its marketing name) takes the product name the pastes mention for that target:
    only where exactly one mentioned product maps to the target and one GPU has it (s8-heldp)."""
    unnamed = [g for g in system.gpus if g.gfx_target and not g.name and g.vendor_id in (None, "1002")]
    if not unnamed:
        return
    mentions = _named_obs(source)
    for g in unnamed:
        if sum(1 for o in system.gpus if o.gfx_target == g.gfx_target) != 1:
            continue
        fits = {o.name: o.source for o in mentions if gpu_catalog.gfx_of_product(o.name) == g.gfx_target}
        if len(fits) == 1:
            name, src = next(iter(fits.items()))
            g.put("name", name, src + " (the product named for %s)" % g.gfx_target)


def _identity_from_form(source: Source, system: System) -> None:
    """The one AMD GPU the outputs know only by its address (dmesg's "amdgpu 0000:28:00.0: ...") takes
    the product an issue form or a system-information tool names (neofetch's "GPU: AMD ATI Radeon RX
    5700 XT", inxi's "Device-1: ..."), and that product's target: only where the outputs show one AMD
    GPU and the forms name one product the GPU table maps to one target."""
    amd = [g for g in system.gpus if g.is_amd is not False and g.vendor_id in (None, "1002")]
    if len(amd) != 1 or len(system.gpus) != 1 or amd[0].name or amd[0].gfx_target:
        return
    named = {}
    for o in _form_obs(source):
        gfx = gpu_catalog.gfx_of_product(o.name) if o.name else None
        if gfx:
            named[(o.name, gfx)] = o.source
    if len(named) != 1:
        return
    (name, gfx), src = next(iter(named.items()))
    g = amd[0]
    g.put("name", name, src + " (the one AMD GPU the outputs show by address)")
    g.put("gfx_target", gfx, src + " (name '%s' in catalog:gpus.csv)" % name)
    g.notes[:] = [n for n in g.notes if not n.startswith(("gfx target unknown", "name unknown"))]


# ---------------------------------------------------------------------------------------------
# merging


def _bdf_eq(a: Obs, b_bdf: Optional[str], b_domain_known: bool) -> Optional[bool]:
    if not a.bdf or not b_bdf:
        return None
    if a.bdf_domain_known and b_domain_known:
        return a.bdf == b_bdf
    return a.bdf[-7:] == b_bdf[-7:]


def _slot_facts(slot: Slot) -> tuple:
    """(observations, address bdf, its domain known, kfd_node, device_id, revision, is_amd, gfx_target,
    name) of a slot, as :func:`_score` asks them: worked out again only when an observation was
    appended since (merging asks every slot about every observation of every tool)."""
    d = slot.__dict__
    got = d.get("_facts")
    if got is None or got[0] != len(slot.obs):
        known = slot.with_address()
        val = slot.val
        got = d["_facts"] = (len(slot.obs), known.bdf if known is not None else None,
                             known.bdf_domain_known if known is not None else True, val("kfd_node"),
                             val("device_id"), val("revision"), val("is_amd"), val("gfx_target"), val("name"))
    return got


def _score(slot: Slot, o: Obs) -> Optional[int]:
    """Match score of an observation against a GPU (None = conflicting: not the same GPU)."""
    _n, bdf, domain_known, kfd_node, device_id, revision, amd, gfx, name = _slot_facts(slot)
    score = 0
    if bdf:  # (the slot's first observation with an address)
        eq = _bdf_eq(o, bdf, domain_known)
        if eq is False:
            return None
        if eq:
            score += 100
    for mine, theirs, weight in ((o.kfd_node, kfd_node, 50), (o.device_id, device_id, 10), (o.revision, revision, 5)):
        if mine is None or theirs is None:
            continue
        if mine != theirs:
            return None
        score += weight
    if o.is_amd is not None and amd is not None and o.is_amd != amd:
        return None
    if o.gfx_target and gfx and o.gfx_target == gfx:
        score += 3
    if o.name and name and o.name == name:
        score += 2
    return score


def _merge(batches: List[List[Obs]]) -> List[Slot]:
    slots: List[Slot] = []
    for batch in batches:
        claimed: Set[int] = set()  # (asked of every slot for every observation)
        pending: List[Obs] = []
        before = len(slots)
        # strong matches first, then the rest by order
        for o in batch:
            best, best_score = None, 0
            for i, slot in enumerate(slots):
                if i in claimed:
                    continue
                s = _score(slot, o)
                if s is not None and s > best_score:
                    best, best_score = i, s
            if best is not None:
                slots[best].obs.append(o)
                claimed.add(best)
            else:
                pending.append(o)
        for o in pending:
            placed = False
            if o.tool == "paste" and not _has_identity(o) and before:
                # a line naming a GPU without its address (torch, llama.cpp, a rocm-smi csv row): the
                # GPU other tools found with the same gfx target, else the first one of unknown target
                # not claimed yet; never an extra GPU beside the ones other tools listed
                same = [i for i, s in enumerate(slots[:before])
                        if o.gfx_target and s.val("gfx_target") == o.gfx_target]
                same = [i for i in same if i not in claimed] or same
                free = [i for i, s in enumerate(slots[:before]) if i not in claimed and s.val("gfx_target") is None
                        and _score(s, o) is not None]
                target = (same or free or [None])[0]
                if target is not None:
                    slots[target].obs.append(o)
                    claimed.add(target)
                continue
            if o.tool == "paste" and not _has_identity(o):
                # only paste lines describe GPUs: one GPU per distinct line (two identical cards in a
                # rocm-smi listing are two GPUs; the same torch line twice is one)
                twin = next((i for i in range(before, len(slots)) if i not in claimed
                             and _same_line_gpu(slots[i], o)), None)
                if twin is not None:
                    slots[twin].obs.append(o)
                    continue
                slots.append(Slot(GPU(), [o]))
                claimed.add(len(slots) - 1)
                continue
            if not _has_identity(o):
                for i, slot in enumerate(slots):
                    if i in claimed or _score(slot, o) is None:
                        continue
                    if o.is_amd is None or slot.val("is_amd") in (None, o.is_amd):
                        slot.obs.append(o)
                        claimed.add(i)
                        placed = True
                        break
            elif o.is_amd and o.tool != "paste":
                # s18-helddo: an addressed AMD GPU of a later tool (lspci's line, lshw's bus info) is the GPU an
                # earlier tool listed without any address, node or device id -- rocm-smi's concise table rows
                # ('GPU  Temp (DieEdge)  AvgPwr ...', rocm_smi.py's showAllConcise: an index, no bus id) -- in
                # order, not an extra one: two cards in rocm-smi's table and lspci are two GPUs, not four
                anonymous = next((i for i, s in enumerate(slots[:before]) if i not in claimed
                                  and not any(_has_identity(x) for x in s.obs) and s.val("is_amd") is True
                                  and _score(s, o) is not None), None)
                if anonymous is not None:
                    slots[anonymous].obs.append(o)
                    claimed.add(anonymous)
                    placed = True
            if not placed:
                slots.append(Slot(GPU(), [o]))
                claimed.add(len(slots) - 1)
    return slots


def _same_line_gpu(slot: Slot, o: Obs) -> bool:
    """Whether a paste line's GPU (no address) is the slot's GPU seen by another kind of line:
    same gfx target, or a name and no conflicting target."""
    gfx = slot.val("gfx_target")
    if o.gfx_target and gfx:
        return o.gfx_target == gfx
    return not any(x.source == o.source for x in slot.obs)


def _has_identity(o: Obs) -> bool:
    return bool(o.bdf or o.kfd_node is not None or o.device_id)


# ---------------------------------------------------------------------------------------------
# filling the GPU records


def _fill(slot: Slot, cpu_names: List[str]) -> None:
    g = slot.gpu
    obs = slot.obs
    for o in obs:
        if o.vendor_id:
            g.put("vendor_id", o.vendor_id, o.source, overwrite=False)
        g.put("device_id", o.device_id, o.source, overwrite=False)
        g.put("revision", o.revision, o.source, overwrite=False)
        g.put("bdf", o.bdf if o.bdf_domain_known else None, o.source, overwrite=False)
        g.put("kfd_node", o.kfd_node, o.source, overwrite=False)
        g.put("driver", o.driver, o.source, overwrite=False)
        g.put("isa", o.isa, o.source, overwrite=False)
    if g.bdf is None:
        o = next((x for x in obs if x.bdf), None)
        if o is not None:
            g.put("bdf", o.bdf, o.source)
    amd = next((o.is_amd for o in obs if o.is_amd is not None), None)
    if amd is None and g.vendor_id:
        amd = g.vendor_id == "1002"
    g.is_amd = True if amd is None else amd
    if g.is_amd and g.vendor_id is None:
        g.vendor_id = "1002"
    if g.vendor_id and g.device_id:
        g.put("pci_id", "%s:%s" % (g.vendor_id, g.device_id), g.sources.get("device_id", ""))
    if not g.is_amd:
        _name_other(g, obs)
        g.kind = None
        return
    entry = gpu_catalog.lookup_pci(g.device_id, g.revision) if g.device_id else None
    _gfx(g, obs, entry)
    _name(g, obs, entry, cpu_names)
    if entry is not None:
        g.put("chip_family", entry.chip_family, gpu_catalog.CSV_SOURCE)
        g.put("segment", entry.segment, gpu_catalog.CSV_SOURCE)
    elif g.device_id:
        g.note("PCI device 1002:%s is not in the GPU table" % g.device_id)
    _kind(g, obs, entry)
    for o in obs:
        if o.vram_bytes:
            g.put("vram_bytes", o.vram_bytes, o.source, overwrite=False)
    if g.vram_bytes is None:
        g.note("VRAM size unknown")


def _gfx(g: GPU, obs: List[Obs], entry: Optional[gpu_catalog.GpuEntry]) -> None:
    reported = [(o.gfx_target, o.source, o.tool) for o in obs if o.gfx_target]
    if reported:
        gfx, src, _tool = reported[0]
        g.put("gfx_target", gfx, src)
        others = sorted({"%s (%s)" % (x, s) for x, s, _t in reported if x != gfx})
        if others:
            g.note("gfx target %s from %s; also reported: %s (HSA_OVERRIDE_GFX_VERSION in effect?)"
                   % (gfx, src, ", ".join(others)))
    else:
        gc = next(((o.gc_ip, o.source) for o in obs if o.gc_ip), None)
        if gc is not None:
            gfx = gpu_catalog.gfx_from_gc_ip(*gc[0])
            if gfx:
                g.put("gfx_target", gfx, "%s (IP discovery GC %d.%d.%d)" % (gc[1].replace("/major", ""), *gc[0]))
        if g.gfx_target is None and entry is not None and entry.gfx_target:
            g.put("gfx_target", entry.gfx_target, gpu_catalog.CSV_SOURCE)
        if g.gfx_target is None and entry is None:
            _gfx_by_name(g, obs)
    if g.gfx_target is None:
        g.note("gfx target unknown: no KFD node, ROCm tool output or known PCI id describes this GPU")
    elif entry is not None and entry.gfx_target and entry.gfx_target != g.gfx_target and reported:
        g.note("the PCI table lists %s for 1002:%s; ROCm reports %s" % (entry.gfx_target, g.device_id, g.gfx_target))


@functools.lru_cache(maxsize=4096)  # (every product name of the GPU table, on every name looked up)
def _name_key(name: str) -> str:
    n = re.sub(r"\s+", " ", name.strip().lstrip(".").strip())
    n = re.sub(r"^(AMD|ATI)\s+", "", n, flags=re.I)
    return n.lower()


_TIER_WORDS = lazy(r"(?:\s+(?:XTX|XT|XTA|XL|PRO|LE|GL|GL-XL|GLXT|M|MXT))+$")


def _pci_ids_chip(name: str) -> Optional[str]:
    """The kernel chip family of a pci.ids device name ('Navi 21 [Radeon RX 6800/6800 XT / 6900 XT]',
    'Arcturus GL-XL [AMD Instinct MI100]', 'Ellesmere [Radeon RX 470/480/570/570X/580/580X]'), from
    catalog/data/pci_names.csv; None for names it does not list."""
    import csv

    from ...catalog import data_path

    global _PCI_NAMES
    if _PCI_NAMES is None:
        with open(data_path("pci_names.csv"), newline="", encoding="utf-8") as fh:
            _PCI_NAMES = {r["pci_ids_name"].strip().lower(): r["chip_family"].strip() for r in csv.DictReader(fh)}
    head = name.split(" [", 1)[0].strip()
    head = re.sub(r"^(?:Advanced Micro Devices, Inc\. \[AMD/ATI\]|AMD/ATI|AMD|ATI)\s+", "", head)
    return _PCI_NAMES.get(head.lower()) or _PCI_NAMES.get(_TIER_WORDS.sub("", head).lower())


_PCI_NAMES: Optional[dict] = None


def names_to_gfx(name: str) -> Tuple[List[str], List[str]]:
    """(gfx targets, products) of the catalog's GPU table rows whose product names fit ``name``: the
    same name after 'AMD ', or -- for a name cut from the left ('...adeon 890M Graphics') -- a
    product ending with what is left.  Generic names ('Radeon Graphics') fit many rows."""
    key = _name_key(name)
    cut = name.strip().startswith("...")
    if len(key) < 4:
        return [], []
    gfx: List[str] = []
    products: List[str] = []
    chip = _pci_ids_chip(name) if not cut else None
    if chip:
        for e in gpu_catalog.all_entries():
            if e.chip_family == chip and e.gfx_target not in gfx:
                gfx.append(e.gfx_target)
        if gfx:
            return gfx, []
    for e in gpu_catalog.all_entries():
        for p in e.products:
            pk = _name_key(p)
            if pk == key or (cut and pk.endswith(key)):
                if e.gfx_target not in gfx:
                    gfx.append(e.gfx_target)
                if p not in products:
                    products.append(p)
    return gfx, products


def _gfx_by_name(g: GPU, obs: List[Obs]) -> None:
    """A GPU seen only by name (lspci without -nn, amd-smi's table, a rocm-smi csv): its gfx target
    from the GPU table when the name fits one target; a note when it fits several."""
    for o in obs:
        for name in (o.name, o.series):
            if not name:
                continue
            targets, products = names_to_gfx(name)
            if not targets and gpu_catalog.gfx_of_product(name):
                # a product name the table knows under one target ("AMD Instinct MI50", "RX 6500M")
                targets, products = [gpu_catalog.gfx_of_product(name)], []
            if len(targets) == 1:
                g.put("gfx_target", targets[0], "%s (name '%s' in catalog:gpus.csv)" % (o.source, name.strip()))
                if name.strip().startswith("...") and len(products) == 1:
                    o.name = products[0]  # the full name of a name cut from the left
                return
            if len(targets) > 1:
                g.note("the name '%s' fits several GPU targets in the GPU table (%s): not guessing"
                       % (name.strip(), ", ".join(targets)))
                return


def _is_cpu_name(name: str, cpu_names: List[str]) -> bool:
    n = name.strip()
    if any(n == c.strip() for c in cpu_names):
        return True
    return bool(_CPU_WORDS.search(n)) and not re.search(r"\b(Radeon|Instinct|FirePro)\b", n.replace("w/ Radeon", ""))


def _is_vendor_only(name: str) -> bool:
    n = name.strip().lower()
    return n.startswith("advanced micro devices") or n in ("amd", "ati", "amd/ati", "device") or bool(
        re.fullmatch(r"(0x)?[0-9a-f]{4}|device\s+[0-9a-f]{4}", n))


def _amd_prefix(product: str) -> str:
    return product if product.upper().startswith(("AMD", "ATI")) else "AMD " + product


def _name(g: GPU, obs: List[Obs], entry: Optional[gpu_catalog.GpuEntry], cpu_names: List[str]) -> None:
    tool_names = [(o.name.strip(), o.source) for o in obs if o.name and o.name.strip() and not _is_vendor_only(o.name)]
    series = [(o.series.strip(), o.source) for o in obs if o.series and o.series.strip() and not _is_vendor_only(o.series)]
    chosen: Optional[Tuple[str, str]] = None
    if entry is not None and entry.products and entry.segment != "apu" and (
            entry.revision is not None or len(entry.products) == 1):
        chosen = (_amd_prefix(entry.products[0]), gpu_catalog.CSV_SOURCE)
    if chosen is None:
        gpu_like = [(n, s) for n, s in tool_names if not _is_cpu_name(n, cpu_names)]
        if gpu_like:
            chosen = gpu_like[0]
    if chosen is None:
        cpu_like = [(n, s) for n, s in tool_names if _is_cpu_name(n, cpu_names)]
        if cpu_like:
            chosen = ("%s (integrated GPU)" % cpu_like[0][0], cpu_like[0][1])
    if chosen is None and series:
        chosen = series[0]
    if chosen is None and entry is not None and entry.products:
        chosen = (" / ".join(_amd_prefix(p) if i == 0 else p for i, p in enumerate(entry.products[:4])),
                  gpu_catalog.CSV_SOURCE)
    if chosen is None:
        g.note("name unknown: no tool output names this GPU")
        return
    g.put("name", chosen[0], chosen[1])
    seen = {_plain(chosen[0]), _plain(chosen[0].replace(" (integrated GPU)", ""))}
    for n, s in tool_names + series:
        if _plain(n) not in seen:
            seen.add(_plain(n))
            if _is_cpu_name(n, cpu_names):
                g.note("%s names it '%s' (the CPU's name, as ROCm does for integrated GPUs)" % (s, n))
            else:
                g.note("%s names it '%s'" % (s, n))


def _plain(name: str) -> str:
    n = name.strip().lower()
    return n[4:] if n.startswith("amd ") else n


def _name_other(g: GPU, obs: List[Obs]) -> None:
    for attr in ("name", "series"):
        for o in obs:
            v = getattr(o, attr)
            if v and not _is_vendor_only(v):
                vendor = VENDOR_NAMES.get(g.vendor_id or "", "")
                full = v if (not vendor or v.lower().startswith(vendor.lower())) else "%s %s" % (vendor, v)
                g.put("name", full, o.source)
                return
    if g.vendor_id:
        vendor = VENDOR_NAMES.get(g.vendor_id, "vendor %s" % g.vendor_id)
        g.put("name", "%s GPU %s:%s" % (vendor, g.vendor_id, g.device_id or "????"), g.sources.get("vendor_id", ""))


def _kind(g: GPU, obs: List[Obs], entry: Optional[gpu_catalog.GpuEntry]) -> None:
    for o in obs:
        if o.apu is True:
            g.put("kind", "igpu", o.source)
            return
    for o in obs:
        # rocminfo prints "Memory Properties: APU" for integrated GPUs (an empty value otherwise);
        # a KFD node without CPU cores says nothing (desktop iGPUs have their own node)
        if o.apu is False and o.tool == "rocminfo" and not (entry is not None and entry.segment == "apu"):
            g.put("kind", "dgpu", o.source)
            return
    if entry is not None:
        g.put("kind", "igpu" if entry.segment == "apu" else "dgpu", gpu_catalog.CSV_SOURCE)
        return
    g.note("integrated or discrete: unknown")


# ---------------------------------------------------------------------------------------------


def probe(source: Source, system: System) -> None:
    notes: List[str] = []
    cpu_names: List[str] = []
    done = run_jobs([
        (_sysfs_pci, (source,)),
        (_drm, (source,)),
        (_kfd, (source, system)),
        (_amd_smi_obs, (source, system)),
        (_rocminfo_obs, (source, system, cpu_names, notes)),
        (_rocm_smi_obs, (source, system)),
        (_lspci_obs, (source, system)),
        (_lshw_obs, (source, system)),
        (_collect_env_obs, (source, system)),
        (_paste_obs, (source, system)),
    ], in_parallel(source))

    def res(i: int) -> Any:
        ok, value = done[i]
        if not ok:  # pragma: no cover - defensive
            notes.append("GPU detection step failed: %s: %s" % (type(value).__name__, value))
            return []
        return value

    batches: List[List[Obs]] = []
    sysfs_obs = res(0)
    drm_obs = res(1)
    batches.append(sysfs_obs)
    batches.append([o for o in drm_obs if not any(o.bdf and o.bdf == s.bdf for s in sysfs_obs)])
    for i in range(2, 10):  # kfd, amd-smi, rocminfo, rocm-smi, lspci, lshw, collect_env, paste lines
        batches.extend(res(i))
    if not any(batches):
        batches.append(_form_obs(source))
    if not any(batches) and not any(raw.ok and raw.text.strip() for kind in ("rocminfo", "amd-smi", "lspci")
                                    for raw in sh.outputs(source, system, kind)):
        # no tool that lists GPUs was pasted (a rocminfo with only a CPU agent says ROCm sees none)
        batches.append(_ncnn_obs(source))
        if not any(batches):
            batches.append(_named_obs(source))
        if not any(batches):
            batches.append(_vulkan_obs(source))
    slots = _merge([b for b in batches if b])
    for slot in slots:
        try:
            _fill(slot, cpu_names)
        except Exception as exc:  # pragma: no cover - defensive
            slot.gpu.note("could not complete this GPU's record: %s" % exc)
        system.gpus.append(slot.gpu)
        _unclaimed(slot, system)
        _pcie_path(slot, source, system)
        _firmware(slot)
    _name_from_mentions(source, system)
    _identity_from_form(source, system)
    for n in notes:
        system.note(n)
    if not slots:
        why = []
        for kind in ("rocminfo", "amd-smi", "rocm-smi", "lspci"):
            for raw in sh.outputs(source, system, kind):
                if raw.error and "not in snapshot" not in raw.error and "disabled" not in raw.error:
                    why.append(raw.error if raw.error.startswith(kind + ":") else "%s: %s" % (kind, raw.error))
        system.note("no GPU found" + (" (%s)" % "; ".join(why) if why else ""))


def _unclaimed(slot: Slot, system: System) -> None:
    """An AMD GPU that lspci -k / lshw list with no driver bound (and no other tool saw bound):
    recorded as a sighting, so the doctor quotes the tool's lines."""
    if slot.gpu.is_amd is False or slot.gpu.driver:
        return
    for o in slot.obs:
        if o.unclaimed:
            es = ErrorSighting()
            es.put("signature", "gpu_unclaimed", o.source)
            es.put("text", o.unclaimed[:500], o.source)
            system.errors.append(es)
            return


def _pcie_path(slot: Slot, source: Source, system: System) -> None:
    """From an ``lspci -t`` tree: the bridges between the root port and the GPU (a note on it)."""
    bdf = slot.gpu.bdf
    if not bdf:
        return
    for raw, res in sh.parsed(source, system, "lspci", _lspci_parse):
        path = res.path(bdf)
        if len(path) > 1:
            hops = len(path) - 2
            slot.gpu.note("PCIe path from root port %s: %s (%s)" % (
                path[0], " > ".join(path), "directly on the root port" if not hops else
                "%d bridge%s between, e.g. a PCIe switch or riser" % (hops, "s" if hops > 1 else "")) + " (%s)" % raw.source)
            return


# the firmware a GPU hang or a driver mismatch is usually read against (amd-smi firmware names)
_FW_SHOWN = ("MES", "MES_KIQ", "CP_MEC1", "CP_MEC2", "RLC", "SDMA0", "PM", "SMC", "PSP_SOSDRV", "SOS", "TA_RAS", "VCN")


def _firmware(slot: Slot) -> None:
    for o in slot.obs:
        if o.firmware:
            shown = [(k, v) for k, v in o.firmware.items() if k.upper() in _FW_SHOWN] or list(o.firmware.items())[:8]
            slot.gpu.note("firmware (%s): %s" % (o.firmware_source, ", ".join("%s %s" % kv for kv in shown)))
            return
