"""``rocminfo`` output -> HSA runtime attributes and agents.

Copes with every layout seen in the field: old (no Mwaitx/DMAbuf lines) and new (Runtime Ext
Version, XNACK, VMM, generic ISAs), trailing padding spaces or none, tmux scroll markers, a missing
``Pool Info:`` line, a run that aborted (``HSA_STATUS_ERROR_OUT_OF_RESOURCES``), and fragments such
as ``rocminfo | grep -i "Marketing Name"`` (agents with only a name; their type stays unknown).

CPU agents and NPU agents (``aie2p``, Device Type ``DSP``) are agents but not GPUs: use
:attr:`RocminfoOutput.gpus`.
"""
from __future__ import annotations

import re
from ...model import field
from typing import List, Optional

from ...model import lean_dataclass
from ._core_text import lazy
from ._paste import bdf_from_bdfid, clamp, clean_lines, int_or_none, norm_hex

KIND = "rocminfo"

_GFX = lazy(r"^gfx[0-9]{2,4}[a-z]?$")
_KV = lazy(r"^(\s*)([A-Za-z][^:]*?):+\s*(.*)$")
_ROCK = lazy(r"ROCk module(?: version (?P<ver>\S+))? is (?P<state>loaded|NOT loaded)", re.I)
_HSA_FAIL = lazy(r"(HSA_STATUS_ERROR_\w+)")
# looks_like: each pattern is tried only when its literal part is in the text
_L_AGENT = lazy(r"^\s*Agent \d+\s*$", re.M)
_L_MARKETING = lazy(r"^\s*Marketing Name:\s", re.M)
_L_DEVICE_TYPE = lazy(r"^\s*Device Type:\s+(GPU|CPU|DSP)", re.M)
_L_NAME_GFX = lazy(r"^\s*Name:\s+gfx\d", re.M)
_L_GFX_LINE = lazy(r"\s*gfx[0-9]{2,4}[a-z]?\s*")
_L_ISA = lazy(r"^\s*ISA \d", re.M)
# the ISA name and the line rocminfo prints after it (a fragment that starts inside an agent's "ISA Info")
_L_ISA_NAME = lazy(r"^\s*Name:\s+amdgcn-amd-amdhsa--gfx[0-9a-f]{3,4}\S*\s*\n\s*Machine Models:\s+HSA_MACHINE_MODEL_", re.M)
_L_SMI_GPU = lazy(r"^GPU\[\d+\]\s*:", re.M)


@lean_dataclass
class Agent:
    """One HSA agent (CPU, GPU or NPU) of ``rocminfo``."""

    index: Optional[int] = None  # "Agent 2"
    name: Optional[str] = None  # gfx1100, or the CPU's name
    uuid: Optional[str] = None
    marketing_name: Optional[str] = None
    vendor_name: Optional[str] = None
    device_type: Optional[str] = None  # CPU | GPU | DSP | None when the paste does not say
    node: Optional[int] = None  # KFD node id
    chip_id: Optional[str] = None  # PCI device id, 4 lowercase hex digits ("747e")
    asic_revision: Optional[int] = None  # ASIC stepping (not the PCI revision)
    bdf: Optional[str] = None  # from BDFID; the PCI domain is not part of it
    compute_units: Optional[int] = None
    apu: Optional[bool] = None  # "Memory Properties: APU"; None when the line is absent
    isa: List[str] = field(default_factory=list)  # amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-
    vram_bytes: Optional[int] = None  # largest GLOBAL pool (GPU agents)

    @property
    def is_gpu(self) -> bool:
        if self.device_type:
            return self.device_type.upper() == "GPU"
        # a fragment without "Device Type": only a gfx name, or an ISA of a gfx target (a CPU agent has
        # no amdgcn ISA), tells a GPU agent
        if self.name and _GFX.match(self.name):
            return True
        return self.name is None and any("amdhsa--gfx" in i for i in self.isa)

    @property
    def gfx_target(self) -> Optional[str]:
        if self.name == "gfx000":  # rocm_agent_enumerator's name for the CPU
            return None
        if self.name and _GFX.match(self.name):
            return self.name
        for isa in self.isa:
            m = re.search(r"--(gfx[0-9]{2,4}[a-z]?)(?::|$)", isa)
            if m:
                return m.group(1)
        return None


@lean_dataclass
class RocminfoOutput:
    """The runtime attributes and agents of a ``rocminfo`` output."""

    kfd_loaded: Optional[bool] = None  # "ROCk module is loaded"
    kfd_version: Optional[str] = None  # "ROCk module version 6.8.5 is loaded"
    runtime_version: Optional[str] = None  # HSA "Runtime Version: 1.14"
    runtime_ext_version: Optional[str] = None
    xnack_enabled: Optional[bool] = None
    agents: List[Agent] = field(default_factory=list)
    error: Optional[str] = None  # e.g. "HSA_STATUS_ERROR_OUT_OF_RESOURCES"
    error_line: Optional[str] = None
    complete: bool = False  # "*** Done ***" seen

    @property
    def gpus(self) -> List[Agent]:
        return [a for a in self.agents if a.is_gpu]


def looks_like(text: str) -> float:
    lines = clean_lines(text)
    if not lines:
        return 0.0
    body = "\n".join(lines[:4000])
    score = 0.0
    # (every match of _ROCK, re.I, lower-cases to "rock module": no character other than those
    # lower-cases to a letter of it or matches one under re.I, but the Kelvin sign, which gives k)
    if "rock module" in body.lower() and _ROCK.search(body):
        score += 0.5
    if "HSA System Attributes" in body:
        score += 0.4
    if "HSA Agents" in body:
        score += 0.3
    if "Agent " in body and _L_AGENT.search(body):
        score += 0.2
    if "Marketing Name:" in body and _L_MARKETING.search(body):
        score += 0.25
    if "Device Type:" in body and _L_DEVICE_TYPE.search(body):
        score += 0.2
    if "Name:" in body and _L_NAME_GFX.search(body):
        score += 0.25
    if "hsa api call failure" in body:
        score += 0.4
    # (the first non-blank line is looked at before the others are gathered)
    first = next((l for l in lines if l.strip()), None)
    if first is not None and "gfx" in first and all(_L_GFX_LINE.fullmatch(l) for l in lines if l.strip()):
        score += 0.6  # rocm_agent_enumerator
    if "amdgcn-amd-amdhsa--gfx" in body and "ISA " in body and _L_ISA.search(body):
        score += 0.2
    if "Machine Models:" in body and "amdgcn-amd-amdhsa--gfx" in body and _L_ISA_NAME.search(body):
        score += 0.3
    # other tools that print "Marketing Name" or gfx lines
    if ("GPU[" in body and _L_SMI_GPU.search(body)) or "Concise Info" in body:
        score -= 0.5
    return clamp(score)


def parse(text: str) -> RocminfoOutput:
    out = RocminfoOutput()
    try:
        _parse(text, out)
    except Exception:  # pragma: no cover - defensive: a parser never raises
        pass
    return out


_AGENT_HEAD = lazy(r"^Agent\s+(\d+)$")
_GFX_ONLY = lazy(r"^(gfx[0-9]{2,4}[a-z]?)$")
_POOL_HEAD = lazy(r"^Pool\s+\d+$")
_ISA_HEAD = lazy(r"^ISA\s+\d+$")


def _parse(text: str, out: RocminfoOutput) -> None:
    lines = clean_lines(text)
    # what no line can match when the whole (cleaned) text lacks it
    low = "\n".join(lines).lower()
    rock = "rock module" in low
    api_failure = "hsa api call failure" in low
    agent: Optional[Agent] = None
    section = "system"  # system | agent-top | pool | isa | cache | other
    pool_segment: Optional[str] = None
    for raw in lines:
        line = raw.replace("\t", "    ")
        stripped = line.strip()
        if not stripped:
            continue
        m = _ROCK.search(stripped) if rock else None
        if m:
            out.kfd_loaded = m.group("state").lower() == "loaded"
            if m.group("ver"):
                out.kfd_version = m.group("ver")
            continue
        if "*** Done ***" in stripped:
            out.complete = True
            continue
        m = _HSA_FAIL.search(stripped) if "HSA_STATUS_ERROR_" in stripped else None
        if m and ("Call returned" in stripped or "hsa api call failure" in stripped.lower() or not out.agents):
            if out.error is None or not out.error.startswith("HSA_STATUS"):
                out.error = m.group(1)
            out.error_line = out.error_line or stripped
            continue
        if api_failure and "hsa api call failure" in stripped.lower():
            out.error_line = out.error_line or stripped
            out.error = out.error or "hsa api call failure"
            continue
        if not stripped.strip("*"):  # a line of stars
            continue
        m = _AGENT_HEAD.match(stripped) if stripped[:5] == "Agent" else None
        if m:
            agent = Agent(index=int(m.group(1)))
            out.agents.append(agent)
            section = "agent-top"
            pool_segment = None
            continue
        if not stripped.strip("="):
            continue
        if agent is None or agent.index is None:
            m = _GFX_ONLY.match(stripped) if stripped[:3] == "gfx" else None
            if m:  # rocm_agent_enumerator: one target per line, gfx000 for the CPU
                out.agents.append(Agent(name=m.group(1), device_type="CPU" if m.group(1) == "gfx000" else "GPU"))
                continue
        m = _KV.match(line)
        if not m:
            # bare words: "Pool 1", "ISA 1", "x   1024(0x400)"
            if stripped[:4] == "Pool" and _POOL_HEAD.match(stripped):
                section = "pool"
                pool_segment = None
            elif stripped[:3] == "ISA" and _ISA_HEAD.match(stripped):
                section = "isa"
            continue
        indent, key, value = len(m.group(1)), m.group(2).strip(), m.group(3).strip()
        lkey = key.lower()
        if lkey == "name" and value.startswith("amdgcn-") and section != "isa":
            if agent is not None:  # an ISA name in a grep fragment
                agent.isa.append(value)
            continue
        if agent is None and section == "isa" and lkey == "name" and value.startswith("amdgcn-"):
            # a fragment that starts inside an agent's "ISA Info": the ISA names the agent's target
            agent = Agent()
            agent.isa.append(value)
            out.agents.append(agent)
            continue
        if agent is None:
            if lkey == "runtime version":
                out.runtime_version = value.split()[0] if value else None
            elif lkey == "runtime ext version":
                out.runtime_ext_version = value.split()[0] if value else None
            elif lkey == "xnack enabled":
                out.xnack_enabled = value.upper().startswith("YES")
            elif lkey in ("name", "marketing name"):
                # a grep fragment without agent headers: start a new agent on each "Name:"
                agent = Agent()
                out.agents.append(agent)
                section = "agent-top"
                _agent_key(agent, lkey, value)
            continue
        if lkey == "pool info":
            section = "pool"
            continue
        if lkey == "isa info":
            section = "isa"
            continue
        if lkey == "cache info":
            section = "cache"
            continue
        if section in ("pool",) and lkey == "segment":
            pool_segment = value.upper()
            continue
        if section == "pool" and lkey == "size" and pool_segment and pool_segment.startswith("GLOBAL"):
            kb = int_or_none(value)
            if kb is not None and "KB" in value.upper():
                size = kb * 1024
                if agent.vram_bytes is None or size > agent.vram_bytes:
                    agent.vram_bytes = size
            continue
        if section == "isa" and lkey == "name":
            if value:
                agent.isa.append(value)
            continue
        if section in ("pool", "isa") and indent <= 2 and lkey in _TOP_KEYS:
            # a line at agent level after a section whose header was lost (tmux paste)
            section = "agent-top"
        if section in ("pool", "isa"):
            # "Pool Info:" may be missing: a "Segment:" at deeper indentation still starts a pool
            if lkey == "segment":
                pool_segment = value.upper()
            continue
        if section == "cache" and indent >= 4:
            continue
        section = "agent-top"
        if lkey == "segment":  # pool line whose "Pool Info:" header was lost
            section = "pool"
            pool_segment = value.upper()
            continue
        if lkey == "name" and agent.name is not None and agent.index is None:
            # grep fragment: a second "Name:" starts the next agent
            agent = Agent()
            out.agents.append(agent)
        elif lkey == "marketing name" and agent.marketing_name is not None and agent.index is None:
            agent = Agent()
            out.agents.append(agent)
        _agent_key(agent, lkey, value)


_TOP_KEYS = {
    "name", "uuid", "marketing name", "vendor name", "feature", "profile", "node", "device type",
    "chip id", "asic revision", "bdfid", "compute unit", "memory properties", "features",
    "internal node id", "max clock freq. (mhz)", "cacheline size", "simds per cu",
}


def _agent_key(agent: Agent, lkey: str, value: str) -> None:
    if lkey == "name":
        agent.name = value or None
    elif lkey == "uuid":
        agent.uuid = value or None
    elif lkey == "marketing name":
        agent.marketing_name = value or None
    elif lkey == "vendor name":
        agent.vendor_name = value or None
    elif lkey == "device type":
        agent.device_type = value.split()[0].upper() if value else None
    elif lkey == "node":
        agent.node = int_or_none(value)
    elif lkey == "chip id":
        m = re.search(r"\(0x([0-9a-fA-F]+)\)", value)
        chip = norm_hex(m.group(1)) if m else None
        if chip is None:
            n = int_or_none(value)
            chip = norm_hex(n) if n else None
        agent.chip_id = chip if chip and chip != "0000" else None
    elif lkey == "asic revision":
        agent.asic_revision = int_or_none(value)
    elif lkey == "bdfid":
        agent.bdf = bdf_from_bdfid(value)
    elif lkey == "compute unit":
        agent.compute_units = int_or_none(value)
    elif lkey == "memory properties":
        agent.apu = "APU" in value.upper().split() if value is not None else None
