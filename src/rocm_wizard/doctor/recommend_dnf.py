"""The rocm-upgrade way on dnf hosts (issue 26): RHEL, Rocky, AlmaLinux and Oracle Linux get AMD's rpm
repositories, Fedora its own ROCm packages; other rpm systems a reason.  Called by
:func:`rocm_wizard.doctor.recommend._rocm` for a system of the dnf family."""
from __future__ import annotations

from .context import parse_version, s
from .model import Recommendation


def rocm_dnf(ctx) -> Recommendation:
    from ..catalog import rpmrepos
    from ..plan.dnfplan import default_release

    osi = ctx.os
    label = s(osi.pretty_name) or f"{s(osi.id)} {s(osi.version_id)}".strip()
    srcs = rpmrepos.sources()
    if ctx.container:
        return Recommendation("rocm-upgrade", None, False, {}, "This runs inside a container; upgrade ROCm on the host "
                              "(or switch images) instead.", [], srcs)
    if rpmrepos.family(osi) == "fedora":
        fed = rpmrepos.fedora()
        return Recommendation("rocm-upgrade", None, True, {"rocm": "fedora", "stream": "fedora",
                                                                 "packages": list(fed["packages"])},
                              f"Fedora packages ROCm itself (AMD publishes no repository for Fedora): dnf installs "
                              f"{', '.join(fed['packages'])} from Fedora's repositories, at the version Fedora "
                              f"{s(osi.version_id)} ships; no AMD repository is added.", [], srcs + list(fed["sources"]))
    point = rpmrepos.el_release(osi)
    if point is None:
        return Recommendation("rocm-upgrade", None, False, {}, f"{label}: VERSION_ID {s(osi.version_id)!r} names no point "
                              "release, and AMD's rpm driver repositories are per point release.", [], srcs)
    major, pt = point
    apu = bool(ctx.system.gpus) and all(getattr(g, "igpu", False) for g in ctx.system.gpus if g.is_amd)
    dkms = not apu and bool(s(osi.kernel))
    version = default_release(dkms)
    if version is None:
        return Recommendation("rocm-upgrade", None, False, {}, "No ROCm release in the catalog has a known rpm layout and "
                              "OS list.", [], srcs)
    supported = rpmrepos.os_supported(version, s(osi.id), pt)
    if supported is False:
        entry = rpmrepos.os_support_entry(version) or {}
        return Recommendation("rocm-upgrade", None, False, {}, f"ROCm {version}, the newest release whose rpm "
                              f"repositories the catalog knows, lists RHEL {' '.join(entry.get('rhel', []))}; this is "
                              f"{label} ({pt}): update the OS to a listed point release (dnf update), then "
                              f"rocm-wizard --path rocm-upgrade.", [], srcs)
    host = parse_version(ctx.host_rocm)
    if host is not None and host >= parse_version(version):
        return Recommendation("rocm-upgrade", None, False, {}, f"The host already has ROCm {ctx.host_rocm} (the newest "
                              f"rpm target the catalog knows is {version}).", [], srcs)
    base = "https://repo.radeon.com"
    urls = rpmrepos.repo_urls(base, version, ".".join(version.split(".")[:2]), major, pt)
    target = {"mode": "upgrade", "rocm": version, "stream": "dnf", "el": pt, "rocm_repo": urls[0] if urls else None,
              "driver_repo": (urls[1] if urls and dkms else None),
              "kernel_driver": "amdgpu-dkms" if dkms else "none (the installed driver is kept, --no-dkms)"}
    why = (f"AMD's rpm repositories for EL {major} serve ROCm {version} for {label}: the .repo files with gpgcheck=1 "
           f"and priority=50 (the distribution's and EPEL's rocm never win), AMD's key checked against its "
           f"fingerprint before rpm --import, "
           + ("kernel-devel of the running kernel and amdgpu-dkms, " if dkms else "")
           + "then the rocm packages at that exact version."
           + ("" if supported else f" Whether ROCm {version} supports {label} is not known to the catalog."))
    return Recommendation("rocm-upgrade", None, True, target, why, [], srcs)
