"""Plain, JSON-able results of a diagnosis (no imports beyond the standard library).

* :class:`Finding` - one known issue that applies, with the evidence that shows it;
* :class:`Recommendation` - one way out (``rocm-upgrade`` | ``torch-reinstall`` | ``docker``),
  ranked for this system, or marked as not applying with the reason;
* :class:`Diagnosis` - findings root cause first (:func:`lead_key`), recommendations best first, plus notes.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Dict, List, Optional

SEVERITIES = ("critical", "error", "warning", "info")
SEVERITY_RANK = {s: i for i, s in enumerate(SEVERITIES)}  # lower = worse
PROBLEM_SEVERITIES = ("critical", "error", "warning")  # what makes `doctor` exit with 2
PATHS = ("rocm-upgrade", "torch-reinstall", "docker")

# Which finding leads (issue 28, layer accuracy): the one whose layer the others depend on, so that a
# root cause is read before its downstream symptoms.  The running stack's dependency order: the chip's
# firmware (amdgpu cannot start the chip without its microcode: "Failed to load psp firmware!" is why
# "amdgpu_device_ip_init failed") -> the kernel driver (amdgpu, KFD) -> ROCr (HSA runtime, rocminfo)
# -> HIP (CLR) -> libraries (rocBLAS, hipBLASLt, MIOpen, RCCL) -> frameworks and apps (PyTorch,
# Triton, llama.cpp, Ollama, vLLM).  Packaging is not a layer of the running stack but the install of
# every one of them: a failed install (unmet dependencies, a DKMS build that failed, a wrong wheel)
# explains any layer that is missing or mismatched after it, so it leads.  A missing override or a
# GPU target without official code objects (runtime) is therefore read before "HIP error: invalid
# device function" (hip) where nothing else fails -- a statement of support or configuration follows the failure a
# paste shows (STATUS_RULES) --, and a missing firmware file before the driver's init failure.
ROOT_CAUSE_ORDER = ("packaging", "firmware", "kernel", "runtime", "hip", "libraries", "framework")
# catch-all findings whose layer is only inferred from the file or the prose a line came from, not
# known from the source that prints it: they follow the findings of known messages and rules
INFERRED_LAYER_RULES = ("unrecognised-failure", "failure-told-not-shown")
# statements of support status that observe no failure themselves (the host's ROCm predates the
# catalog; AMD no longer lists the GPU in the installed release, whose libraries may still carry its
# kernels): they follow the findings of observed failures and other rules, before the catch-alls
# (s11-heldaj) an unsupported GPU beside supported ones is such a statement too: it leads where nothing failing is shown,
# and follows a failure the paste shows (1000: a build's kernels refused on every GPU, the supported ones included)
# (s12-heldat) so is "this ROCm release predates the GPU" (rocm-too-old-for-gpu): the library error it may explain (1200:
# rocBLAS's missing Tensile library for gfx1103 under ROCm 6.3.2) leads, and the statement follows, as rocm-dropped-gpu's
# (s12) and the other statements of support or configuration that quote no failure line: a GPU target without an
# official build (gfx-no-official-build), the community override a GPU without native kernels takes
# (hsa-override-missing), the IOMMU/ACS settings peer-to-peer traffic needs (iommu-p2p-settings), the Windows build
# WSL's GPU path needs (wsl-windows-release), and a runtime's reported target that is not the chip's
# (reported-target-not-chip): each may explain a failure the paste shows, and each is read after it -- the failure
# names the layer the user meets (a library's missing kernels, RCCL's error, HIP's "invalid device function", the
# runtime's HSA status); where nothing failing is shown, the statement leads as before
# (s21-rock26win) so is "a preview or nightly build is in use" (preview-or-nightly-build): it names the stream the host's
# ROCm comes from and quotes no failure line, so a failure the paste shows (2603: rocprof-compute's own version detection
# under a ROCm 7.13 preview) leads and the statement follows
STATUS_RULES = ("rocm-older-than-catalog", "rocm-dropped-gpu", "mixed-gpu-left-out", "rocm-too-old-for-gpu",
                "gfx-no-official-build", "hsa-override-missing", "iommu-p2p-settings", "wsl-windows-release",
                "reported-target-not-chip", "preview-or-nightly-build")
# a known regression of an installed release whose symptom the paste shows (catalog/data/regressions.toml):
# the release is the cause of that symptom whatever layer prints it, so it leads (s8-regress)
# s9-helds: one global HSA_OVERRIDE_GFX_VERSION in a process shown several GPUs, with the GPU faults that follow
# (a shader's error interrupt the kernel reports, a memory access fault the runtime reports): the setting is their
# cause whatever layer prints them, as a release's regression is its symptom's
# likewise a GPU memory fault the paste ties to an RCCL collective: the fault is in RCCL's kernel, whichever layer's
# line (ROCr's "Memory access fault by GPU node-N") reports it
# (s12-heldat) and a GPU memory fault in a ROCm library's own driver or benchmark client (MIOpenDriver, rocblas-bench):
# the fault is in that library's kernel; a global override retargeting the one GPU when the kernel reports it faulting
CAUSE_RULES = ("known-regression", "hsa-override-every-visible-gpu", "rccl-collective-gpu-fault", "ip-discovery-on-vf",
               "library-client-gpu-fault", "hsa-override-gpu-fault")


def lead_key(finding: "Finding"):
    """Sort key of a finding in a diagnosis: problems before notes (info); among problems, a known
    regression of an installed release first (its row lists the symptom shown); then findings of
    known messages and rules before the catch-alls, and support-status statements after the findings
    of observed failures; then the root-cause layer order; then severity.
    The sort is stable, so findings equal on all of these keep the rules' order."""
    problem = 0 if finding.severity in PROBLEM_SEVERITIES else 1
    cause = 0 if finding.id in CAUSE_RULES else 1
    inferred = 1 if finding.id in INFERRED_LAYER_RULES else 0
    status = 1 if finding.id in STATUS_RULES else 0
    layer = ROOT_CAUSE_ORDER.index(finding.layer) if finding.layer in ROOT_CAUSE_ORDER else len(ROOT_CAUSE_ORDER)
    return (problem, cause, inferred, status, layer, SEVERITY_RANK.get(finding.severity, 99))


@dataclass
class Finding:
    id: str
    severity: str  # critical | error | warning | info
    title: str
    explanation: str
    evidence: List[str] = field(default_factory=list)
    fix: str = ""
    path: Optional[str] = None  # the way out that fixes it, when one does
    sources: List[str] = field(default_factory=list)  # readable citations
    source_tags: List[str] = field(default_factory=list)
    looks_at: List[str] = field(default_factory=list)
    community: bool = False  # the fix is a community setting, not AMD-supported
    layer: Optional[str] = None  # firmware | kernel | runtime | hip | libraries | framework | packaging
    next_commands: List[str] = field(default_factory=list)  # what to run to settle it, one command each

    def to_dict(self) -> Dict[str, Any]:
        return asdict(self)


@dataclass
class Recommendation:
    path: str  # rocm-upgrade | torch-reinstall | docker
    rank: Optional[int]  # 1 = best; None when it does not apply
    applies: bool
    target: Dict[str, Any] = field(default_factory=dict)  # exact versions / index URL / image tag
    why: str = ""  # why this path (or why it does not apply)
    steps: List[str] = field(default_factory=list)  # the plan's step lines (plan.outline.attach); empty before
    sources: List[str] = field(default_factory=list)
    proof: List[Dict[str, Any]] = field(default_factory=list)  # the resolver's checks: constraint, verdict, detail, sources

    def to_dict(self) -> Dict[str, Any]:
        return asdict(self)


@dataclass
class Diagnosis:
    findings: List[Finding] = field(default_factory=list)
    recommendations: List[Recommendation] = field(default_factory=list)
    notes: List[str] = field(default_factory=list)  # e.g. a rule that could not be evaluated

    @property
    def worst(self) -> Optional[str]:
        if not self.findings:
            return None
        return min((f.severity for f in self.findings), key=lambda s: SEVERITY_RANK.get(s, 99))

    @property
    def problems(self) -> List[Finding]:
        return [f for f in self.findings if f.severity in PROBLEM_SEVERITIES]

    def finding(self, rule_id: str) -> Optional[Finding]:
        return next((f for f in self.findings if f.id == rule_id), None)

    def ids(self) -> List[str]:
        return [f.id for f in self.findings]

    def recommendation(self, path: str) -> Optional[Recommendation]:
        return next((r for r in self.recommendations if r.path == path), None)

    def to_dict(self) -> Dict[str, Any]:
        return {
            "worst": self.worst,
            "findings": [f.to_dict() for f in self.findings],
            "recommendations": [r.to_dict() for r in self.recommendations],
            "notes": list(self.notes),
        }
