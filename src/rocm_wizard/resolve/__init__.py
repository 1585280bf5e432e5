"""The compatibility resolver: from a system (and an optional error log) to the ways out that
satisfy every constraint in ``catalog/data/compat.toml``, ranked by least change, each with its
proof.  No UI imports; the doctor, the TUI and ``--plan-only`` all choose through it."""
from .facts import Facts, from_system
from .model import SATISFIED, UNKNOWN, VIOLATED, Check, Resolution, WayOut
from .resolver import docker_ways, resolve, rocm_ways, torch_ways

__all__ = ["Facts", "from_system", "Check", "Resolution", "WayOut", "SATISFIED", "UNKNOWN", "VIOLATED",
           "resolve", "torch_ways", "docker_ways", "rocm_ways"]
