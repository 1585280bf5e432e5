"""From a detected system and the user's choices to a :class:`~rocm_wizard.plan.core.Plan`.

``build_plan(system, choices)`` validates the choices against the catalog and the system, derives
the values the path's recipe (``plans/<path>.toml``) needs, and instantiates its steps.  Anything
that cannot work is refused here, before any output, with a :class:`PlanError` that carries the
exit status (64: an invalid choice or combination; 1: nothing rocm-wizard can do for this system).
"""
from __future__ import annotations

import os
import re
from dataclasses import asdict, dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple
from fnmatch import fnmatchcase
from urllib.parse import urlsplit

from ..exitcodes import ERROR, NOT_APPLICABLE, SYSTEM, USAGE, refusal
from ..model import GUARD_FILE
from . import catalog_adapter as cat
from .core import Fingerprint, Plan
from .recipes import instantiate, load_recipe
from .steps import make_step
from .steps._util import SAFE_USER, check_url, check_workspace, redact_url, split_credentials

PATHS = ("rocm-upgrade", "torch-reinstall", "docker", "guard", "clean")
MIRROR_AUTH_FILE = "/etc/apt/auth.conf.d/rocm-wizard-mirror.conf"
VENV_MODES = ("new", "existing")


class PlanError(Exception):
    def __init__(self, message: str, exit_code: int = USAGE) -> None:
        super().__init__(message)
        self.message = message
        self.exit_code = exit_code


@dataclass
class Choices:
    """What the user chose; None means "decide from the catalog, the system and the diagnosis"."""

    path: Optional[str] = None
    rocm: Optional[str] = None
    torch: Optional[str] = None  # "2.4.1" or "2.4.1+rocm6.0" (the label picks the index)
    venv: Optional[str] = None
    venv_mode: Optional[str] = None  # new | existing
    image: Optional[str] = None
    dkms: Optional[bool] = True  # None: decide (Ryzen APUs and releases with no known driver repository: no)
    rocm_mirror: Optional[str] = None
    allow_http_mirror: bool = False  # an http:// --rocm-mirror (the key then comes over plain HTTP)
    allow_apt_removals: bool = False  # apt may remove packages unrelated to ROCm while installing it
    rocm_key_fingerprint: Optional[str] = None
    rocm_core_mirror: Optional[str] = None  # stands for AMD's Core SDK hosts (stable.repo.amd.com, repo.amd.com)
    rocm_core_key_fingerprint: Optional[str] = None  # the Core SDK key's (AMD publishes none)
    torch_index_url: Optional[str] = None
    pytorch_mirror: Optional[str] = None  # stands for https://download.pytorch.org/whl (same layout)
    workspace: Optional[str] = None
    user: Optional[str] = None
    env: Dict[str, str] = field(default_factory=dict)  # extra variables; "" as value drops a default
    guard: Optional[bool] = True  # torch plans pin the torch family in the venv (False: --no-guard)
    clean_items: List[str] = field(default_factory=list)  # --path clean: ids or paths picked (or "all")
    librocdxg_repo: Optional[str] = None  # stands for https://github.com/ROCm/librocdxg.git (ROCm 7.2.x under WSL)

    def to_dict(self) -> Dict[str, Any]:
        return asdict(self)


# ------------------------------------------------------------------------------ small helpers
def _gfx_targets(system) -> Tuple[List[str], List[str], List[str]]:
    """(compute targets, other targets, names) of the AMD GPUs: the discrete GPUs are the compute
    targets when there is one; an integrated GPU beside them is "other"."""
    gpus = [g for g in getattr(system, "gpus", []) or [] if g.is_amd]
    names = []
    d, i, unknown_kind = [], [], []
    for g in gpus:
        # the chip's own target (PCI id) wins over a reported one (HSA_OVERRIDE_GFX_VERSION, fallbacks)
        gfx = cat.chip_gfx(g.device_id, g.revision) or cat.normalize_gfx(g.gfx_target)
        if gfx is None and g.device_id:
            gfx = cat.gfx_of_pci(g.device_id, g.revision)
        if gfx is None:
            continue
        names.append(f"{g.name or 'AMD GPU'} ({gfx})")
        (d if g.kind == "dgpu" else i if g.kind == "igpu" else unknown_kind).append(gfx)
    if d:
        return sorted(set(d + unknown_kind)), sorted(set(i) - set(d + unknown_kind)), names
    return sorted(set(i + unknown_kind)), [], names


def _os(system):
    return getattr(system, "os", None)


def _host_rocm_of(system) -> Optional[str]:
    rocm = getattr(system, "rocm", None)
    return getattr(rocm, "version", None) or None


def _explicit(choices: Choices, path: str) -> int:
    """Exit status for a refusal about the system (no GPU, no build for it): 3 whether the path was
    asked for or the default (exitcodes.refusal: the same status ``doctor`` gives such a system)."""
    return refusal(SYSTEM)


def _user(system, choices: Choices) -> str:
    for cand in (choices.user, getattr(getattr(system, "access", None), "env", {}).get("SUDO_USER"),
                 getattr(getattr(system, "access", None), "user", None)):
        if cand and cand != "root":
            if not SAFE_USER.match(cand):
                raise PlanError(f"user name {cand!r} is not a valid user name", ERROR)
            return cand
    return ""


def _home(user: str) -> str:
    return f"/home/{user}" if user else "/root"


def _short_version(v: Optional[str]) -> Optional[str]:
    if not v:
        return None
    m = re.match(r"^(\d+)\.(\d+)(?:\.(\d+))?", str(v))
    if not m:
        return None
    return f"{m.group(1)}.{m.group(2)}.{m.group(3) or 0}"


def _vkey(v: str):
    from packaging.version import Version

    return Version(v)


def _safe_kernel(k: Optional[str]) -> Optional[str]:
    if k and re.match(r"^[A-Za-z0-9][A-Za-z0-9._+~-]*$", k):
        return k
    return None


def _system_summary(system) -> str:
    osi = _os(system)
    parts = []
    if osi is not None and (osi.pretty_name or osi.id):
        parts.append((osi.pretty_name or f"{osi.id} {osi.version_id or ''}").strip()
                     + (f", kernel {osi.kernel}" if osi.kernel else ""))
    _t, _o, names = _gfx_targets(system)
    if names:
        parts.append(", ".join(dict.fromkeys(names)))
    rocm = getattr(system, "rocm", None)
    if rocm is not None and rocm.version:
        parts.append(f"ROCm {rocm.version}")
    for env in getattr(system, "torch", []) or []:
        if env.version:
            parts.append(f"torch {env.version} in {env.path}")
            break
    return "; ".join(parts) or "unknown system"


def _fingerprint(system, extra: Dict[str, List[str]], venv: Optional[str] = None) -> Fingerprint:
    fields: Dict[str, List[str]] = {}
    unchecked: List[str] = []
    osi = _os(system)
    if osi is not None and osi.id and osi.version_id:
        fields["os"] = [f"{osi.id} {osi.version_id}"]
    else:
        unchecked.append("os")
    kernel = osi.kernel if osi is not None else None
    if kernel:
        fields["kernel"] = [kernel]
    else:
        unchecked.append("kernel")
    amd = [g for g in getattr(system, "gpus", []) or [] if g.is_amd]
    ids = [cat.norm_pci(g.device_id) for g in amd]
    if amd and all(ids) and not (osi is not None and osi.wsl):
        fields["gpus"] = [",".join(sorted(set(ids)))]
    else:
        unchecked.append("gpus")
    for k, v in extra.items():
        if v and v[0] is not None:
            fields[k] = list(dict.fromkeys(v))
        else:
            unchecked.append(k)
    return Fingerprint(fields, unchecked, venv)


# ------------------------------------------------------------------------------ the default path
def _simple_default(system) -> str:
    """The path when no diagnosis is available: a ROCm torch venv -> torch-reinstall; Ubuntu on
    bare metal -> rocm-upgrade; otherwise docker."""
    targets, _other, _names = _gfx_targets(system)
    if not targets:
        raise PlanError(_no_gpu_text(system) + ", so there is nothing to recommend. To set up a machine (or an "
                        "image) before its card is in, choose the way explicitly: --path rocm-upgrade, --path "
                        "torch-reinstall or --path docker", refusal(SYSTEM))
    if not any(cat.has_any_build(g) for g in targets):
        raise PlanError(_no_build_message(targets), refusal(SYSTEM))
    osi = _os(system)
    if any(e.build in (None, "rocm") and e.version for e in getattr(system, "torch", []) or []):
        return "torch-reinstall"
    if (cat.apt_codename(osi) or (osi is not None and osi.id == "ubuntu" and cat.core_profile(osi))) \
            and not (osi.wsl or osi.container):
        return "rocm-upgrade"
    return "docker"


def _no_build_message(targets: Sequence[str]) -> str:
    return ("no ROCm release, PyTorch wheel or AMD image is built for " + ", ".join(targets)
            + " (" + "; ".join(cat.no_build_reason(g) for g in targets) + "). rocm-wizard offers no way to set it up"
            " that it could check.")


def _no_gpu_text(system) -> str:
    amd = [g for g in getattr(system, "gpus", []) or [] if g.is_amd]
    if amd:
        names = ", ".join(dict.fromkeys(g.name or (f"PCI device {g.device_id}" if g.device_id else "AMD GPU")
                                        for g in amd))
        return f"the gfx target of the AMD GPU ({names}) is not known"
    return "no AMD GPU was found on this system (or in the snapshot)"


def gpu_warning(system, choices: Optional[Choices]) -> Optional[str]:
    """The warning a frontend shows when the user chose a path for a system without a known AMD
    GPU (a machine or an image provisioned before its card is in); None when there is a GPU or
    no explicit path (then :func:`build_plan` explains and stops)."""
    if choices is None or not choices.path or _gfx_targets(system)[0]:
        return None
    return (f"warning: {_no_gpu_text(system)}; planning {choices.path} anyway, as asked (provisioning before the "
            "card is in)")


def _require_gpu(system, choices: Choices, path: str, notes: List[str]) -> Tuple[List[str], List[str]]:
    """(compute targets, other targets).  No known GPU: refused when the path was not chosen
    explicitly; chosen, it is planned with empty targets (the callers then take the catalog's
    defaults and say so in ``notes``).  A detected GPU with no build anywhere is always refused."""
    targets, other, _ = _gfx_targets(system)
    if not targets:
        if getattr(choices, "_auto", False) or choices.path != path:
            raise PlanError(_no_gpu_text(system) + f": nothing to plan for {path}", _explicit(choices, path))
        notes.append(f"WARNING: {_no_gpu_text(system)}; planned as asked, for a machine or image set up before its "
                     "card is in: what depends on the GPU is the catalog's default, not checked against a card "
                     "(run rocm-wizard doctor once it is in)")
        return [], []
    lacking = [g for g in targets if not cat.has_any_build(g)]
    if lacking:
        raise PlanError(_no_build_message(lacking), _explicit(choices, path))
    return targets, other


# ------------------------------------------------------------------------------ rocm-upgrade
def _rocm_upgrade(system, choices: Choices, notes: List[str], recipe) -> Tuple[Dict[str, Any], Dict[str, Any],
                                                                                Fingerprint]:
    osi = _os(system)
    here = _explicit(choices, "rocm-upgrade")
    if osi is None or not osi.id:
        raise PlanError("rocm-upgrade needs to know the distribution; the snapshot does not show /etc/os-release", here)
    wsl = bool(osi.wsl)
    if wsl and not choices.rocm:
        choices = _wsl_release_choice(system, choices, here)
    if osi.container:
        raise PlanError(f"this system is a container ({osi.container}): upgrade ROCm on the host or use another "
                        "image (--path docker)", here)
    from ..catalog import zypper as _zyp  # SLES: AMD's zypper repositories (issue 26)

    if _zyp.refusal(osi):
        raise PlanError(_zyp.refusal(osi) + ": use --path torch-reinstall or --path docker", here)
    if _zyp.planned_with_zypper(osi):
        from .build_zypper import rocm_upgrade_zypper

        return rocm_upgrade_zypper(system, choices, notes, here)
    from ..catalog import rpmrepos  # dnf hosts (issue 26): their own module and recipes

    if rpmrepos.family(osi):
        from .dnfplan import rocm_upgrade_dnf

        return rocm_upgrade_dnf(system, choices, notes, here)
    codename = cat.apt_codename(osi)
    if not codename and not cat.core_profile(osi):
        raise PlanError(f"rocm-upgrade uses AMD's apt repositories for Ubuntu (and Debian 12/13 for the Core SDK); "
                        f"this system is {osi.pretty_name or osi.id} {osi.version_id or ''}".rstrip()
                        + ": use --path torch-reinstall or --path docker", here)
    targets, other = _require_gpu(system, choices, "rocm-upgrade", notes)
    if choices.rocm:
        rel = cat.rocm_release(choices.rocm)
        if rel is None:
            pre = cat.rocm_preview(choices.rocm)
            if pre is not None:
                raise PlanError(f"ROCm {pre.version} is a Core SDK {'technology preview' if pre.status == 'preview' else 'release in development'}"
                                f" ({pre.note or pre.status}): rocm-wizard installs production releases only; "
                                f"known: {', '.join(cat.rocm_versions())}")
            raise PlanError(f"unknown ROCm release {choices.rocm!r}; known: {', '.join(cat.rocm_versions())}")
        if not targets:
            notes.append(f"no GPU: ROCm {rel.version}, as chosen, is not checked against a GPU's support list")
    elif not targets:
        best = _rocm_best(system)
        rel = best.subject if best is not None else None
        if rel is None:
            raise PlanError(f"no ROCm release in the catalog is for Ubuntu {osi.version_id}", here)
        notes.append(f"no GPU: ROCm {rel.version} is the catalog's default (the newest documented release of the "
                     f"{rel.series} series for Ubuntu {osi.version_id}); choose another with --rocm")
    else:
        best = _rocm_best(system)
        rel = best.subject if best is not None else None
        if rel is None:
            raise PlanError("no ROCm release in the catalog supports " + ", ".join(targets)
                            + f" on Ubuntu {osi.version_id}", here)
        host = _short_version(getattr(system.rocm, "version", None))
        if host and _vkey(host) > _vkey(rel.version):
            same = cat.rocm_release(host)
            if same is None:
                raise PlanError(f"the host has ROCm {host}, newer than the default target {rel.version} and not in the "
                                "catalog: choose the release with --rocm", here)
            notes.append(f"the host already has ROCm {host}, newer than the default target {rel.version}: "
                         "the plan sets up that release again instead of downgrading")
            rel = same
    host = _short_version(getattr(system.rocm, "version", None))
    if choices.rocm and host and _vkey(host) > _vkey(rel.version):
        if cat.rocm_stream(host) != rel.stream:
            raise PlanError(f"the host has ROCm {host} ({cat.rocm_stream(host)}); ROCm {rel.version} ({rel.stream}) is "
                            "older: a downgrade across streams is not planned")
        notes.append(f"this is a downgrade from ROCm {host} to {rel.version}")
    if wsl:
        _wsl_rocm_check(system, rel, targets, notes, here)
    if rel.core:
        return _rocm_upgrade_core(system, choices, notes, rel, targets, other, here)
    if osi.id != "ubuntu" or not codename:
        raise PlanError(f"ROCm {rel.version} is a legacy release: AMD's legacy apt repositories serve Ubuntu releases "
                        f"the catalog knows, not {osi.pretty_name or osi.id} {osi.version_id or ''}".rstrip()
                        + ": choose a Core SDK release (--rocm 10.0) or --path torch-reinstall / docker", here)
    if rel.supports_ubuntu(osi.version_id) is False:
        raise PlanError(f"ROCm {rel.version} is for Ubuntu {' and '.join(rel.ubuntu_versions)}, "
                        f"not {osi.version_id}")
    for g in targets + other:
        st = cat.gfx_status(g, rel)
        if st.level == "official":
            continue
        if st.level == "unsupported" and g in targets:
            better = cat.official_releases(g)
            raise PlanError(f"ROCm {rel.version} lists {g} as unsupported"
                            + (f"; releases that support it: {', '.join(better[-3:])}" if better else ""))
        notes.append(f"{g} is not officially supported by ROCm {rel.version} ({st.note})" +
                     (f"; community setting: {cat.override_text(g)}" if cat.override_text(g) else ""))
    dkms = False if wsl else _dkms_choice(system, choices, rel, bool(rel.amdgpu_dir), notes)
    kernel = _safe_kernel(osi.kernel)
    if dkms and not rel.amdgpu_dir:
        raise PlanError(f"the amdgpu driver repository of ROCm {rel.version} is not known ({rel.note or 'not in the catalog'}):"
                        " pass --no-dkms (keeping the installed driver) or choose another release")
    if dkms and not kernel:
        raise PlanError("the running kernel is not known (the snapshot lacks uname -r), and amdgpu-dkms needs its "
                        "headers: pass --no-dkms or use a fuller snapshot")
    base = None
    auth: Dict[str, str] = {"path": "", "machine": "", "login": "", "password": ""}
    if choices.rocm_mirror:
        try:
            base, cred = split_credentials(check_url(choices.rocm_mirror, "--rocm-mirror").rstrip("/"))
        except ValueError as exc:
            raise PlanError(str(exc)) from None
        if cred is not None:
            # credentials go to apt's auth file (mode 0600), never into a sources file or the plan's text
            parts = urlsplit(base)
            machine = (parts.netloc + parts.path) if parts.scheme == "https" else f"{parts.scheme}://{parts.netloc}{parts.path}"
            auth = {"path": MIRROR_AUTH_FILE, "machine": machine, "login": cred[0], "password": cred[1]}
            if not cred[0] or not cred[1] or any(c.isspace() for c in cred[0] + cred[1]):
                raise PlanError(f"--rocm-mirror {redact_url(choices.rocm_mirror)}: the user name and password must be "
                                "given both, without spaces (apt's auth file format)")
        if base.startswith("http://") and not choices.allow_http_mirror:
            raise PlanError(f"--rocm-mirror {redact_url(base)} is plain http: the signing key would come over an "
                            "unauthenticated connection. Use an https (or file) mirror, or accept that the key's "
                            "fingerprint is then the only protection with --allow-http-mirror "
                            "(answers file: allow_http_mirror = true)")
    fpr = cat.rocm_key_fingerprint()
    if choices.rocm_key_fingerprint:
        from .openpgp import normalize_fingerprint

        fpr = normalize_fingerprint(choices.rocm_key_fingerprint)
        if fpr is None:
            raise PlanError(f"--rocm-key-fingerprint {choices.rocm_key_fingerprint!r} is not a 40-digit hex fingerprint")
    repo = cat.rocm_repo()
    amdgpu_arch = _adopt_amdgpu_install(system, rel, codename, base, notes)
    package_files = _repo_package_beside_legacy(system, rel, notes)
    lines = cat.rocm_apt_lines(rel, codename, base, amdgpu_arch)
    files: Dict[str, List[str]] = {}
    for path, line in lines:
        files.setdefault(path, []).append(line)
    source_files = []
    for path, ls in files.items():
        head = (f"# ROCm {rel.version} for Ubuntu {osi.version_id} ({codename}). Written whole by rocm-wizard;\n"
                "# other AMD repository entries are commented out so that only this release is configured.\n")
        source_files.append({"path": path, "content": head + "\n".join(ls) + "\n"})
    markers = cat.rocm_line_markers([cat.rocm_default_base()] + ([base] if base else []))
    secure_boot = getattr(osi, "secure_boot", None)
    data = recipe.data
    installed = dict(getattr(system.rocm, "packages", {}) or {})
    metas = [m for m in data["meta_packages"] if m in installed] or list(data["default_meta"])
    prefix = cat.rocm_package_prefix(rel.version)
    packages = [{"name": m, "version": prefix + "*"} for m in metas]
    dxg = wsl and _librocdxg_built(rel)  # ROCm 7.2.x under WSL: librocdxg built from source, no WSL runtime package
    if wsl and not dxg:  # AMD's WSL use case (amdgpu-install --usecase=wsl,rocm --no-dkms): the WSL runtime beside ROCm
        packages.append({"name": WSL_RUNTIME_PACKAGE})
    driver = []
    if dkms:
        driver = [{"name": p + kernel, "kernel_prefix": p} for p in data["kernel_packages"]]
        driver.append({"name": data["driver_package"]})
    ns = {
        "rocm": {
            "version": rel.version,
            "key_url": cat.rocm_key_url(base),
            "auth": auth,
            "key_fingerprint": fpr,
            "keyring": repo.keyring,
            "source_files": source_files,
            "markers": markers,
            "adopted_files": package_files,
            "pin_file": repo.pin_file,
            "pin_origin": repo.pin_origin,
            "pin_priority": repo.pin_priority,
            "pin_package": repo.pin_package,
            "packages": packages,
            "meta_names": ", ".join(metas + ([WSL_RUNTIME_PACKAGE] if wsl and not dxg else [])),
            "driver_packages": driver,
            "all_packages": packages + [d for d in driver if "kernel_prefix" not in d],
        },
        "flags": {"dkms": dkms, "auth": bool(auth["path"]), "allow_removals": bool(choices.allow_apt_removals),
                  "secure_boot": dkms and secure_boot is True, "librocdxg": dxg},
        "wsl": _librocdxg_ns(choices.librocdxg_repo, choices.allow_http_mirror) if dxg else {},
    }
    if wsl and not dxg:
        notes.append("WSL: no kernel driver is installed (the Windows AMD driver serves the GPU; never amdgpu-dkms "
                     f"under WSL): ROCm {rel.version}'s user space with its WSL runtime {WSL_RUNTIME_PACKAGE}, as "
                     "amdgpu-install --usecase=wsl,rocm --no-dkms installs them; on Windows, the Adrenalin driver AMD "
                     "names for this release is not installed by rocm-wizard" + _wsl_driver_note(rel.version))
    elif dxg:
        notes.append("WSL: no kernel driver is installed (the Windows AMD driver serves the GPU; never amdgpu-dkms "
                     f"under WSL): ROCm {rel.version}'s user space, as AMD's quick-start installs it with --no-dkms")
    elif not dkms:
        notes.append("--no-dkms: the installed amdgpu kernel driver is kept; ROCm's user space supports kernel "
                     "drivers up to a year apart from 6.4 on (AMD's user/kernel-space compatibility matrix)")
    notes += _old_trees(system, rel.version)
    if secure_boot and dkms:
        notes.append("Secure Boot is on: amdgpu-dkms builds a module the kernel loads only when signed by an enrolled "
                     "key (MOK); the plan stops before the driver until one is (its steps are in the plan), or plan "
                     "with --no-dkms to keep the distribution kernel's signed amdgpu")
    if fpr != cat.rocm_key_fingerprint():
        notes.append(f"signing key fingerprint given on the command line: {fpr}")
    elif cat.rocm_key_status() != "documented":
        notes.append(f"the signing key fingerprint {fpr} is {cat.rocm_key_status()} (AMD does not publish it); "
                     "check it with --rocm-key-fingerprint if you have another source")
    if base:
        notes.append(f"repositories and key from the mirror {base}")
    if auth["path"]:
        notes.append(f"the mirror's credentials (login {auth['login']}) go to {auth['path']} (mode 0600), not into "
                     "the sources files; the script asks for the password at run time (or reads "
                     "RW_MIRROR_PASSWORD), the playbook takes rw_mirror_password")
    if base and base.startswith("http://"):
        notes.append("WARNING: the mirror is plain http (--allow-http-mirror): the signing key comes over an "
                     "unauthenticated connection, and its fingerprint is then the only protection")
    if rel.note:
        notes.append(f"ROCm {rel.version}: {rel.note}")
    facts = {"rocm_release": cat.release_facts(rel), "key": {"url": cat.rocm_key_url(base), "fingerprint": fpr,
                                                            "status": cat.rocm_key_status(),
                                                            "sources": cat.rocm_key_sources()},
             "gfx_support": {g: cat.gfx_status(g, rel).level for g in targets + other}}
    if dxg:
        from ..catalog import compat, sources as _sources

        b = dict(compat.wsl_facts().get("librocdxg_build") or {})
        facts["wsl_librocdxg"] = {"repo": b.get("repo"), "ref": b.get("ref") or None, "library": b.get("library"),
                                  "tools": list(b.get("tools", [])), "cmake_min": b.get("cmake_min"),
                                  "gcc_min": b.get("gcc_min"), "needs_at_run_time": ["network", "compiler"],
                                  "windows_side": ["Windows SDK", "AMD Windows driver"],
                                  "status": b.get("status"), "sources": _sources.describe(b.get("sources", []))}
    before = _short_version(getattr(system.rocm, "version", None))
    if before is None and cat.rocm_absent(system):
        before = "none"
    fp = _fingerprint(system, {"rocm": [before, rel.version]})
    choices.rocm, choices.dkms, choices.rocm_key_fingerprint = rel.version, dkms, fpr
    choices.rocm_mirror = base
    return ns, facts, fp


def _mirror_base(url: Optional[str], option: str, allow_http: bool) -> Optional[str]:
    """A mirror URL checked (no credentials: apt's auth file is for --rocm-mirror only)."""
    if not url:
        return None
    try:
        base, cred = split_credentials(check_url(url, option).rstrip("/"))
    except ValueError as exc:
        raise PlanError(str(exc)) from None
    if cred is not None:
        raise PlanError(f"{option} {redact_url(url)}: credentials in this URL are not supported; use a mirror "
                        "without them")
    if base.startswith("http://") and not allow_http:
        raise PlanError(f"{option} {redact_url(base)} is plain http: the signing key would come over an "
                        "unauthenticated connection. Use an https (or file) mirror, or accept that the key's "
                        "fingerprint is then the only protection with --allow-http-mirror")
    return base


def apu_host(system) -> bool:
    """Every AMD GPU of the host is an integrated one (a Ryzen APU): it runs the kernel's own amdgpu
    driver (AMD's Ryzen install docs), so ROCm is installed without amdgpu-dkms."""
    from ..resolve.facts import amd_gpus

    found = amd_gpus(system)
    return bool(found) and all(g.igpu for g in found)


def _vkey_loose(version: str) -> Tuple[int, ...]:
    return tuple(int(p) if p.isdigit() else 0 for p in str(version).split(".")[:3])


def _apu_kernel_note(system, rel) -> str:
    """The kernels the Core SDK lists for Ryzen APUs on this Ubuntu release (``rel`` of that stream)
    and the APU's own floor (compat.toml [apu] kernel_min, e.g. gfx1151's KFD fixes), as a clause;
    "" when none is known."""
    from ..catalog import compat, coresdk
    from ..resolve.facts import amd_gpus

    osi = _os(system)
    short = ".".join(str(getattr(osi, "version_id", "") or "").split(".")[:2])
    parts = []
    for fam in coresdk._data().get("family_os", []):
        k = ((fam.get("kernels") or {}).get(short) if getattr(osi, "id", "") == "ubuntu"
             and getattr(rel, "series", None) in fam.get("series", []) else None)
        if k:
            parts.append(f"AMD lists kernel {k} for Ryzen APUs on Ubuntu {short}")
    gfx = {g.gfx for g in amd_gpus(system) if g.gfx}
    for row in compat.apu_facts().get("kernel_min", []):
        if row.get("gfx") in gfx:
            parts.append(f"{row['gfx']} needs at least Ubuntu HWE {row.get('ubuntu_hwe')} / OEM {row.get('ubuntu_oem')}, "
                         f"elsewhere {row.get('other')} ({row.get('status', 'documented')})")
    return (": " + "; ".join(parts)) if parts else ""


# ---------------------------------------------------------------- rocm-upgrade under WSL 2
# ROCm's 6.x WSL runtime, in the release's amdgpu repository (amdgpu-install's wsl use case)
WSL_RUNTIME_PACKAGE = "hsa-runtime-rocr4wsl-amdgpu"


def _wsl_release_choice(system, choices: Choices, here: int) -> Choices:
    """Under WSL without --rocm: the release of the WSL user space installed (rocr4wsl), when the
    catalog knows it; else a refusal that names AMD's WSL releases (the newest is not a WSL default)."""
    from ..catalog import compat

    host = _short_version(_host_rocm_of(system))
    if host and compat.wsl_generation(host) == "rocr4wsl" and cat.rocm_release(host) is not None:
        return Choices(**{**choices.to_dict(), "rocm": host})
    named = ", ".join(str(r.get("rocm")) for r in compat.wsl_facts().get("adrenalin", []))
    raise PlanError("under WSL, rocm-upgrade installs the ROCm WSL user space of a release you choose with --rocm "
                    f"(AMD's WSL releases with a named Windows driver: {named}); the newest release is not a WSL "
                    "default", here)


def _wsl_rocm_check(system, rel, targets: List[str], notes: List[str], here: int) -> None:
    """A release under WSL: the 6.x WSL runtime (rocr4wsl) is planned; librocdxg (7.2+) is built from
    source (its README) or, for 10.0, installed from GitHub release packages: said, not planned."""
    from ..catalog import compat

    gen = compat.wsl_generation(rel.version)
    if gen is None:
        raise PlanError(f"ROCm {rel.version} predates WSL support (from ROCm {compat.wsl_first_release()})", here)
    if gen != "rocr4wsl" and not _librocdxg_built(rel):
        if rel.core:  # the Core SDK: AMD lists WSL, its thunk is TheRock's own (compat.toml [wsl.core_sdk])
            why, srcs = compat.wsl_core_sdk_refusal(rel.version)
            raise PlanError(f"under WSL: {why} (sources: {', '.join(srcs)}); choose a 6.x WSL release or a 7.2.x one "
                            "(librocdxg built from source) with --rocm, or --path torch-reinstall / docker", here)
        w = compat.wsl_facts()
        raise PlanError(f"under WSL, ROCm {rel.version} reaches the GPU through librocdxg, loaded with "
                        f"{w.get('dxg_env')}, which rocm-wizard builds only for the 7.2.x releases: choose a 6.x WSL "
                        "release or a 7.2.x one (librocdxg built from source) with --rocm, or --path torch-reinstall / "
                        "docker", here)
    if gen != "rocr4wsl":
        _wsl_librocdxg_check(system, rel, targets, notes, here)
        return
    if not rel.amdgpu_dir:
        raise PlanError(f"the amdgpu repository of ROCm {rel.version}, where its WSL runtime is, is not known", here)
    missing = compat.wsl_runtime_missing(rel.version)
    if missing is not None:
        raise PlanError(f"ROCm {rel.version}'s repositories have no {WSL_RUNTIME_PACKAGE} (sources: {', '.join(missing)}): "
                        "choose another WSL release with --rocm", here)
    osi = _os(system)
    names = " ".join(str(getattr(g, "name", None) or "") for g in getattr(system, "gpus", []) or [])
    _wsl_gpus_listed(rel, targets, names, here)
    if getattr(osi, "wsl_userspace", None) == "librocdxg":
        notes.append("WSL: librocdxg is installed; the 6.x WSL runtime this plan installs does not use it")


def _wsl_gpus_listed(rel, targets: List[str], names: str, here: int) -> None:
    """Refuse a GPU target that AMD's WSL list for ``rel`` does not name (``names``: the GPUs'
    product names, for lists given per product)."""
    from ..catalog import compat

    for g in targets:
        ok, _row = compat.wsl_supports(g, rel.version, names)
        if ok is False:
            first = compat.wsl_first_listing(g, names)
            raise PlanError(f"AMD does not support {g} under WSL with ROCm {rel.version}"
                            + (f" (listed from ROCm {first.rocm_min})" if first else " (on no WSL list)"), here)


# HSA_ENABLE_DXG_DETECTION=1 for login shells (WSL opens the user's shell as a login shell)
DXG_PROFILE = "/etc/profile.d/rocm-wizard-dxg.sh"


def _librocdxg_ns(repo: Optional[str] = None, allow_http: bool = False) -> Dict[str, Any]:
    """The recipe values of the librocdxg steps (compat.toml ``[wsl.librocdxg_build]``); ``repo``:
    --librocdxg-repo, a site's copy of the repository (http only with --allow-http-mirror)."""
    from ..catalog import compat

    w = compat.wsl_facts()
    b = dict(w.get("librocdxg_build") or {})
    if repo:
        try:
            base, cred = split_credentials(check_url(repo, "--librocdxg-repo").rstrip("/"))
        except ValueError as exc:
            raise PlanError(str(exc)) from None
        if cred is not None:
            raise PlanError(f"--librocdxg-repo {redact_url(repo)}: credentials in this URL are not supported")
        if base.startswith("http://") and not allow_http:
            raise PlanError(f"--librocdxg-repo {base} is plain http: the source code root builds and installs would "
                            "come over an unauthenticated connection. Use https (or file), or accept it with "
                            "--allow-http-mirror")
        b["repo"] = base
    env = str(w.get("dxg_env", "HSA_ENABLE_DXG_DETECTION=1"))
    return {"repo": b["repo"], "ref": str(b.get("ref") or ""), "win_kits": b["win_kits"],
            "sdk_subdir": b.get("sdk_subdir", "shared"), "library": b["library"], "tools": list(b["tools"]),
            "tool_packages": [{"name": t} for t in b["tools"]], "tool_names": ", ".join(b["tools"]),
            "env_path": DXG_PROFILE, "env": env,
            "env_content": ("# Written by rocm-wizard: ROCm's runtime loads librocdxg under WSL only with this set\n"
                            f"# (librocdxg README).\nexport {env}\n")}


def _librocdxg_built(rel) -> bool:
    """Whether AMD has librocdxg built from source for ``rel`` under WSL (its README: the legacy
    7.2.x releases; compat.toml ``[wsl.librocdxg_build]``)."""
    from ..catalog import compat

    series = [str(s) for s in (compat.wsl_facts().get("librocdxg_build") or {}).get("rocm", [])]
    return not rel.core and ".".join(rel.version.split(".")[:2]) in series


def _wsl_librocdxg_check(system, rel, targets: List[str], notes: List[str], here: int) -> None:
    """ROCm 7.2.x under WSL: the GPU list of the release, then what the build needs at run time."""
    from ..catalog import compat

    names = " ".join(str(getattr(g, "name", None) or "") for g in getattr(system, "gpus", []) or [])
    _wsl_gpus_listed(rel, targets, names, here)
    w = compat.wsl_facts()
    b = w.get("librocdxg_build") or {}
    if getattr(_os(system), "wsl_userspace", None) == "rocr4wsl":
        notes.append(f"WSL: the 6.x WSL runtime ({WSL_RUNTIME_PACKAGE}) is installed; ROCm {rel.version} does not use "
                     "it (librocdxg instead)")
    notes.append(f"WSL: ROCm {rel.version} reaches the GPU through librocdxg, which AMD has you build in WSL "
                 f"(librocdxg README, {b.get('status', 'documented')}): the plan installs "
                 + ", ".join(b.get("tools", [])) + f" (CMake >= {b.get('cmake_min')}, GCC >= {b.get('gcc_min')}), "
                 f"clones {b.get('repo')} (needs the network at run time), builds it with cmake -DWIN_SDK=<the Windows "
                 f"SDK's headers under {b.get('win_kits')}/10.*/{b.get('sdk_subdir')}> and make (a compiler at run "
                 f"time), installs {b.get('library')} and sets {w.get('dxg_env')} for login shells; the Windows SDK "
                 "and AMD's Windows driver are installed on Windows, not by rocm-wizard (AMD names no driver version "
                 "for librocdxg); Windows 11 is the system librocdxg lists")


def _wsl_driver_note(version: str) -> str:
    from ..catalog import compat

    row = compat.wsl_adrenalin(version)
    return f" (AMD named Adrenalin {row.min} for ROCm {row.rocm})" if row is not None else ""


def _dkms_choice(system, choices: Choices, rel, driver_known: bool, notes: List[str]) -> bool:
    """Whether the plan installs amdgpu-dkms: as asked (--no-dkms, answers' dkms); when not asked,
    never on a Ryzen APU host (the kernel's own driver) and not where the release's driver
    repository is not known (the installed driver is kept), else yes."""
    if choices.dkms is not None:
        return bool(choices.dkms)
    if apu_host(system):
        notes.append("Ryzen APU: ROCm runs on the kernel's own amdgpu driver (AMD's Ryzen install docs), so no "
                     "amdgpu-dkms is installed (as with --no-dkms); the kernel must be new enough for the APU"
                     + _apu_kernel_note(system, rel))
        return False
    if not driver_known:
        notes.append(f"the amdgpu driver repository paired with ROCm {rel.version} is not known: the installed "
                     "kernel driver is kept (as with --no-dkms)")
        return False
    return True


def _rocm_upgrade_core(system, choices: Choices, notes: List[str], rel, targets: List[str], other: List[str],
                       here: int) -> Tuple[Dict[str, Any], Dict[str, Any], Fingerprint]:
    """The Core SDK branch of rocm-upgrade (recipe ``plans/rocm-upgrade-core.toml``)."""
    from .openpgp import normalize_fingerprint

    osi = _os(system)
    prof = cat.core_profile(osi)
    if prof is None:
        raise PlanError(f"AMD's Core SDK repositories have no profile for {osi.pretty_name or osi.id} "
                        f"{osi.version_id or ''}".rstrip(), here)
    if rel.supports_os(osi.id, osi.version_id) is False:
        oses = [f"Ubuntu {', '.join(rel.ubuntu_versions)}"] + ([f"Debian {', '.join(rel.debian)}"] if rel.debian else [])
        raise PlanError(f"ROCm {rel.version} is for {' and '.join(oses)}, not {osi.id} {osi.version_id}")
    from ..resolve.facts import amd_gpus

    gpu_names = ", ".join(dict.fromkeys(g.name for g in amd_gpus(system) if g.name))
    for g in targets + other:
        ok = cat.core_gfx_ok(rel, osi.id, g, osi.version_id, gpu_names)
        if ok:
            continue
        if ok is None and g in targets:
            notes.append(f"whether ROCm {rel.version} supports this {g} product on {osi.id} {osi.version_id} depends on "
                         "the product (AMD's per-product OS lists), and the GPU's name is not known")
            continue
        if g in targets:
            raise PlanError(f"ROCm {rel.version} does not list {g}"
                            + (f" ({gpu_names}) on Debian {osi.version_id} (AMD's per-product OS lists: Instinct only; "
                               "MI100 and MI210 none, MI250/MI250X/MI300A Debian 12, MI350P Debian 13)"
                               if osi.id == "debian" else f" on {osi.id} {osi.version_id}")
                            + "; choose another release")
        notes.append(f"{g} is not on ROCm {rel.version}'s list (the integrated GPU is left out)")
    info = cat.core_info()
    fpr_text = choices.rocm_core_key_fingerprint or info.key_fingerprint
    if not fpr_text:  # only with a catalog (overlay) that has no fingerprint
        raise PlanError(f"the Core SDK signing key's fingerprint is {info.key_fingerprint_status} in the catalog; "
                        "give the one you checked with --rocm-core-key-fingerprint FPR (answers file: "
                        "rocm_core_key_fingerprint): rocm-wizard pins it and refuses any other key. Check it on the "
                        f"key file ({cat.core_key_url(rel, None)}) with `gpg --show-keys --with-fingerprint FILE`")
    fpr = normalize_fingerprint(fpr_text)
    if fpr is None:
        raise PlanError(f"--rocm-core-key-fingerprint {fpr_text!r} is not a 40-digit hex fingerprint")
    base = _mirror_base(choices.rocm_core_mirror, "--rocm-core-mirror", choices.allow_http_mirror)
    radeon = _mirror_base(choices.rocm_mirror, "--rocm-mirror", choices.allow_http_mirror)
    dkms = _dkms_choice(system, choices, rel, bool(cat.core_driver_lines(rel, prof.codename, None))
                        and osi.id == "ubuntu", notes)
    kernel = _safe_kernel(osi.kernel)
    codename = prof.codename
    driver_lines = cat.core_driver_lines(rel, codename, radeon) if dkms else []
    if dkms and osi.id != "ubuntu":
        raise PlanError(f"the amdgpu kernel driver for the Core SDK comes from repo.radeon.com for Ubuntu only; on "
                        f"{osi.id} {osi.version_id} pass --no-dkms (keeping the installed driver)")
    if dkms and not driver_lines:
        raise PlanError(f"the amdgpu driver repository paired with ROCm {rel.version} is not known "
                        f"({rel.note or 'not in the catalog'}): pass --no-dkms (keeping the installed driver) or "
                        "choose another release")
    if dkms and not kernel:
        raise PlanError("the running kernel is not known (the snapshot lacks uname -r), and amdgpu-dkms needs its "
                        "headers: pass --no-dkms or use a fuller snapshot")
    radeon_fpr = cat.rocm_key_fingerprint()
    if choices.rocm_key_fingerprint:
        radeon_fpr = normalize_fingerprint(choices.rocm_key_fingerprint) or ""
        if not radeon_fpr:
            raise PlanError(f"--rocm-key-fingerprint {choices.rocm_key_fingerprint!r} is not a 40-digit hex fingerprint")
    path, content = cat.core_source_file(rel, prof, base)
    head = (f"# ROCm Core SDK {rel.version} ({prof.profile}). Written whole by rocm-wizard;\n"
            "# other AMD repository entries are taken out so that only this release is configured.\n")
    adopted, adopted_keyrings, adopted_by = _adopt_repo_package(system, cat.core_packages_url(rel, prof, base), path,
                                                                fpr, notes)
    source_files = [] if adopted else [{"path": path, "content": head + content}]
    for lpath, line in driver_lines:
        source_files.append({"path": lpath, "content": f"# amdgpu {rel.driver_train} kernel driver paired with ROCm "
                             f"{rel.version}. Written whole by rocm-wizard.\n{line}\n"})
    core_default = cat.core_default_bases()
    markers = cat.rocm_line_markers([cat.rocm_default_base()] + list(core_default.values())
                                    + [b for b in (base, radeon) if b])
    # apt's "origin" is the host name alone (no port, no path): seen in `apt-cache policy` output
    pin_origin = urlsplit(base or core_default[rel.repo_name]).hostname or ""
    from ..catalog.repo_moves import move_of

    moving = None if base else move_of(cat.core_key_url(rel, None))
    if moving is not None:  # a draft (preview): the plan keeps the path that serves today
        notes.append(f"{moving['from']} is announced to move to {moving['to']} ({moving['status']}, not in effect: "
                     f"{moving['note']}); this plan uses {moving['from']}, which serves today")
    names = cat.core_package_names(rel, targets)
    packages = [{"name": n, "version": rel.package_version} for n in names]
    driver = []
    if dkms:
        driver = [{"name": p + kernel, "kernel_prefix": p} for p in ("linux-headers-", "linux-modules-extra-")]
        driver.append({"name": "amdgpu-dkms"})
    repo = cat.rocm_repo()
    ns = {
        "rocm": {
            "version": rel.version, "series": rel.series, "profile": prof.profile,
            "key_url": cat.core_key_url(rel, base), "key_fingerprint": fpr, "keyring": info.keyring,
            "driver_key_url": cat.rocm_key_url(radeon), "driver_key_fingerprint": radeon_fpr,
            "driver_keyring": repo.keyring, "driver_train": rel.driver_train or "(installed)",
            "source_files": source_files, "adopted_files": adopted, "adopted_keyrings": adopted_keyrings,
            "adopted_by": adopted_by, "markers": markers, "pin_file": info.pin_file,
            "pin_content": (f"# Core SDK packages from {pin_origin} over the distribution's (written by rocm-wizard)\n"
                            f"Package: {info.pin_package}\nPin: origin \"{pin_origin}\"\n"
                            f"Pin-Priority: {info.pin_priority}\n"),
            "legacy_patterns": list(info.legacy_packages), "packages": packages, "package_names": ", ".join(names),
            "driver_packages": driver, "all_packages": packages + [d for d in driver if "kernel_prefix" not in d],
            "alternative": info.alternative, "root_link": info.root_link,
            "install_root": cat.core_install_root(rel), "version_file": cat.core_version_file(rel),
        },
        "flags": {"dkms": dkms, "auth": False, "allow_removals": bool(choices.allow_apt_removals),
                  "secure_boot": dkms and getattr(osi, "secure_boot", None) is True, "adopted": bool(adopted)},
    }
    legacy = sorted(n for n in (getattr(system.rocm, "packages", None) or {})
                    if any(fnmatchcase(n, pat) for pat in info.legacy_packages))
    if legacy:
        notes.append("the legacy ROCm packages are removed before the Core SDK is installed (AMD's transition guide): "
                     + " ".join(legacy))
    notes.append(info.pointer_note)
    notes.append(cat.core_key_note(info, fpr, bool(choices.rocm_core_key_fingerprint)))
    if not dkms:
        notes.append("--no-dkms: the installed amdgpu kernel driver is kept; AMD's window lists the 30.x and 31.x "
                     "drivers for the Core SDK user space (user/kernel-space compatibility matrix)")
    elif rel.amdgpu_dir_status and rel.amdgpu_dir_status != "documented":
        notes.append(f"the driver directory amdgpu/{rel.amdgpu_dir} is {rel.amdgpu_dir_status} from AMD's "
                     f"amdgpu-install URLs ({rel.amdgpu_install})")
    if base:
        notes.append(f"Core SDK repository and key from the mirror {base}")
    if radeon and dkms:
        notes.append(f"kernel driver repository and key from the mirror {radeon}")
    if any(b and b.startswith("http://") for b in (base, radeon)):
        notes.append("WARNING: a mirror is plain http (--allow-http-mirror): the signing key comes over an "
                     "unauthenticated connection, and its fingerprint is then the only protection")
    if rel.note:
        notes.append(f"ROCm {rel.version}: {rel.note}")
    facts = {"rocm_release": cat.release_facts(rel),
             "key": {"url": cat.core_key_url(rel, base), "fingerprint": fpr, "status": info.key_fingerprint_status,
                     "given": bool(choices.rocm_core_key_fingerprint), "source": info.key_fingerprint_source,
                     "sources": cat.describe_sources(info.key_sources)},
             "legacy_removed": legacy, "packages": names,
             "gfx_support": {g: cat.core_gfx_ok(rel, osi.id, g, osi.version_id, gpu_names) for g in targets + other}}
    before = _short_version(getattr(system.rocm, "version", None))
    if before is None and cat.rocm_absent(system):
        before = "none"
    # between the removal of the legacy packages and the install the machine has no ROCm: a state
    # this plan itself passes through, so a script run again after an interruption there goes on
    between = ["none"] if before and before != "none" and cat.rocm_stream(before) == "legacy" else []
    fp = _fingerprint(system, {"rocm": [before] + between + [rel.version]})
    choices.rocm, choices.dkms, choices.rocm_core_key_fingerprint = rel.version, dkms, fpr
    choices.rocm_core_mirror, choices.rocm_mirror = base, radeon
    if dkms and choices.rocm_key_fingerprint is None:
        choices.rocm_key_fingerprint = radeon_fpr
    ns["stream"] = "core-sdk"
    return ns, facts, fp
def _adopt_amdgpu_install(system, rel, codename: str, base: Optional[str], notes: List[str]) -> Optional[str]:
    """An amdgpu-install setup (its package, and an amdgpu.list for ``amd64,i386``): the new driver
    line keeps the architectures it had (returned, None for the default), and the notes say what
    changes and what does not (amdgpu-install itself stays at its release)."""
    rocm = getattr(system, "rocm", None)
    installer = (getattr(rocm, "packages", {}) or {}).get("amdgpu-install")
    arches: List[str] = []
    for src in getattr(rocm, "apt_sources", []) or []:
        if not src.enabled or src.repo_kind != "amdgpu" or not src.line:
            continue
        m = re.search(r"\barch=([a-z0-9,]+)", src.line)
        for a in (m.group(1).split(",") if m else []):
            if a not in arches:
                arches.append(a)
    keep = ",".join(["amd64"] + [a for a in arches if a != "amd64"]) if "i386" in arches else None
    if installer:
        url = cat.rocm_amdgpu_install_url(rel, codename, base)
        notes.append(f"amdgpu-install {installer} is installed (it wrote the AMD repository lists): this plan rewrites "
                     "amdgpu.list and rocm.list whole for ROCm " + rel.version
                     + (" and keeps the driver repository's i386 architecture (arch=" + keep + ")" if keep else "")
                     + "; amdgpu-install itself stays at its release and running it again would write that release's "
                     "lists back: install the new release's package"
                     + (f" ({url})" if url else "") + " or remove it (apt-get remove amdgpu-install)")
    elif keep:
        notes.append(f"the installed amdgpu.list names arch={keep}: the new driver line keeps i386")
    return keep


def _old_trees(system, target: str) -> List[str]:
    """Notes naming the ROCm trees under /opt other than the target's: the plan removes nothing under
    /opt.  The tree of the installed single-version packages (rocm-core at that release) is replaced
    file by file by apt's upgrade of those packages; every other (multi-version packages, a tree no
    package owns, an older leftover) stays as it is."""
    rocm = getattr(system, "rocm", None)
    core = _short_version((getattr(rocm, "packages", {}) or {}).get("rocm-core"))
    replaced, kept = [], []
    for inst in getattr(rocm, "installs", []) or []:
        path = inst.path or ""
        if not re.match(r"^/opt/rocm-\d", path):
            continue
        v = _short_version(inst.version or path[len("/opt/rocm-"):])
        if v == target:
            continue
        (replaced if core and v == core else kept).append(f"{path}" + (f" (ROCm {v})" if v else ""))
    out = []
    if replaced:
        out.append(f"{', '.join(replaced)} belongs to the installed rocm-core {core} and the packages beside it: "
                   f"upgrading them to {target} replaces its files with /opt/rocm-{target}'s (files no package owns "
                   "stay there)")
    if kept:
        out.append(f"other ROCm trees stay as they are: {', '.join(kept)}. The plan removes nothing under /opt; "
                   f"/opt/rocm will point at /opt/rocm-{target}. Remove an old tree yourself once nothing uses it "
                   "(through its packages, e.g. dpkg -S on it, then apt-get purge)")
    return out


def _rocm_best(system):
    from .. import resolve

    return resolve.rocm_ways(_facts(system)).best


def _kept_venv(system, rel, dkms: bool, notes: List[str]) -> Dict[str, Any]:
    """The venv with a ROCm torch that a ROCm upgrade leaves as it is (the upgrade changes the host,
    not a venv), with the torch the resolver picks for it against the new release (its series'
    index, the new driver's window when amdgpu-dkms is installed): what the torch way does next."""
    from dataclasses import replace

    from .. import resolve
    from ..catalog import compat

    envs = [e for e in getattr(system, "torch", []) or [] if e.path and e.build in (None, "rocm")]
    env = next((e for e in envs if e.active), envs[0] if envs else None)
    if env is None:
        return {}
    facts = _facts(system, env.path)
    new_train = compat.driver_train_of_rocm(rel.version) if dkms else None
    if dkms and compat.driver_train_of_rocm(rel.version):
        facts = replace(facts, driver_train=compat.driver_train_of_rocm(rel.version),
                        driver_source=f"the amdgpu driver of ROCm {rel.version}")
    best = resolve.torch_ways(facts, series=rel.series).best
    nxt = f"{best.subject[0].version}+{best.subject[1].name}" if best is not None else None
    # the venv's own build is the best one for the new release (a torch the old driver could not run):
    # nothing to reinstall after the upgrade, only the smoke test
    fits = best is not None and facts.torch_index == best.subject[1].name \
        and (env.version or "").split("+", 1)[0] == best.subject[0].version
    kept = {"venv": env.path, "torch_now": env.version, "torch_next": None if fits else nxt, "rocm": rel.version}
    from .after import torch_command

    cmd = torch_command(kept)
    fits_said = (f", which fits ROCm {rel.version} as it is: nothing to reinstall after the upgrade"
                 if new_train or not dkms else
                 f"; the catalog knows no driver train for ROCm {rel.version}, so whether that build runs on its "
                 "kernel driver is not known: the smoke test after the upgrade tells")
    notes.append(f"this plan changes no venv: {env.path} keeps torch {env.version or '?'}"
                 + (fits_said if fits else
                    f"; the torch way next, for ROCm {rel.version}: {cmd}" if cmd else
                    f"; no torch in the catalog fits it with ROCm {rel.version}"))
    return kept


# ------------------------------------------------------------------------------ torch-reinstall
def _pick_venv(system, choices: Choices):
    all_envs = list(getattr(system, "torch", []) or [])
    envs = [e for e in all_envs if e.path]
    if choices.venv:
        path = choices.venv
        if "\x00" in path:
            raise PlanError("--venv contains a NUL byte")
        path = os.path.normpath(os.path.abspath(path)) if not path.startswith("/") else os.path.normpath(path)
        if path.startswith("//"):
            path = "/" + path.lstrip("/")
        env = next((e for e in envs if e.path and os.path.normpath(e.path) == path), None)
        return path, env
    active = [e for e in envs if e.active and e.path]
    rocm_envs = [e for e in envs if e.path and e.build in (None, "rocm")]
    pick = active[0] if active else (rocm_envs[0] if len(rocm_envs) == 1 else (envs[0] if len(envs) == 1 else None))
    if pick is None or not pick.path:
        if envs:
            raise PlanError("several Python environments with torch were found: choose one with --venv PATH ("
                            + ", ".join(e.path or "?" for e in envs) + ")")
        if all_envs:
            raise PlanError("the snapshot shows torch but not where it is installed: give --venv PATH (an existing "
                            "venv, or a new path for a new venv)")
        raise PlanError("no venv with torch was found: give --venv PATH (a path that does not exist yet gets a new "
                        "venv)")
    return os.path.normpath(pick.path), pick


def _facts(system, venv: Optional[str] = None):
    from .. import resolve

    return resolve.from_system(system, venv=venv)


def _torch_choice(system, choices: Choices, targets: Sequence[str], notes: List[str]):
    """(TorchRelease, index name): the resolver's best way out, or the one asked for when it passes
    every constraint (kernels for the GPU, a wheel for the venv's Python, the driver window...)."""
    from .. import resolve

    facts = _facts(system, choices.venv)
    only = None
    if choices.torch:
        rel = cat.torch_release(choices.torch)
        if rel is None:
            raise PlanError(f"torch {choices.torch} is not in the catalog of PyTorch ROCm wheels; known: "
                            + ", ".join(cat.torch_versions()))
        label_index = None
        if "+" in choices.torch:
            label_index = cat.index_of_version(choices.torch)
            if label_index is None or label_index not in rel.indexes:
                raise PlanError(f"torch {rel.version} is not published on an index named "
                                f"{choices.torch.split('+', 1)[1]!r}; it is on {', '.join(rel.indexes) or 'none'}")
        if not rel.indexes:
            raise PlanError(f"no ROCm index (download.pytorch.org's or AMD's) carries torch {rel.version}")
        only = (rel.version, label_index)
    res = resolve.torch_ways(facts, only=only)
    best = res.best
    if best is None:
        if only is None:
            raise PlanError("no PyTorch ROCm wheel can be planned for this system: " + res.reason, refusal(SYSTEM))
        asked = f"{only[0]}+{only[1]}" if only[1] else only[0]
        gfx = [w.check("wheel-has-gfx") for w in res.rejected]
        if gfx and all(c is not None and c.verdict == resolve.VIOLATED for c in gfx):
            lacking = sorted({g for g in targets if all(cat.wheel_has_gfx(w.subject[0], w.subject[1], g) is False
                                                        for w in res.rejected)})
            raise PlanError(f"the torch {asked} wheels ({', '.join(w.subject[1].name for w in res.rejected)}) have no "
                            f"kernels for {', '.join(lacking or targets)}" + _better_torch(facts), refusal(SYSTEM))
        failed = dict.fromkeys(f"{c.constraint}: {c.detail}" for w in res.rejected for c in w.checks
                               if c.verdict == resolve.VIOLATED or (c.verdict == resolve.UNKNOWN and c.on_unknown == "reject"))
        raise PlanError(f"torch {asked} cannot work on this system: " + "; ".join(failed) + _better_torch(facts),
                        refusal(SYSTEM))
    rel, idx = best.subject
    if not targets:
        if choices.torch and only and not only[1]:
            notes.append(f"no GPU: the {idx.name} wheels of torch {rel.version} are the catalog's default (the resolver's "
                         f"best index for it); choose another with --torch {rel.version}+INDEX")
        elif not choices.torch:
            notes.append(f"no GPU: torch {rel.version}+{idx.name} is the catalog's default (the resolver's best "
                         "PyTorch ROCm wheels for this system); choose another with --torch VERSION+INDEX")
    for c in best.checks:
        if c.verdict != resolve.SATISFIED and not (c.constraint == "wheel-has-gfx" and not targets):
            notes.append(f"not proven ({c.constraint}): {c.detail}")
    return rel, idx.name, best


def _better_torch(facts) -> str:
    from .. import resolve

    offered = resolve.torch_ways(facts).offered
    if not offered:
        return ""
    return "; torch versions whose wheels do: " + ", ".join(w.key for w in offered[:5])


def _env_rule_names(recipe) -> List[str]:
    return [str(rule["name"]) for rule in recipe.data.get("env_rule", [])]


def _env_rules(recipe, rel, idx: str, targets: Sequence[str]) -> Dict[str, Tuple[str, List[str]]]:
    from packaging.version import Version

    out: Dict[str, Tuple[str, List[str]]] = {}
    wheel_rocm = cat.index_rocm(idx) or "0"
    for rule in recipe.data.get("env_rule", []):
        if Version(rel.version) < Version(rule["torch_min"]):
            continue
        covered = set()
        for entry in rule["hipblaslt_archs"]:
            if Version(wheel_rocm) >= Version(entry["wheel_rocm_min"]):
                covered.update(entry["gfx"])
        if any(g not in covered for g in targets):
            out[rule["name"]] = (str(rule["value"]), list(rule.get("sources", [])))
    return out


def _env_reasons(recipe, rel, idx: str, targets: Sequence[str], env_vars: Dict[str, str]) -> List[str]:
    """Why each variable the recipe's rules set is persisted, for the plan's notes (a setting written
    into a user's venv is never left unexplained): the GPUs the wheel's hipBLASLt list leaves out."""
    from packaging.version import Version

    out: List[str] = []
    wheel_rocm = cat.index_rocm(idx) or "0"
    for rule in recipe.data.get("env_rule", []):
        name = rule["name"]
        if env_vars.get(name) != str(rule["value"]) or Version(rel.version) < Version(rule["torch_min"]):
            continue
        covered = set()
        for entry in rule["hipblaslt_archs"]:
            if Version(wheel_rocm) >= Version(entry["wheel_rocm_min"]):
                covered.update(entry["gfx"])
        left = [g for g in targets if g not in covered]
        if left:
            out.append(f"{name}={rule['value']} is persisted because {', '.join(left)} is not on the hipBLASLt list "
                       f"of torch {rel.version}'s {idx} wheels, and hard hipBLASLt errors were reported on GPUs off "
                       f"that list (pytorch/pytorch#138067); it only makes PyTorch use hipBLAS instead, so it cures "
                       f"no error of hipBLAS itself (such as HIPBLAS_STATUS_ALLOC_FAILED)")
    return out


def _torch_reinstall(system, choices: Choices, notes: List[str], recipe):
    targets, other = _require_gpu(system, choices, "torch-reinstall", notes)
    rel, idx, way = _torch_choice(system, choices, targets, notes)
    if not targets:
        unset = [n for n in _env_rule_names(recipe) if n not in (choices.env or {})]
        notes.append("no GPU: the wheels' kernels are not checked against one"
                     + (f"; {', '.join(unset)} is not set (whether it is needed depends on the GPU): add it with "
                        "--env NAME=VALUE when the card needs it" if unset else ""))
    for g in other:
        if cat.wheel_has_gfx(rel, idx, g) is False:
            notes.append(f"the integrated GPU ({g}) has no kernels in these wheels: hide it from PyTorch with "
                         "HIP_VISIBLE_DEVICES if it gets in the way")
    path, env = _pick_venv(system, choices)
    mode = choices.venv_mode
    if mode is not None and mode not in VENV_MODES:
        raise PlanError(f"--venv-mode must be one of {', '.join(VENV_MODES)}")
    if env is not None and env.site_packages and os.path.normpath(env.site_packages) == path:
        raise PlanError(f"torch at {path} is installed outside a venv; rocm-wizard changes venvs only: give --venv "
                        "NEW_PATH for a new one")
    exists = env is not None
    if mode is None:
        mode = "existing" if exists else "new"
    if mode == "existing" and not exists and system.origin == "snapshot":
        notes.append(f"{path} is not among the snapshot's venvs; the script checks that it is a venv")
    python = "python3"
    if env is None and way is not None:
        c = way.check("wheel-for-python")
        if c is not None and c.verdict != "unknown":  # the distribution's python3 (resolve.facts.distro_python)
            notes.append(f"Python of the new venv: {c.detail}")
    if env is not None and env.python:
        m = re.match(r"^(\d+)\.(\d+)", env.python)
        if m:
            python = f"python{m.group(1)}.{m.group(2)}"
    label = f"{rel.version}+{cat.index_label(idx)}"
    target = path if mode == "existing" else f"{path}-torch{rel.version}-{idx}"
    amd = cat.index_is_amd(idx)
    reqs = cat.torch_requirements(rel, idx, targets)
    if amd:
        notes.append(f"AMD's index {idx}: torch and torchvision with the GPU's device extra, and the rocm pip wheels "
                     f"of ROCm {cat.index_rocm(idx)} (rocm[libraries,...]) pinned with them; pip resolves Triton from "
                     "torch's own requirements" + ("" if targets else "; no GPU known: device-all (every target)"))
        unofficial = [g for g in targets if not cat.official_build(g)]
        if unofficial:
            notes.append(f"AMD's index builds {', '.join(unofficial)} (TheRock: release ready), but no ROCm release "
                         "supports it officially: installable does not mean it works")
    elif rel.triton_requirement is None:
        notes.append(f"the catalog names no Triton pin for torch {rel.version}; pip resolves it from the index")
    index_url = cat.torch_index_url(idx)
    if choices.pytorch_mirror and amd and not choices.torch_index_url:
        notes.append(f"--pytorch-mirror stands for download.pytorch.org; AMD's index {index_url} is used (give "
                     "--torch-index-url for a mirror of it)")
    elif choices.pytorch_mirror and not choices.torch_index_url:
        try:
            mirror = check_url(choices.pytorch_mirror, "--pytorch-mirror").rstrip("/")
        except ValueError as exc:
            raise PlanError(str(exc)) from None
        index_url = cat.torch_index_url(idx, mirror)
        notes.append(f"wheels from the mirror {index_url}")
    elif not choices.torch_index_url and rel.status_on(idx) == "observed":
        # learnt by `catalog refresh`, perhaps from a mirror that download.pytorch.org does not match
        seen = [s.split(f"/{idx}/")[0] for s in rel.sources if f"/{idx}/" in s]
        if seen and not index_url.startswith(seen[0] + "/"):
            notes.append(f"torch {rel.version}+{idx} was learnt from {seen[0]}: if that is a mirror, plan with "
                         f"--pytorch-mirror {seen[0]}")
    index_cred: Tuple[str, str] = ("", "")
    if choices.torch_index_url:
        try:
            index_url, cred = split_credentials(check_url(choices.torch_index_url, "--torch-index-url").rstrip("/"))
        except ValueError as exc:
            raise PlanError(str(exc)) from None
        notes.append(f"wheels from {index_url} instead of {cat.torch_index_url(idx)}")
        if cred is not None:
            index_cred = cred
            notes.append(f"the index's credentials (login {cred[0]}) reach pip through its environment, never its "
                         "command line or the plan; the script asks for the password at run time (or reads "
                         "RW_INDEX_PASSWORD), the playbook takes rw_index_password")
    env_vars: Dict[str, str] = {}
    env_sources: Dict[str, List[str]] = {}
    for name, (value, sources) in _env_rules(recipe, rel, idx, targets).items():
        env_vars[name] = value
        env_sources[name] = sources
    ruled = dict(env_vars)
    for k, v in (choices.env or {}).items():
        if not re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", k) or not re.match(r"^[A-Za-z0-9._:/,+=-]*$", v):
            raise PlanError(f"--env {k}={v!r}: names are letters, digits and _; values plain text without spaces "
                            "or quotes")
        if v == "":
            env_vars.pop(k, None)
        else:
            env_vars[k] = v
    env_why = _env_reasons(recipe, rel, idx, targets, {k: v for k, v in env_vars.items() if ruled.get(k) == v})
    notes.extend(env_why)
    # a variable a rule already explains is not "chosen" again (a replayed answers file carries it)
    env_why += [f"{k}={v} was chosen with --env" for k, v in sorted((choices.env or {}).items())
                if v and ruled.get(k) != v]
    chosen_env = dict(env_vars)
    guard_on = choices.guard is not False
    guard_file = f"{target}/{GUARD_FILE}"
    if guard_on and re.search(r"\s", guard_file):
        guard_on = False  # pip.conf's constraint and UV_CONSTRAINT are lists split at white space
        notes.append(f"no guard: the venv's path has white space, and pip and uv split the paths of constraint "
                     f"files there (move the venv to a path without spaces to have one)")
    if guard_on:
        if "UV_CONSTRAINT" in (choices.env or {}):
            uv_word = "uv (as --env UV_CONSTRAINT says)"
        elif re.match(r"^[A-Za-z0-9._:/,+=-]*$", guard_file):
            env_vars.setdefault("UV_CONSTRAINT", guard_file)
            env_sources.setdefault("UV_CONSTRAINT", ["uv-constraint-env"])
            env_why.append("UV_CONSTRAINT makes uv keep the guard's pins (uv reads it, not pip.conf)")
            uv_word = "uv (UV_CONSTRAINT in bin/activate)"
        else:
            uv_word = f"uv (with UV_CONSTRAINT={guard_file} set by hand)"
        notes.append(f"the venv is guarded: pip (its pip.conf) and {uv_word} keep "
                     f"{cat.torch_constraints(reqs)[0]} and its companions ({guard_file}); --no-guard leaves it out")
    restore = mode == "new" and exists
    # a venv made in place is a directory, not a link: the switch moves it aside, named after its torch
    # the old build names the directory it is moved to, when it is a plain version (it comes from
    # the venv's own metadata: nothing that could walk out of the directory's parent)
    old = (env.version or "").replace("+", "-") if env is not None else ""
    aside = f"{path}-torch{old}" if re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}", old) else f"{path}-previous"
    if aside == target:  # the same build again: the new venv has that name
        aside += "-previous"
    triton_dist = rel.triton_dist or ""
    ns = {
        "torch": {"version": rel.version, "index": idx, "label": cat.index_label(idx), "requirements": reqs,
                  "index_url": index_url,
                  "constraints": cat.torch_constraints(reqs),
                  "index_login": index_cred[0], "index_password": index_cred[1],
                  "triton_dist": triton_dist,
                  "triton_strays": [d for d in recipe.data["triton_dists"] if d != triton_dist]},
        "venv": {"path": path, "target": target, "new": mode == "new", "existing": mode == "existing",
                 "python": python, "restore": restore, "aside": aside,
                 "freeze_backup": f"{path}/rocm-wizard/pip-freeze-before-torch-{label}.txt",
                 "env_file": f"{target}/rocm-wizard.env"},
        "env": {"any": bool(env_vars), "vars": env_vars,
                "text": ", ".join(f"{k}={v}" for k, v in sorted(env_vars.items())),
                "why": "; ".join(env_why) or "the variables were chosen for this plan"},
        "guard": {"on": guard_on, "file": guard_file, "text": ", ".join(cat.torch_constraints(reqs)[:3])
                  + (", ..." if len(reqs) > 3 else "")},
    }
    osi = _os(system)
    ns["wsl"] = {"hsa_remove": False, "hsa_replace_from": ""}
    if osi is not None and osi.wsl:
        from ..catalog import compat

        wsl = compat.wsl_facts()
        wheel_rocm = str(cat.index_rocm(idx) or "")
        gen = getattr(osi, "wsl_userspace", None) or compat.wsl_generation(_host_rocm_of(system))
        until = str(wsl.get("hsa_removal_until", "") or "")
        if gen == "rocr4wsl" or (gen is None and until and wheel_rocm and _vkey_loose(wheel_rocm) <= _vkey_loose(until)):
            ns["wsl"]["hsa_remove"] = True
            what = ("the host's ROCm WSL runtime is the 6.x one (rocr4wsl)" if gen else
                    f"the WSL user space was not seen; a ROCm {wheel_rocm} wheel runs only on the 6.x WSL runtime "
                    "(rocr4wsl: amdgpu-install --usecase=wsl,rocm --no-dkms, or rocm-upgrade under WSL)")
            notes.append(f"WSL: {what}: AMD's WSL steps " + str(wsl.get("hsa_removal", ""))
                         + "; the plan does it after the install")
            host = _short_version(_host_rocm_of(system))
            upto, first = str(wsl.get("hsa_replace_until", "") or ""), str(compat.wsl_first_release() or "")
            if (host and upto and first and gen == "rocr4wsl"
                    and _vkey_loose(first) <= _vkey_loose(host) and _vkey_loose(host)[:2] <= _vkey_loose(upto)[:2]):
                ns["wsl"]["hsa_replace_from"] = str(wsl.get("hsa_replace_from", ""))
                notes.append(f"WSL: the host's WSL runtime is ROCm {host}'s: AMD's WSL steps of ROCm {first} to "
                             f"{upto}.x then copy {wsl.get('hsa_replace_from')} into torch/lib as libhsa-runtime64.so "
                             f"(sources: {', '.join(wsl.get('hsa_replace_sources', []))}); the plan does it as the "
                             "venv's owner")
        else:
            notes.append(f"WSL: from ROCm {wsl.get('librocdxg_from', '7.2')} AMD's WSL runtime reaches the GPU through "
                         f"librocdxg with {wsl.get('dxg_env', 'HSA_ENABLE_DXG_DETECTION=1')} (the wheel's HSA runtime "
                         "is kept), and needs that user space on the host (--path rocm-upgrade --rocm 7.2.x under WSL "
                         "builds librocdxg); this plan does not do either")
    if env is not None and env.triton_shadow:
        notes.append(f"a stray triton directory shadows the package: {env.triton_shadow} (remove or rename it; "
                     "rocm-wizard does not delete your files)")
    if mode == "new":
        notes.append(f"the new venv is {target}; {path} becomes a symbolic link to it; the previous venv is kept "
                     f"(a venv directory at {path} is moved to {aside} first: run it as {aside}/bin/python -m ..., "
                     "its scripts still name the old path; rollback moves it back)")
    facts = {"torch": cat.torch_facts(rel, idx), "proof": way.proof(),
             "env": {k: {"value": v, "sources": cat.describe_sources(env_sources[k]) if k in env_sources
                         else ["chosen on the command line"]} for k, v in env_vars.items()}}
    before = env.version if env is not None and env.version else ("none" if not exists else None)
    fp = _fingerprint(system, {"torch": [before, label]}, venv=path)
    choices.torch, choices.venv, choices.venv_mode, choices.torch_index_url = label, path, mode, index_url
    choices.env = chosen_env
    return ns, facts, fp


# ------------------------------------------------------------------------------ guard
def guard_pins(env) -> List[str]:
    """``name==version`` of the torch family installed in ``env`` (a detected TorchEnv): torch,
    torchvision, torchaudio, its Triton distributions and the rocm wheels, with their local labels."""
    pins = [f"torch=={env.version}"]
    for name in ("torchvision", "torchaudio"):
        v = getattr(env, name, None)
        if v:
            pins.append(f"{name}=={v}")
    for d, v in sorted((env.triton or {}).items()):
        if v:
            pins.append(f"{d}=={v}")
    for d, v in sorted((env.rocm_wheels or {}).items()):
        if v and re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", d):
            pins.append(f"{d}=={v}")
    return [p for p in pins if re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*==[A-Za-z0-9.+!_-]+", p)]


def _guard_way(system, choices: Choices, notes: List[str]):
    """``--path guard``: pin what the venv has now, when that is a ROCm torch."""
    path, env = _pick_venv(system, choices)
    if env is None or not env.version:
        raise PlanError(f"no torch was found in {path}: the guard pins a torch that is installed (install one with "
                        "--path torch-reinstall, which guards it too)", NOT_APPLICABLE)
    if env.build != "rocm":
        what = f"a {env.build.upper()} build" if env.build in ("cuda", "cpu") else "a build whose kind is not known"
        raise PlanError(f"torch {env.version} in {path} is {what}: the guard keeps a ROCm build; put one in with "
                        f"--path torch-reinstall --venv {path} (which guards the venv as well)", NOT_APPLICABLE)
    guard_file = f"{path}/{GUARD_FILE}"
    if re.search(r"\s", guard_file):
        raise PlanError(f"{path} has white space in its path: pip and uv split the paths of constraint files there, "
                        "so no guard can name it (move the venv)", NOT_APPLICABLE)
    pins = guard_pins(env)
    notes.append(f"the guard pins {', '.join(pins)} (what {path} has now); pip reads it through the venv's pip.conf. "
                 f"uv reads UV_CONSTRAINT instead: export UV_CONSTRAINT={guard_file} where uv runs (the "
                 "torch-reinstall way sets it in bin/activate); a uv project's `uv sync` follows its own pyproject "
                 "([tool.uv] constraint-dependencies)")
    ns = {"venv": {"path": path},
          "torch": {"version": env.version},
          "guard": {"file": guard_file, "constraints": pins,
                    "text": ", ".join(pins[:3]) + (", ..." if len(pins) > 3 else "")}}
    facts = {"guard": {"pins": pins, "sources": cat.describe_sources(["pip-config-site", "uv-constraint-env"])}}
    fp = _fingerprint(system, {"torch": [env.version, env.version]}, venv=path)
    choices.venv = path
    return ns, facts, fp


# ------------------------------------------------------------------------------ clean
def _clean_way(system, choices: Choices, notes: List[str], user: Optional[str]):
    """``--path clean``: the list of what can go (with sizes, on this machine), one step per item
    picked with ``--clean`` (answers ``clean_items``); nothing picked, nothing removed."""
    from . import clean

    live = getattr(system, "origin", "live") == "live"
    # a tree standing for the machine's disk (the demo's host state, demo/host_state.py): read from it
    tree = getattr(system, "clean_root", None)
    held: List = []  # (item, why): trees and venvs in use (a process, a unit or shell file naming them)
    if live or tree:
        items = clean.candidates(system, user or None, tree or "/", sizes=True, apparent=bool(tree), held=held)
    else:
        items = clean.rocm_trees(system, None)
    if not live and not tree:
        notes.append("planned from a snapshot: only the old ROCm trees it shows are offered; "
                     + clean.SNAPSHOT_CANNOT)
        notes.extend(clean.snapshot_seen(system))
    chosen, unknown = clean.pick(items, choices.clean_items or [])
    # a pick of something already removed (the same answers file run again) is nothing to do; only
    # the machine itself can say so (a snapshot cannot)
    gone = [w for w in unknown if (live or tree) and clean.gone(w, tree or "/")]
    unknown = [w for w in unknown if w not in gone]
    if gone:
        notes.append(f"already gone, nothing to do: {', '.join(gone)}")
    busy = [f"{w}: {why}" for w in unknown for it, why in held if w in (it.id, it.path)]
    if busy:
        raise PlanError(f"--clean {'; '.join(busy)}: not removed while in use (stop it first)")
    if unknown:
        raise PlanError(f"--clean {', '.join(unknown)}: not on the list of what can go"
                        + (f" ({', '.join(i.id for i in items)})" if items else " (nothing can go)"))
    for it in items:
        mark = "picked" if it in chosen else "kept"
        notes.append(f"{mark}: {it.id}  {it.path}  ({it.size_text}): {it.why}")
    for it, why in held:
        notes.append(f"not offered: {it.id}  {it.path}: {why}")
    if not items and not live and not tree:
        notes.append("nothing to clean that a snapshot can tell: it shows no old ROCm tree")
    elif not items:
        notes.append("nothing to clean: no old ROCm tree, left-behind venv, cache or stale apt file was found")
    elif not chosen:
        notes.append("nothing is removed unless picked: --clean ID (repeatable, or --clean all; answers file: "
                     "clean_items = [\"ID\", ...]); deleting cannot be rolled back")
    steps = []
    for n, it in enumerate(chosen, 1):
        link = ""
        if it.kind == "venv":
            link = next((os.path.normpath(e.path) for e in getattr(system, "torch", []) or []
                         if e.path and it.path.startswith(os.path.normpath(e.path) + "-")), "")
        if it.kind == "package-leftover":
            steps.append({"kind": "purge-leftover", "id": f"clean-{n}", "title": f"Purge {it.path} ({it.size_text})",
                          "why": f"picked with --clean {it.id}: {it.why}",
                          "params": {"package": it.path, "size": it.size_text,
                                     "conffiles": (it.extra or {}).get("conffiles", [])}})
            continue
        extra = {"sha256": it.extra["sha256"], "in_use": it.extra["in_use"]} if it.extra and "sha256" in it.extra \
            else {}
        steps.append({"kind": "remove-path", "id": f"clean-{n}", "title": f"Remove {it.path} ({it.size_text})",
                      "why": f"picked with --clean {it.id}: {it.why}",
                      "params": {"path": it.path, "what": it.why, "item_kind": it.kind, "owner": it.owner or "",
                                 "link": link, "size": it.size_text, **extra}})
    text = ", ".join(i.id for i in chosen) if chosen else "nothing picked"
    ns = {"clean": {"text": text}, "extra_steps": steps}
    facts = {"clean": {"items": [{"id": i.id, "path": i.path, "kind": i.kind, "size": i.size,
                                  "picked": i in chosen, "why": i.why} for i in items]}}
    fp = _fingerprint(system, {})
    choices.clean_items = [i.id for i in chosen]
    return ns, facts, fp


# ------------------------------------------------------------------------------ docker
class _DriverWindow:
    """An image's ROCm user space against the host's amdgpu kernel driver (AMD's user/kernel
    window, catalog/data/compat.toml): the resolver's driver-window check of the docker way."""

    def __init__(self, system, ubuntu: Optional[str], python: Optional[str]) -> None:
        self.facts = _facts(system)
        self.ubuntu, self.python = ubuntu, python

    def verdict(self, tag):
        from ..resolve.resolver import check_driver_window

        return check_driver_window(self.facts, tag.rocm, f"the image {tag.tag}")

    def fits(self, tag) -> bool:
        from .. import resolve

        return self.verdict(tag).verdict != resolve.VIOLATED

    def refusal(self, tag) -> str:
        better = cat.docker_pick(None, self.ubuntu, self.python, None, self.fits)
        return (f"{self.verdict(tag).detail}: the container would run on a kernel driver outside AMD's window. "
                + (f"An image within it: --image {better.tag}" if better is not None else
                   "No known image fits it: upgrade the kernel driver (--path rocm-upgrade) first"))

    def check(self, tag, notes: List[str]) -> None:
        """Refuse an image outside the window AMD documents; note one outside a window only
        inferred, or one that cannot be checked."""
        from .. import resolve
        from ..catalog import compat

        v = self.verdict(tag)
        if v.verdict == resolve.VIOLATED:
            if compat.in_window(self.facts.driver_train, tag.rocm)[1] == "documented":
                raise PlanError(self.refusal(tag))
            notes.append(f"WARNING: {v.detail}: the container may not work on this kernel driver")
        elif v.verdict == resolve.UNKNOWN:
            notes.append(v.detail)


class _ImageKernels:
    """An image's kernels against the GPU, checked as a wheel's are: the resolver's image-gfx check
    (the image's ROCm support list, or a Core SDK tag's GPU list, intersected with what ROCm's own
    libraries of that release ship, ``[[library]]`` ``rocm``)."""

    def __init__(self, system) -> None:
        self.facts = _facts(system)

    def verdict(self, tag):
        from ..resolve.resolver import docker_checks

        return next(c for c in docker_checks(self.facts, tag) if c.constraint in ("image-gfx", "vllm-supports-gpu"))

    def fits(self, tag) -> bool:
        from .. import resolve

        return self.verdict(tag).verdict != resolve.VIOLATED

    def names_library(self, tag) -> bool:
        """Whether a library of the image's ROCm is known to lack kernels for the GPU."""
        from ..resolve.resolver import image_has_gfx

        return any(image_has_gfx(tag, g)[1] for g in self.facts.compute_targets or self.facts.compute_gfx)

    def check(self, tag, notes: List[str]) -> None:
        """Refuse an image proven to lack kernels for the GPU (naming the library when one is
        known); note one that cannot be checked."""
        from .. import resolve

        v = self.verdict(tag)
        if v.verdict == resolve.VIOLATED:
            raise PlanError(f"{v.detail}; choose another --image or --rocm, or another way out")
        if v.verdict == resolve.UNKNOWN:
            notes.append(f"not proven (image-gfx): {v.detail}")


def _docker(system, choices: Choices, notes: List[str], recipe):
    targets, other = _require_gpu(system, choices, "docker", notes)
    if not targets:
        notes.append("no GPU: the image's ROCm is not checked against a GPU's support list")
    osi = _os(system)
    host_ubuntu = osi.version_id if osi is not None and osi.id == "ubuntu" else None
    py = None
    for env in getattr(system, "torch", []) or []:
        if env.python:
            py = ".".join(env.python.split(".")[:2])
            break
    window = _DriverWindow(system, host_ubuntu, py)
    kernels = _ImageKernels(system) if targets else None
    if choices.image:
        try:
            image = cat.check_image(choices.image if "/" in choices.image.split(":")[0] or ":" not in choices.image
                                    else cat.docker_image(choices.image))
        except ValueError as exc:
            raise PlanError(str(exc)) from None
        if ":" not in image and "/" not in image:
            image = cat.docker_image(image)
        tag = cat.docker_parse(image)
        if tag is None:
            notes.append(f"{image} is not a tag the catalog knows; the GPU support of its ROCm is not checked")
    elif _facts(system).vllm and not (choices.rocm or choices.torch):
        # vLLM brings its own torch: AMD's vLLM image that the resolver finds for the GPU, or a refusal
        # that says why none fits (never a rocm/pytorch image under a vLLM workload)
        from ..resolve.resolver import docker_ways

        res = docker_ways(_facts(system))
        if res.best is None:
            raise PlanError(f"the work runs in a vLLM image or build ({_facts(system).vllm}), and no known "
                            f"{cat.docker_vllm_repository()} image fits: {res.reason}", _explicit(choices, "docker"))
        tag = res.best.subject
        image = tag.image
    else:
        # an image with kernels for the GPU (checked as wheels are) and within the driver's window
        # first; one outside the window is then refused or warned about below
        gpu_ok = kernels.fits if kernels is not None else None
        both = (lambda t: gpu_ok(t) and window.fits(t)) if gpu_ok is not None else window.fits
        tag = (cat.docker_pick(choices.rocm, host_ubuntu, py, choices.torch, both)
               or cat.docker_pick(choices.rocm, host_ubuntu, py, choices.torch, gpu_ok))
        if tag is None and kernels is not None:
            asked = ", ".join(f"{k} {v}" for k, v in (("ROCm", choices.rocm), ("torch", choices.torch)) if v)
            some = cat.docker_pick(choices.rocm, host_ubuntu, py, choices.torch)
            if some is not None:
                # the newest image's reason, and a library's where one is known to lack the kernels
                why = [kernels.verdict(some).detail]
                lib = cat.docker_pick(choices.rocm, None, None, choices.torch, kernels.names_library)
                if lib is not None:
                    why.append(kernels.verdict(lib).detail)
                raise PlanError(f"no known rocm/pytorch image{' with ' + asked if asked else ''} carries kernels for "
                                f"{', '.join(targets)}: " + "; ".join(dict.fromkeys(why)),
                                USAGE if asked else _explicit(choices, "docker"))
        if tag is None:
            asked = ", ".join(f"{k} {v}" for k, v in (("ROCm", choices.rocm), ("torch", choices.torch)) if v)
            raise PlanError("no known rocm/pytorch image has " + (asked or "a usable tag"))
        image = tag.image
    if tag is not None:
        if kernels is not None:  # the GPU first: no driver makes up for missing kernels
            kernels.check(tag, notes)
        window.check(tag, notes)
    rocm = getattr(system, "rocm", None)
    wsl = bool(osi is not None and osi.wsl)
    if wsl and targets:  # the container reaches the GPU through the host's WSL runtime: AMD's WSL GPU lists
        from ..catalog import compat

        wsl_rocm = _short_version(getattr(rocm, "version", None)) or (tag.rocm if tag is not None else None)
        names = " ".join(str(getattr(g, "name", None) or "") for g in getattr(system, "gpus", []) or [])
        for g in targets:
            ok, _row = compat.wsl_supports(g, wsl_rocm, names) if wsl_rocm else (None, None)
            if ok is False:
                first = compat.wsl_first_listing(g, names)
                raise PlanError(f"AMD does not support {g} under WSL with ROCm {wsl_rocm}"
                                + (f" (listed from ROCm {first.rocm_min})" if first else " (on no WSL list)")
                                + ": a container reaches the GPU only through the host's WSL runtime, so no image "
                                "can run on it", _explicit(choices, "docker"))
    if wsl:  # no /dev/kfd or /dev/dri under WSL 2: AMD's WSL container flags (librocdxg README)
        notes.append("WSL: the container gets /dev/dxg and the host's DXCore and librocdxg instead of /dev/kfd and "
                     f"/dev/dri; it needs {cat.docker_host_requirement(wsl=True)}")
        if getattr(osi, "wsl_userspace", None) == "rocr4wsl":
            notes.append("WSL: this host shows the ROCm 6.x WSL runtime (hsa-runtime-rocr4wsl-amdgpu), which has no "
                         "librocdxg: AMD documents WSL containers for the librocdxg user space (ROCm 7.2 or newer)")
    elif rocm is not None and rocm.amdgpu_loaded is False:
        notes.append("the amdgpu kernel driver is not loaded on this host: the container needs it "
                     f"({cat.docker_host_requirement()})")
    user = _user(system, choices)
    workspace = choices.workspace or f"{_home(user)}/rocm-workspace"
    try:
        check_workspace(workspace, "--workspace")
    except ValueError as exc:
        raise PlanError(str(exc)) from None
    apt = osi is not None and osi.id in ("ubuntu", "debian")
    vllm_image = tag is not None and bool(tag.vllm and tag.repo)
    if vllm_image:
        notes.append(f"{image} is AMD's vLLM image: vLLM runs with the torch it ships (never reinstalled under it)")
    ns = {"docker": {"image": image, "workspace": os.path.normpath(workspace),
                     "flags": list(cat.docker_run_flags(wsl=wsl)),
                     "what": "vLLM" if vllm_image else "PyTorch", "repo": image.split(":")[0]}}
    facts = {"docker": {"image": image, "tag": ({k: v for k, v in asdict(tag).items() if v or k not in ("repo", "gfx_modules")}
                                               if tag is not None else None),
                        "run_flags_sources": list(cat.docker_run_flag_sources(wsl=wsl))}}
    fp = _fingerprint(system, {})
    choices.image, choices.workspace = image, ns["docker"]["workspace"]
    return ns, facts, fp, apt


# ------------------------------------------------------------------------------ entry point
def diagnosed_ways(system, diag=None) -> List[Dict[str, Any]]:
    """The doctor's applicable ways out (it chooses through the resolver), best first, as plain
    choices ``{"path", "rocm", "torch", "image", "venv", "env", "title"}``: the one source of the
    default target for ``--plan-only`` (with or without ``--path``) and the TUI's form.  ``diag``:
    a diagnosis already made (``doctor`` plans its own ways out, error log included)."""
    if diag is None:
        try:
            from ..doctor import diagnose
        except ImportError:
            return []
        try:
            diag = diagnose(system)
        except Exception:  # the plan must not die of a doctor bug
            return []
    out = []
    for rec in getattr(diag, "recommendations", []) or []:
        if not getattr(rec, "applies", False):
            continue
        target = dict(getattr(rec, "target", {}) or {})
        choice: Dict[str, Any] = {"path": rec.path, "title": (getattr(rec, "why", "") or "").split(". ")[0]}
        if rec.path == "rocm-upgrade":
            choice["rocm"] = target.get("rocm")
        elif rec.path == "torch-reinstall":
            if target.get("torch") and target.get("index"):
                choice["torch"] = f"{target['torch']}+{cat.index_label(target['index'])}"
            choice["venv"] = target.get("venv")
            choice["env"] = target.get("env") or {}
        elif rec.path == "docker":
            choice["image"] = target.get("image")
        out.append(choice)
    return out


_TARGET_KEY = {"rocm-upgrade": "rocm", "torch-reinstall": "torch", "docker": "image", "guard": "venv",
               "clean": "path"}


def _with_diagnosis(system, c: Choices, rec: Dict[str, Any]) -> Choices:
    """``c`` with what it leaves open taken from the diagnosis' way out ``rec`` (same path)."""
    if rec.get("venv") and c.venv and os.path.normpath(c.venv) != os.path.normpath(str(rec["venv"])):
        return c  # another venv: its own Python and torch decide
    for key in ("rocm", "torch", "image", "venv"):
        if getattr(c, key) is None and rec.get(key):
            setattr(c, key, str(rec[key]))
    for k, v in (rec.get("env") or {}).items():
        c.env.setdefault(str(k), str(v))
    return c


def build_plan(system, choices: Optional[Choices] = None, diagnosis=None) -> Plan:
    """The plan for ``system`` (a :class:`~rocm_wizard.model.System`) and ``choices``.  Without a
    path it takes the diagnosis' best recommendation that can be planned (then a simple rule); when
    that is not the diagnosis' first way out, the plan says which way was taken and why
    (``Plan.way``, a note starting "WAY CHANGED").  ``diagnosis``: one already made (else the
    doctor runs here).  Raises :class:`PlanError` for anything that cannot work."""
    base = Choices(**{**(choices or Choices()).to_dict()})
    base.env = dict(base.env or {})
    if base.path is not None:
        if base.path not in PATHS:
            raise PlanError(f"unknown path {base.path!r}; choose one of {', '.join(PATHS)}")
        notes: List[str] = []
        # an image is picked by --rocm / --torch when they are given, not by the diagnosis' image
        picked = base.path == "docker" and (base.rocm or base.torch)
        if getattr(base, _TARGET_KEY[base.path]) is None and not picked:
            rec = next((r for r in diagnosed_ways(system, diagnosis) if r["path"] == base.path), None)
            if rec is not None:
                base = _with_diagnosis(system, base, rec)
                notes.append(f"target chosen by the diagnosis: {rec.get('title') or rec['path']}")
        return _build(system, base, notes)
    errors: List[str] = []
    codes: List[int] = []
    ways = diagnosed_ways(system, diagnosis)
    for rec in ways:
        c = Choices(**{**base.to_dict()})
        c.env = dict(base.env)
        c.path = rec["path"]
        c = _with_diagnosis(system, c, rec)
        object.__setattr__(c, "_auto", True)
        try:
            plan = _build(system, c, [f"path chosen by the diagnosis: {rec.get('title') or rec['path']}"])
        except PlanError as exc:
            errors.append(f"{rec['path']}: {exc.message}")
            codes.append(exc.exit_code)
            continue
        return _way_taken(plan, ways, errors, "diagnosis")
    c = Choices(**{**base.to_dict()})
    c.env = dict(base.env)
    object.__setattr__(c, "_auto", True)
    try:
        c.path = _simple_default(system)
        notes = [f"{c.path} chosen by the default rule (no --path given)"]  # the errors: in WAY CHANGED
        plan = _build(system, c, notes)
    except PlanError as exc:
        # every way refused for what the system is (no GPU, no build for it) -> 3, as doctor's "no
        # AMD GPU"; anything else -> 1 (exitcodes.refusal)
        system_only = all(code == NOT_APPLICABLE for code in codes + [exc.exit_code])
        raise PlanError(errors[0] if errors else exc.message, refusal(SYSTEM) if system_only else ERROR) from None
    return _way_taken(plan, ways, errors, "default rule", _not_applying(system, diagnosis, plan.path))


def _not_applying(system, diagnosis, path: str) -> Optional[str]:
    """Why the diagnosis says ``path`` does not apply to ``system`` (None when it applies or was not
    judged)."""
    if diagnosis is None:
        try:
            from ..doctor import diagnose

            diagnosis = diagnose(system)
        except Exception:  # the plan must not die of a doctor bug
            return None
    rec = next((r for r in getattr(diagnosis, "recommendations", []) or [] if r.path == path), None)
    return None if rec is None or rec.applies else (rec.why or "")


def _way_taken(plan: Plan, ways: List[Dict[str, Any]], errors: List[str], by: str,
               against: Optional[str] = None) -> Plan:
    """Record on a plan made without ``--path`` which way was taken and why (``plan.way``); when it
    is not the diagnosis' first way out, a note says so first ("WAY CHANGED"), so that the way never
    changes silently (frontends print notes on stderr; the script, playbook and JSON carry them)."""
    recommended = ways[0]["path"] if ways else None
    changed = recommended is not None and recommended != plan.path
    why = ""
    if changed:
        reasons = "; ".join(errors) or f"{recommended}: it could not be planned"
        why = (f"the recommended way {recommended} cannot be planned ({reasons}), so {plan.path} was taken "
               f"instead ({'the diagnosis' + chr(39) + ' next way out' if by == 'diagnosis' else 'the default rule'})"
               f"; choose with --path")
    elif recommended is None:
        why = f"the diagnosis recommends no way out, so {plan.path} was taken by the default rule; choose with --path"
    else:
        why = f"{plan.path} is the diagnosis' recommended way"
    if against:
        why += f". The diagnosis says {plan.path} does not apply: {against}"
    plan.way = {"recommended": recommended, "taken": plan.path, "changed": changed, "by": by, "why": why}
    if changed or against:
        plan.notes.insert(0, "WAY CHANGED: " + why)
    return plan


def _as_ubuntu_base(system, path: str, here: int, notes: List[str]):
    """``(system, real_os)``: a known Ubuntu derivative (Pop!_OS, Linux Mint...) as its Ubuntu base
    (``UBUNTU_CODENAME``), with its own OS kept for the fingerprint; an unknown one refused for
    rocm-upgrade with the reason (catalog ``derivatives.toml``)."""
    import dataclasses

    from ..catalog import derivatives

    osi = _os(system)
    base = derivatives.ubuntu_base(osi)
    if base is None:
        return system, None
    if base.version is None:
        if path == "rocm-upgrade":
            raise PlanError(base.why + ". rocm-upgrade uses AMD's apt repositories for Ubuntu: use --path "
                            "torch-reinstall or --path docker", here)
        return system, None
    label = (osi.pretty_name or f"{osi.id} {osi.version_id or ''}").strip()
    as_ubuntu = dataclasses.replace(osi, id="ubuntu", version_id=base.version, codename=base.codename,
                                    pretty_name=f"{label} (planned as Ubuntu {base.version} {base.codename}, its base)")
    notes.append(f"{label} is {base.name}, built on Ubuntu {base.version} ({base.codename}, its UBUNTU_CODENAME): "
                 f"planned as Ubuntu {base.version}")
    return dataclasses.replace(system, os=as_ubuntu), osi


def _build(system, choices: Choices, notes: List[str]) -> Plan:
    path = choices.path or ""
    if path != "rocm-upgrade" and choices.dkms is None:
        choices.dkms = True  # only a ROCm upgrade decides about the kernel driver
    recipe = load_recipe(path)
    auto = getattr(choices, "_auto", False)
    real_os = None
    try:
        system, real_os = _as_ubuntu_base(system, path, _explicit(choices, path), notes)
    except PlanError as exc:
        raise PlanError(exc.message, exc.exit_code) from None
    osi = _os(system)
    from ..catalog import cpu_arches

    not_served = cpu_arches.refusal(path, getattr(osi, "arch", None))
    if not_served:
        raise PlanError(not_served, _explicit(choices, path))
    try:
        user = _user(system, choices)
        os_ns = {"codename": cat.apt_codename(osi) or "", "kernel": (osi.kernel if osi is not None else None) or "",
                 "id": (osi.id if osi is not None else None) or "",
                 "version": (osi.version_id if osi is not None else None) or "",
                 "apt": bool(osi is not None and osi.id in ("ubuntu", "debian"))}
        if path == "rocm-upgrade":
            ns, facts, fp = _rocm_upgrade(system, choices, notes, recipe)
            if ns.get("stream") == "zypper":  # SLES: its own recipe, with the apt recipe's list of ROCm packages
                import dataclasses

                zyp = load_recipe("rocm-upgrade-zypper")
                recipe = dataclasses.replace(zyp, data={"rocm_related": recipe.data["rocm_related"], **zyp.data})
            elif ns.get("stream") in ("dnf", "fedora"):  # issue 26: dnf hosts
                recipe = load_recipe("rocm-upgrade-dnf" if ns["stream"] == "dnf" else "rocm-fedora")
            elif ns.get("stream") == "core-sdk":
                # the Core SDK branch: its own steps, with the legacy recipe's apt safety data (which
                # packages apt may remove unasked, the keys DKMS signs with under Secure Boot)
                import dataclasses

                core = load_recipe("rocm-upgrade-core")
                shared = {k: recipe.data[k] for k in ("rocm_related", "mok_keys")}
                recipe = dataclasses.replace(core, data={**shared, **core.data})
            elif ns.get("stream") in ("core-dnf", "core-zypper"):  # issue 26: the Core SDK on rpm hosts
                import dataclasses

                rpm_core = load_recipe("rocm-upgrade-" + ns["stream"])
                recipe = dataclasses.replace(rpm_core, data={"rocm_related": recipe.data["rocm_related"],
                                                             **rpm_core.data})
            kept = _kept_venv(system, cat.rocm_release(choices.rocm), choices.dkms, notes) \
                if ns.get("stream") != "fedora" else None
            if kept:
                facts["venv_kept"] = kept
        elif path == "torch-reinstall":
            ns, facts, fp = _torch_reinstall(system, choices, notes, recipe)
        elif path == "guard":
            ns, facts, fp = _guard_way(system, choices, notes)
        elif path == "clean":
            ns, facts, fp = _clean_way(system, choices, notes, user)
        else:
            ns, facts, fp, apt = _docker(system, choices, notes, recipe)
            os_ns["apt"] = apt
        ns.update({"os": os_ns, "user": user, "data": recipe.data})
        ns.setdefault("flags", {})
        try:
            steps = instantiate(recipe, ns)
            steps += [make_step(**spec) for spec in ns.get("extra_steps", [])]
        except ValueError as exc:
            raise PlanError(f"invalid value for this plan: {exc}") from None
    except PlanError:
        raise  # a way chosen by the default rule that does not apply is 'not applicable' (3), as with --path
    from .recipes import render

    if real_os is not None and "os" in fp.fields:  # the system is checked as what it says it is
        fp.fields["os"] = [f"{real_os.id} {real_os.version_id}"] if real_os.id and real_os.version_id else []
        if not fp.fields["os"]:
            del fp.fields["os"]
            fp.unchecked.append("os")
    title = render(recipe.title, ns)
    inputs = choices.to_dict()
    inputs["user"] = user or None
    if inputs.get("librocdxg_repo") is None:  # only WSL plans of ROCm 7.2.x use it
        inputs.pop("librocdxg_repo", None)
    summary = {"summary": _system_summary(system), "origin": getattr(system, "origin", "live")}
    return Plan(path=path, title=title, steps=steps, fingerprint=fp, inputs=inputs, facts=facts, notes=notes,
                system=summary)


def _same_uri(a: Optional[str], b: str) -> bool:
    return bool(a) and a.rstrip("/") == b.rstrip("/")


def _repo_package_beside_legacy(system, rel, notes: List[str]) -> List[str]:
    """A legacy release planned where AMD's repository-setup package (``amdrocm-repo*``) is installed:
    its entry stays as it is, said with the reason.  The package configures only the Core SDK
    repository (``amdrocm*`` packages, none of which this plan installs or removes; a Core SDK already
    installed is refused earlier as a downgrade across streams), its entry is a conffile that
    rocm-wizard never edits, its entry names another URI than repo.radeon.com (so no second
    Signed-By for one URI), and it conflicts only with amdgpu-install (TheRock's builder:
    ``Conflicts: amdgpu-install``), which this plan does not install.  Returns the package's deb822
    files, which the plan's apt-sources step never edits or removes (``adopted``), even where its
    markers would match them (one mirror host serving both streams)."""
    pkg = cat.core_repo_package()
    rocm = getattr(system, "rocm", None)
    installed = sorted(n for n in (getattr(rocm, "packages", None) or {}) if n in pkg.names)
    if not installed:
        return []
    mine = [a for a in (getattr(rocm, "apt_sources", None) or [])
            if a.file and a.signed_by in pkg.keyrings and a.file.startswith("/etc/apt/sources.list.d/")
            and a.file.endswith(".sources")]
    entries = sorted({f"{a.file} ({a.uri})" for a in mine if a.enabled and a.uri})
    notes.append(f"AMD's repository-setup package {', '.join(installed)} is installed ({pkg.status}: "
                 f"{', '.join(pkg.sources)}): its Core SDK repository entry "
                 + (f"{'; '.join(entries)} " if entries else "")
                 + f"stays as it is. It serves only the Core SDK's amdrocm* packages, which this plan neither installs "
                 f"nor removes; ROCm {rel.version} comes from repo.radeon.com with its own key and pin (priority 600), "
                 "and the package's entry is a conffile rocm-wizard never edits. The package conflicts with "
                 "amdgpu-install, which this plan does not install. To leave the Core SDK stream altogether: "
                 f"apt-get purge {installed[0]} (purge: a plain remove keeps its entry, a conffile, without its keyring)")
    return sorted({a.file for a in mine})


def _adopt_repo_package(system, uri: str, own_file: str, fpr: str,
                        notes: List[str]) -> Tuple[List[str], List[str], str]:
    """The source files of AMD's repository-setup package (``amdrocm-repo-*``) that the plan keeps as
    they are, when one is installed and names ``uri``: the plan then writes no entry of its own for
    it (two entries for one URI with different Signed-By make apt-get update fail) and never edits or
    removes those files; nor does it write a key of its own: the keyrings those entries' Signed-By
    name are checked packet by packet against ``fpr`` (step ``apt-key-check``, first in the plan) and
    a keyring holding anything else stops the run before anything changes.  Installed but naming
    another URI (a mirror, another stream or profile): refused, with the reason.  Returns (files,
    their keyrings, the package's name); ([], [], "") when none is installed."""
    pkg = cat.core_repo_package()
    rocm = getattr(system, "rocm", None)
    installed = sorted(n for n in (getattr(rocm, "packages", None) or {}) if n in pkg.names)
    if not installed:
        return [], [], ""
    sources = [a for a in (getattr(rocm, "apt_sources", None) or []) if a.file]
    mine = [a for a in sources if a.enabled and _same_uri(a.uri, uri) and a.signed_by in pkg.keyrings]
    names = ", ".join(installed)
    if not mine:
        theirs = sorted({f"{a.file}: {a.uri}" for a in sources if a.signed_by in pkg.keyrings and a.uri})
        raise PlanError(f"AMD's repository-setup package {names} is installed, but none of its entries "
                        f"(Signed-By: {' or '.join(pkg.keyrings)}) names this plan's repository {uri}"
                        + (f" (it names {'; '.join(theirs)})" if theirs else "")
                        + ": a second entry would be needed beside the package's. Plan for the repository the package "
                        "names (without --rocm-core-mirror), or remove the package (apt-get purge "
                        f"{installed[0]}) and plan again")
    files = sorted({a.file for a in mine})
    keyrings = sorted({a.signed_by for a in mine})
    notes.append(f"AMD's repository-setup package {names} ({pkg.status}: {', '.join(pkg.sources)}) provides this "
                 f"repository in {', '.join(files)} (Signed-By: {', '.join(keyrings)}): kept as it is; rocm-wizard writes "
                 f"no entry of its own for it" + (f" (nor {own_file})" if own_file not in files else "")
                 + " and takes AMD's other entries for it out of every other file. Its keyring is checked first "
                 f"against the Core SDK key {fpr} (packet by packet: that key alone, neither expired nor revoked) "
                 "and the run stops before any change if it holds anything else; rocm-wizard writes no key of its own")
    return files, keyrings, installed[0]
