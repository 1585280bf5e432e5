"""The Core SDK branch of rocm-upgrade on rpm hosts (issue 26): RHEL, Rocky Linux and Oracle Linux with
dnf (``plans/rocm-upgrade-core-dnf.toml``), SLES with zypper (``plans/rocm-upgrade-core-zypper.toml``).

The rpm side of :func:`rocm_wizard.plan.build._rocm_upgrade_core`: the same release (``--rocm 10.0``),
the same key fingerprint (``coresdk.toml [key]``, ``--rocm-core-key-fingerprint``), the same mirror
option (``--rocm-core-mirror``), the same GPU checks and package names (``amdrocm-core-sdk<X.Y>[-gfxN]``,
never the unversioned pointer), the same legacy patterns removed first; the repository is the rpm one
of ``rpm_repos.toml [coresdk]`` for the OS profile (``rhel9``, ``sles15``...).  What the catalog does
not know is refused with the reason (AlmaLinux: on no Core SDK page; a major release with no profile),
what it only infers is said in the plan's notes (10.1's rpm repository).  No kernel driver: the Core
SDK's rpm driver repository is not in the catalog, so the installed driver is kept (``--no-dkms``)."""
from __future__ import annotations

from fnmatch import fnmatchcase
from typing import Any, Dict, List, Tuple
from urllib.parse import urlsplit

from . import catalog_adapter as cat
from .core import Fingerprint


def rocm_upgrade_core_rpm(system, choices, notes: List[str], rel, here: int,
                          manager: str) -> Tuple[Dict[str, Any], Dict[str, Any], Fingerprint]:
    from ..catalog import coresdk, rpmrepos
    from ..resolve.facts import amd_gpus
    from . import build as b
    from .openpgp import normalize_fingerprint

    osi = b._os(system)
    os_id = (osi.id or "").lower()
    label = (osi.pretty_name or f"{osi.id} {osi.version_id or ''}").strip()
    targets, other = b._require_gpu(system, choices, "rocm-upgrade", notes)
    repo, why = rpmrepos.coresdk_repo(rel.series, os_id, osi.version_id or "")
    if repo is None:
        raise b.PlanError(f"ROCm {rel.version} (Core SDK) on {label}: {why}, so rocm-wizard does not know which "
                          "repository serves it; choose a legacy release (--rocm 6.4.3) or --path torch-reinstall "
                          "/ --path docker", here)
    host = b._short_version(getattr(system.rocm, "version", None))
    if host and b._vkey(host) > b._vkey(rel.version):
        raise b.PlanError(f"the host has ROCm {host}, newer than {rel.version}: a downgrade is not planned here", here)
    gpu_names = ", ".join(dict.fromkeys(g.name for g in amd_gpus(system) if g.name))
    for g in targets + other:
        ok = cat.core_gfx_ok(rel, os_id, g, osi.version_id, gpu_names)
        if ok:
            continue
        if g in targets:
            raise b.PlanError(f"ROCm {rel.version} does not list {g}; choose another release", here)
        notes.append(f"{g} is not on ROCm {rel.version}'s list (the integrated GPU is left out)")
    asked_no_dkms = choices.dkms is False
    dkms = b._dkms_choice(system, choices, rel, False, notes)
    if dkms:
        raise b.PlanError(f"the amdgpu kernel driver paired with the Core SDK {rel.version} on {label} is not in the "
                          "catalog (its rpm driver repository was not read): pass --no-dkms to keep the installed "
                          "driver", here)
    info = cat.core_info()
    fpr_text = choices.rocm_core_key_fingerprint or info.key_fingerprint
    if not fpr_text:
        raise b.PlanError(f"the Core SDK signing key's fingerprint is {info.key_fingerprint_status} in the catalog; "
                          "give the one you checked with --rocm-core-key-fingerprint FPR", here)
    fpr = normalize_fingerprint(fpr_text)
    if fpr is None:
        raise b.PlanError(f"--rocm-core-key-fingerprint {fpr_text!r} is not a 40-digit hex fingerprint", here)
    base = b._mirror_base(choices.rocm_core_mirror, "--rocm-core-mirror", choices.allow_http_mirror)
    baseurl, key_url = repo.baseurl, repo.key_url
    if base:  # a mirror of AMD's host: the same paths under another base
        baseurl = _rebase(baseurl, base)
        key_url = _rebase(key_url, base)
    extra = rpmrepos.data().get("coresdk_rpm", {})
    key_file = extra.get("key_file", "/etc/pki/rpm-gpg/RPM-GPG-KEY-amdrocm")
    names = _package_names(rel, targets, os_id, extra)
    packages = [{"name": n, "version": rel.package_version} for n in names]
    head = (f"ROCm Core SDK {rel.version} ({repo.profile}) for {label}. Written whole by rocm-wizard (issue 26):\n"
            f"gpgkey is the Core SDK key checked against {fpr}.")
    ns_rocm: Dict[str, Any] = {
        "version": rel.version, "series": rel.series, "profile": repo.profile, "repo_id": repo.repo_id,
        "repo_file": repo.repo_file, "key_url": key_url, "key_fingerprint": fpr, "key_file": key_file,
        "legacy_patterns": list(info.legacy_packages), "packages": packages, "package_names": ", ".join(names),
        "package_names_list": names,
        "alternative": info.alternative, "root_link": info.root_link,
        "install_root": cat.core_install_root(rel), "version_file": cat.core_version_file(rel),
    }
    if manager == "dnf":
        from .steps.rpmcommon import repo_ini

        # the repository alone, refreshed: `dnf list` fails when none of the planned packages is there
        ns_rocm["repo_check_argv"] = ["dnf", "--refresh", f"--repo={repo.repo_id}", "list"] + [
            f"{n}-{rel.package_version}" for n in names]
        ns_rocm["repo_content"] = repo_ini([{
            "id": repo.repo_id, "name": f"ROCm Core SDK {rel.series}", "baseurl": baseurl, "enabled": True,
            "priority": repo.priority, "gpgcheck": True, "gpgkey": "file://" + key_file,
            "skip_if_unavailable": False}], head)
    else:
        from .build_zypper import _markers
        from .steps._util import url_marker
        from .steps.zypper import repo_file

        # zypper's default priority is 99; AMD's 10.0 page writes none, so the file says 99 (the same)
        prio = repo.priority if repo.priority is not None else 99
        ns_rocm["repo_files"] = [{"path": repo.repo_file, "content": repo_file(
            repo.repo_id, f"ROCm Core SDK {rel.series}", baseurl, key_file, int(prio), None,
            "".join("# " + ln + "\n" for ln in head.splitlines()))}]
        legacy = _markers([cat.rocm_default_base()] + ([choices.rocm_mirror] if choices.rocm_mirror else [])
                          + ([base] if base else []))
        core_hosts = [url_marker(_rebase(r["baseurl"].split("{profile}")[0], base) if base else
                                 r["baseurl"].split("{profile}")[0])
                      for r in rpmrepos.data().get("coresdk", {}).values() if r.get("baseurl")]
        ns_rocm["markers"] = list(dict.fromkeys(legacy + core_hosts))
    ns = {"stream": "core-" + manager, "rocm": ns_rocm,
          "flags": {"dkms": False, "allow_removals": bool(choices.allow_apt_removals)}}
    # notes: what is known, what is inferred, what is not done
    if repo.status != "documented":
        notes.append(f"the Core SDK {rel.series} rpm repository for {label} is {repo.status}"
                     + (f": {repo.note}" if repo.note else ""))
    elif repo.note:
        notes.append(f"Core SDK {rel.series} rpm repository: {repo.note}")
    notes.append(f"whether ROCm {rel.version} supports {label} (point release, kernel) is not in the catalog: AMD's "
                 f"Core SDK page lists the {repo.profile} repository for it; planned, not promised")
    legacy_installed = sorted(n for n in (getattr(system.rocm, "packages", None) or {})
                              if any(fnmatchcase(n, pat) for pat in info.legacy_packages))
    if legacy_installed:
        notes.append("the legacy ROCm packages are removed before the Core SDK is installed (AMD's transition guide): "
                     + " ".join(legacy_installed))
    if manager == "dnf" and repo.repo_file != rpmrepos.repo_settings()["repo_file"]:
        notes.append(f"a legacy {rpmrepos.repo_settings()['repo_file']} (AMD's legacy repository) is left as it is: "
                     "nothing installs from it once the legacy packages are removed; delete it by hand if you like")
    notes.append(info.pointer_note)
    notes.append(f"the key is checked against {fpr} before rpm --import (AMD's page imports it unchecked"
                 + (": zypper --gpg-auto-import-keys)" if manager == "zypper" else ": gpgkey=https://...)"))
    notes.append(cat.core_key_note(info, fpr, bool(choices.rocm_core_key_fingerprint)))
    if asked_no_dkms:
        notes.append("--no-dkms: the installed amdgpu kernel driver is kept")
    if base:
        notes.append(f"Core SDK repository and key from the mirror {base}")
        if base.startswith("http://"):
            notes.append("WARNING: the mirror is plain http (--allow-http-mirror): the signing key comes over an "
                         "unauthenticated connection, and its fingerprint is then the only protection")
    if rel.note:
        notes.append(f"ROCm {rel.version}: {rel.note}")
    facts = {"rocm_release": cat.release_facts(rel),
             "coresdk_rpm": {"profile": repo.profile, "baseurl": baseurl, "status": repo.status,
                             "sources": list(repo.sources), "note": repo.note, "manager": manager},
             "key": {"url": key_url, "fingerprint": fpr, "status": info.key_fingerprint_status,
                     "given": bool(choices.rocm_core_key_fingerprint), "source": info.key_fingerprint_source,
                     "sources": cat.describe_sources(info.key_sources)},
             "legacy_removed": legacy_installed, "packages": names,
             "gfx_support": {g: cat.core_gfx_ok(rel, os_id, g, osi.version_id, gpu_names) for g in targets + other}}
    before = host
    if before is None and cat.rocm_absent(system):
        before = "none"
    between = ["none"] if before and before != "none" and cat.rocm_stream(before) == "legacy" else []
    fp = b._fingerprint(system, {"rocm": [before] + between + [rel.version]})
    choices.rocm, choices.dkms, choices.rocm_core_key_fingerprint, choices.rocm_core_mirror = \
        rel.version, False, fpr, base
    return ns, facts, fp


def _rebase(url: str, base: str) -> str:
    """``url`` with its scheme and host replaced by ``base`` (a mirror of AMD's host keeps the paths)."""
    parts = urlsplit(url)
    return base.rstrip("/") + parts.path


def _package_names(rel, targets: List[str], os_id: str, extra: Dict[str, Any]) -> List[str]:
    """The apt path's names (per-gfx where every target has one, else the full package); on SLES the
    per-gfx packages exist for the Instinct targets only (``[coresdk_rpm] sles_gfx_suffixes``)."""
    names = cat.core_package_names(rel, targets)
    if os_id == "sles":
        allowed = set(extra.get("sles_gfx_suffixes", []))
        if targets and not all(g in allowed for g in dict.fromkeys(targets)):
            names = cat.core_package_names(rel, [])
    return names
