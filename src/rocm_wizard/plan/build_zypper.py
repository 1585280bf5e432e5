"""rocm-upgrade on SUSE Linux Enterprise Server: AMD's zypper repositories for one release
(``catalog/data/zypper.toml``), the values of ``plans/rocm-upgrade-zypper.toml``.

Called by :func:`rocm_wizard.plan.build._rocm_upgrade` for an os-release ``ID=sles``; the rest of
the SUSE family is refused there with the catalog's reason (openSUSE: ``unknown``)."""
from __future__ import annotations

from typing import Any, Dict, List, Tuple

from . import catalog_adapter as cat


def rocm_upgrade_zypper(system, choices, notes: List[str], here: int) -> Tuple[Dict[str, Any], Dict[str, Any], Any]:
    from ..catalog import zypper as zyp
    from . import build as b

    osi = b._os(system)
    sp = zyp.service_pack(osi.version_id)
    label = f"SLES {sp or osi.version_id}"
    core = cat.rocm_release(choices.rocm) if choices.rocm else None
    if core is not None and core.core:  # the Core SDK (issue 26): its own module and recipe
        from .coresdk_rpm import rocm_upgrade_core_rpm

        return rocm_upgrade_core_rpm(system, choices, notes, core, here, "zypper")
    targets, other = b._require_gpu(system, choices, "rocm-upgrade", notes)
    listed = [r for r in zyp.releases() if cat.rocm_release(r.version) is not None]
    if choices.rocm:
        rel = cat.rocm_release(choices.rocm)
        if rel is None:
            raise b.PlanError(f"unknown ROCm release {choices.rocm!r}; known for SLES: "
                              + ", ".join(r.version for r in listed))
        fits = zyp.sles_support(rel.version, osi.version_id)
        if fits is None:
            raise b.PlanError(f"whether AMD's zypper repositories serve ROCm {rel.version} on {label} is not known "
                              "(the catalog lists SLES service packs for ROCm "
                              + ", ".join(r.version for r in listed) + ")", here)
        if fits is False:
            raise b.PlanError(f"ROCm {rel.version} is for SLES {', '.join(zyp.release(rel.version).sles)}, not {label}",
                              here)
    else:
        picked = zyp.pick(osi.version_id, targets, lambda g, v: cat.gfx_status(g, cat.rocm_release(v)).level == "official")
        if picked is None:
            raise b.PlanError(f"no ROCm release in the catalog is documented for {label} "
                              "(AMD's zypper repositories: " + "; ".join(f"{r.version}: SLES {', '.join(r.sles)}"
                                                                         for r in listed) + ")", here)
        rel = cat.rocm_release(picked)
    entry = zyp.release(rel.version)
    if entry.status != "documented":
        notes.append(f"SLES {', '.join(entry.sles)} for ROCm {rel.version} is {entry.status}: {entry.note}")
    for g in targets + other:
        st = cat.gfx_status(g, rel)
        if st.level == "official":
            continue
        if st.level == "unsupported" and g in targets:
            raise b.PlanError(f"ROCm {rel.version} lists {g} as unsupported")
        notes.append(f"{g} is not officially supported by ROCm {rel.version} ({st.note})")
    dkms = b._dkms_choice(system, choices, rel, bool(rel.amdgpu_dir), notes)
    if dkms and not rel.amdgpu_dir:
        raise b.PlanError(f"the amdgpu driver repository of ROCm {rel.version} is not known: pass --no-dkms")
    base = b._mirror_base(choices.rocm_mirror, "--rocm-mirror", choices.allow_http_mirror)
    fpr = cat.rocm_key_fingerprint()
    if choices.rocm_key_fingerprint:
        from .openpgp import normalize_fingerprint

        fpr = normalize_fingerprint(choices.rocm_key_fingerprint)
        if fpr is None:
            raise b.PlanError(f"--rocm-key-fingerprint {choices.rocm_key_fingerprint!r} is not a 40-digit hex fingerprint")
    repo = zyp.repo()
    site = base or cat.rocm_default_base()
    alias = repo["rocm_alias"].format(version=rel.version)
    key_file = repo["key_file"]
    head = (f"# ROCm {rel.version} for {label}, AMD's zypper repository. Written whole by rocm-wizard;\n"
            "# the key was checked against its fingerprint before rpm --import; priority below SUSE's 99.\n")
    files = [{"path": repo["rocm_file"], "content": _repo(alias, f"ROCm {rel.version}",
                                                           zyp.url(site, "rocm", dir=rel.apt_dir), key_file, repo, head)}]
    aliases = [alias]
    if dkms:
        files.append({"path": repo["amdgpu_file"], "content": _repo(
            repo["amdgpu_alias"], f"amdgpu {rel.amdgpu_dir}", zyp.url(site, "amdgpu", dir=rel.amdgpu_dir, sp=sp),
            key_file, repo, head.replace(f"ROCm {rel.version} for", f"The amdgpu driver of ROCm {rel.version} for"))})
        aliases.append(repo["amdgpu_alias"])
    installed = dict(getattr(system.rocm, "packages", {}) or {})
    metas = [m for m in ("rocm", "rocm-hip-sdk", "rocm-hip-runtime", "rocm-ml-sdk", "rocm-opencl-runtime")
             if m in installed] or ["rocm"]
    prefix = cat.rocm_package_prefix(rel.version).rstrip("-*")
    packages = [{"name": m, "version": prefix} for m in metas]
    pre = zyp.prerequisites()
    ns = {
        "stream": "zypper",
        "rocm": {
            "version": rel.version, "sp": sp or "", "key_url": cat.rocm_key_url(base), "key_fingerprint": fpr,
            "key_file": key_file, "repo_files": files, "aliases": aliases, "alias": alias,
            "amdgpu_alias": repo["amdgpu_alias"],
            "markers": _markers([cat.rocm_default_base()] + ([base] if base else [])),
            "packages": packages, "meta_names": ", ".join(metas),
            "driver_packages": [{"name": "amdgpu-dkms"}],
            "kernel_devel": [{"name": pre["kernel_devel"]}],
            "all_packages": [m for m in metas] + (["amdgpu-dkms"] if dkms else []),
        },
        "flags": {"dkms": dkms, "allow_removals": bool(choices.allow_apt_removals)},
    }
    notes.append(f"SLES: AMD's prerequisites (prerequisites.rst) are a registered system (SUSEConnect) with the "
                 f"modules {', '.join(p + '/' + (sp or '15.x') + '/x86_64' for p in pre['suseconnect_products'])}; "
                 "rocm-wizard does not register the system or add modules (that needs the site's registration code)")
    notes.append("zypper runs without --gpg-auto-import-keys and --no-gpg-checks (AMD's page and rocm-cli use them): "
                 "the key is checked against its fingerprint, then imported with rpm --import")
    if fpr != cat.rocm_key_fingerprint():
        notes.append(f"signing key fingerprint given on the command line: {fpr}")
    if base:
        notes.append(f"repositories and key from the mirror {base}")
    if base and base.startswith("http://"):
        notes.append("WARNING: the mirror is plain http (--allow-http-mirror): the signing key comes over an "
                     "unauthenticated connection, and its fingerprint is then the only protection")
    if not dkms:
        notes.append("--no-dkms: the installed amdgpu kernel driver is kept")
    facts = {"rocm_release": cat.release_facts(rel),
             "zypper": {"sles": list(entry.sles), "status": entry.status, "sources": list(entry.sources),
                        "repo_sources": list(repo["sources"]), "repo_gpgcheck": repo["repo_gpgcheck"]},
             "key": {"url": cat.rocm_key_url(base), "fingerprint": fpr, "status": cat.rocm_key_status(),
                     "sources": cat.rocm_key_sources()},
             "gfx_support": {g: cat.gfx_status(g, rel).level for g in targets + other}}
    before = b._short_version(getattr(system.rocm, "version", None))
    if before is None and cat.rocm_absent(system):
        before = "none"
    fp = b._fingerprint(system, {"rocm": [before, rel.version]})
    choices.rocm, choices.dkms, choices.rocm_key_fingerprint, choices.rocm_mirror = rel.version, dkms, fpr, base
    return ns, facts, fp


def _repo(alias: str, name: str, url: str, key_file: str, repo: Dict[str, Any], head: str) -> str:
    from .steps.zypper import repo_file

    gpg = repo.get("repo_gpgcheck")
    return repo_file(alias, name, url, key_file, int(repo["priority"]), gpg if isinstance(gpg, int) else None, head)


def _markers(bases: List[str]) -> List[str]:
    """What a .repo file's baseurl contains when it names AMD's zypper repositories on a site."""
    from .steps._util import url_marker

    return list(dict.fromkeys(url_marker(b) + "/" + p for b in bases for p in ("rocm/zyp/", "amdgpu/")))
