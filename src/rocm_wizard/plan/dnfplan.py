"""The ROCm upgrade on dnf hosts (issue 26): RHEL, Rocky, AlmaLinux and Oracle Linux from AMD's rpm
repositories (``plans/rocm-upgrade-dnf.toml``); Fedora from its own repositories
(``plans/rocm-fedora.toml``).  Called by :func:`rocm_wizard.plan.build._rocm_upgrade` when the
detected OS is of the dnf family (:func:`rocm_wizard.catalog.rpmrepos.family`); the facts come from
``catalog/data/rpm_repos.toml`` and, for what apt and rpm share (releases, key), the apt catalog."""
from __future__ import annotations

from typing import Any, Dict, List, Tuple

from . import catalog_adapter as cat
from .core import Fingerprint


def rocm_upgrade_dnf(system, choices, notes: List[str], here: int) -> Tuple[Dict[str, Any], Dict[str, Any], Fingerprint]:
    from ..catalog import rpmrepos
    from .build import PlanError, _fingerprint, _os, _require_gpu, _short_version, _vkey, _mirror_base
    from .steps.rpmcommon import repo_ini

    osi = _os(system)
    fam = rpmrepos.family(osi)
    label = (osi.pretty_name or f"{osi.id} {osi.version_id or ''}").strip()
    if fam == "fedora":
        return _fedora(system, choices, notes, here)
    rel_os = rpmrepos.el_release(osi)
    if rel_os is None:
        raise PlanError(f"{label}: VERSION_ID {osi.version_id!r} gives no point release (9.4, 8.10), and AMD's driver "
                        "repositories are per point release", here)
    major, point = rel_os
    core = cat.rocm_release(choices.rocm) if choices.rocm else None
    if core is not None and core.core:  # the Core SDK (issue 26): its own module and recipe
        from .coresdk_rpm import rocm_upgrade_core_rpm

        return rocm_upgrade_core_rpm(system, choices, notes, core, here, "dnf")
    targets, other = _require_gpu(system, choices, "rocm-upgrade", notes)
    dkms = choices.dkms if choices.dkms is not None else True
    if not choices.rocm:
        picked = default_release(dkms)
        if picked is None:
            raise PlanError(f"on {label} give the ROCm release with --rocm: no release of the catalog has both a "
                            "known rpm layout and AMD's OS list", here)
        notes.append(f"ROCm {picked} is the default on {label}: the newest release whose rpm repositories"
                     + (", kernel driver repository" if dkms else "") + " and OS list are in the catalog; "
                     "choose another with --rocm")
        choices.rocm = picked
    rel = cat.rocm_release(choices.rocm)
    if rel is None or rel.core:
        raise PlanError(f"ROCm {choices.rocm!r}: rocm-wizard plans AMD's rpm repositories for releases of the 6.x and "
                        "7.x (legacy) stream of the catalog", here)
    lay = rpmrepos.layout(rel.series)
    if lay is None:
        raise PlanError(f"the rpm repository layout of ROCm {rel.series} is not in the catalog", here)
    supported = rpmrepos.os_supported(rel.version, osi.id, point)
    if supported is False:
        entry = rpmrepos.os_support_entry(rel.version) or {}
        listed = ", ".join(f"{rpmrepos.NAMES.get(k, k)} {' '.join(entry[k])}" for k in ("rhel", "ol", "rocky") if k in entry)
        raise PlanError(f"ROCm {rel.version} does not list {label} (point release {point}); AMD lists {listed}"
                        + (f" ({entry['note']})" if entry.get("note") else "")
                        + ": update the OS to a listed point release (AMD's prerequisites: dnf update --releasever=...), "
                          "or choose another release with --rocm", here)
    if supported is None:
        notes.append(f"whether ROCm {rel.version} supports {label} ({point}) is not known to the catalog "
                     "(no AMD list for it was read): planned, not promised")
    for g in targets:
        if cat.gfx_status(g, rel).level == "unsupported":
            raise PlanError(f"ROCm {rel.version} lists {g} as unsupported", here)
    base = _mirror_base(choices.rocm_mirror, "--rocm-mirror", choices.allow_http_mirror) or cat.rocm_default_base()
    urls = rpmrepos.repo_urls(base, rel.apt_dir, rel.series, major, point)
    assert urls is not None
    rocm_url, driver_url = urls
    if dkms and driver_url is None:
        drv = rpmrepos.driver_el_7x(base, rel.amdgpu_dir, major, point)
        if drv is None:
            raise PlanError(f"the amdgpu kernel driver's rpm repository for ROCm {rel.version} is not in the catalog "
                            f"({lay.note or 'unknown'}): plan with --no-dkms to keep the installed driver", here)
        raise PlanError(f"rocm-wizard does not install ROCm {rel.version}'s kernel driver on {label} yet: AMD's driver "
                        f"page removes the installed amdgpu-dkms, then installs amdgpu-dkms from {drv['url']} "
                        f"({drv['repo_file']}, priority={drv['priority']}, gpgcheck=1, the same key); {drv['note']}. "
                        "Plan with --no-dkms to keep the installed driver", here)
    kernel = (osi.kernel or "").strip()
    if dkms and not kernel:
        raise PlanError("the running kernel is not known (uname -r), and amdgpu-dkms needs its kernel-devel: plan "
                        "with --no-dkms or on the machine itself", here)
    fpr = (choices.rocm_key_fingerprint or cat.rocm_key_fingerprint()).replace(" ", "").upper()
    settings = rpmrepos.repo_settings()
    key_file = settings["key_file"]
    common = {"enabled": True, "priority": settings["priority"], "gpgcheck": True,
              "repo_gpgcheck": bool(settings.get("repo_gpgcheck")), "gpgkey": "file://" + key_file,
              "skip_if_unavailable": False}
    head = (f"ROCm {rel.version} for {label}. Written whole by rocm-wizard (issue 26):\n"
            f"gpgkey is the key checked against {fpr}; priority {settings['priority']} beats the distribution's 99.")
    repo_content = repo_ini([{"id": "rocm", "name": f"ROCm {rel.version}", "baseurl": rocm_url, **common}], head)
    amdgpu_content = repo_ini([{"id": "amdgpu", "name": f"amdgpu {rel.apt_dir}", "baseurl": driver_url, **common}],
                              head) if driver_url else ""
    installed = dict(getattr(system.rocm, "packages", {}) or {})
    data_metas = ["rocm", "rocm-hip-sdk", "rocm-hip-runtime", "rocm-ml-sdk", "rocm-dev"]
    metas = [m for m in data_metas if m in installed] or ["rocm"]
    prefix = cat.rocm_package_prefix(rel.version)
    packages = [{"name": m, "version": prefix + "*"} for m in metas]
    prereq = rpmrepos.prerequisites()
    kernel_pkgs = [{"provides": prereq["kernel_devel"], "equals": kernel}] if dkms else []
    epel = osi.id in prereq["epel"] and not choices.rocm_mirror
    ns = {
        "stream": "dnf",
        "rocm": {
            "version": rel.version, "key_url": cat.rocm_key_url(base if base != cat.rocm_default_base() else None),
            "key_fingerprint": fpr, "key_file": key_file,
            "repo_file": settings["repo_file"], "repo_content": repo_content,
            "amdgpu_repo_file": settings["amdgpu_repo_file"], "amdgpu_repo_content": amdgpu_content,
            "packages": packages, "meta_names": ", ".join(metas),
            "kernel_packages": kernel_pkgs, "driver_packages": [{"name": "amdgpu-dkms"}],
        },
        "flags": {"dkms": dkms, "epel": epel, "allow_removals": bool(choices.allow_apt_removals),
                  "secure_boot": dkms and getattr(osi, "secure_boot", None) is True},
    }
    if epel:
        notes.append(f"AMD's prerequisites add EPEL and enable CRB on {label} (ROCm's packages need some of theirs)")
    elif osi.id in prereq["epel"]:
        notes.append("EPEL and CRB are not set up by this plan (a mirror was given): the mirror must serve what "
                     "ROCm's packages need from them")
    if not dkms:
        notes.append("--no-dkms: the installed amdgpu kernel driver is kept")
    if fpr != cat.rocm_key_fingerprint():
        notes.append(f"signing key fingerprint given on the command line: {fpr}")
    elif cat.rocm_key_status() != "documented":
        notes.append(f"the signing key fingerprint {fpr} is {cat.rocm_key_status()} (AMD does not publish it)")
    if base.startswith("http://"):
        notes.append("WARNING: the mirror is plain http (--allow-http-mirror): the signing key comes over an "
                     "unauthenticated connection, and its fingerprint is then the only protection")
    if base != cat.rocm_default_base():
        notes.append(f"repositories and key from the mirror {base}")
    facts = {"rocm_release": cat.release_facts(rel),
             "rpm_repos": {"layout": lay.name, "status": lay.status, "sources": list(lay.sources),
                           "rocm": rocm_url, "amdgpu": driver_url, "os_supported": supported},
             "key": {"url": ns["rocm"]["key_url"], "fingerprint": fpr, "status": cat.rocm_key_status(),
                     "sources": cat.rocm_key_sources()},
             "gfx_support": {g: cat.gfx_status(g, rel).level for g in targets + other}}
    before = _short_version(getattr(system.rocm, "version", None))
    if before is None and cat.rocm_absent(system):
        before = "none"
    if before and before != "none" and _vkey(before) > _vkey(rel.version):
        notes.append(f"this is a downgrade from ROCm {before} to {rel.version}")
    fp = _fingerprint(system, {"rocm": [before, rel.version]})
    choices.rocm, choices.dkms, choices.rocm_key_fingerprint = rel.version, dkms, fpr
    choices.rocm_mirror = None if base == cat.rocm_default_base() else base
    return ns, facts, fp


def default_release(dkms: bool):
    """The newest legacy release whose rpm layout (with a kernel driver repository when ``dkms``) and
    AMD OS list are both in the catalog; None when there is none."""
    from ..catalog import rpmrepos
    from .build import _vkey

    best = None
    for version in cat.rocm_versions():
        rel = cat.rocm_release(version)
        if rel is None or rel.core or rpmrepos.os_support_entry(rel.version) is None:
            continue
        lay = rpmrepos.layout(rel.series)
        if lay is None or (dkms and lay.driver is None):
            continue
        if best is None or _vkey(rel.version) > _vkey(best):
            best = rel.version
    return best


def release_choices_dnf(system) -> List[Tuple[str, str]]:
    """The TUI's ROCm choices on a dnf host: Fedora's own packages on Fedora; on EL the legacy releases
    whose rpm layout is known and whose AMD list does not leave this point release out, not older than
    the installed one, newest first."""
    from ..catalog import rpmrepos
    from .build import _short_version, _vkey

    osi = getattr(system, "os", None)
    if rpmrepos.family(osi) == "fedora":
        return [("fedora", "Fedora's own ROCm packages (no AMD repository)")]
    point = rpmrepos.el_release(osi)
    if point is None:
        return []
    installed = _short_version(getattr(getattr(system, "rocm", None), "version", None))
    out = []
    for version in cat.rocm_versions():
        rel = cat.rocm_release(version)
        if rel is not None and rel.core:  # the Core SDK where its rpm repository for this OS is known
            repo, _why = rpmrepos.coresdk_repo(rel.series, osi.id, osi.version_id or "")
            if repo is not None and not (installed and _vkey(rel.version) < _vkey(installed)):
                out.append((rel.version, f"ROCm {rel.version} Core SDK (AMD's Core SDK rpm repository"
                            + (")" if repo.status == "documented" else f"; {repo.status})")))
            continue
        if rel is None or rpmrepos.layout(rel.series) is None:
            continue
        if rpmrepos.os_supported(rel.version, osi.id, point[1]) is False:
            continue
        if installed and _vkey(rel.version) < _vkey(installed):
            continue
        listed = rpmrepos.os_supported(rel.version, osi.id, point[1])
        out.append((rel.version, f"ROCm {rel.version} (AMD's rpm repositories"
                    + (")" if listed else "; this OS release not on a list the catalog holds)")))
    out.sort(key=lambda kv: _vkey(kv[0]), reverse=True)
    return out


def _fedora(system, choices, notes: List[str], here: int):
    """Fedora: the distribution's own ROCm packages from its repositories (no AMD repository)."""
    from ..catalog import rpmrepos
    from .build import PlanError, _fingerprint, _os, _require_gpu, _short_version

    osi = _os(system)
    if choices.rocm_mirror:
        raise PlanError("Fedora installs its own ROCm packages from its repositories: --rocm-mirror does not apply", here)
    if choices.rocm and choices.rocm != "fedora":
        raise PlanError(f"Fedora packages ROCm itself: the version is the one Fedora {osi.version_id} carries, not "
                        f"--rocm {choices.rocm} (AMD has no repository for Fedora; --rocm fedora names it)", here)
    targets, _other = _require_gpu(system, choices, "rocm-upgrade", notes)
    fed = rpmrepos.fedora()
    notes.append(f"Fedora {osi.version_id}: ROCm from Fedora's own packages ({', '.join(fed['packages'])}), "
                 "no AMD repository; its version is the one Fedora ships (dnf tells at run time)")
    ns = {"stream": "fedora",
          "rocm": {"version": "Fedora's", "packages": [{"name": n} for n in fed["packages"]],
                   "meta_names": ", ".join(fed["packages"])},
          "flags": {"dkms": False, "allow_removals": bool(choices.allow_apt_removals)}}
    facts = {"fedora": {"packages": fed["packages"], "status": fed["packages_status"], "sources": fed["sources"]}}
    before = _short_version(getattr(system.rocm, "version", None)) or "none"
    fp = _fingerprint(system, {"rocm": [before]})
    fp.unchecked.append("rocm")
    del fp.fields["rocm"]
    choices.dkms, choices.rocm = False, "fedora"
    return ns, facts, fp
