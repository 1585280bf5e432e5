"""``rocm-wizard detect``: describe this system, a snapshot bundle, or a folder of pasted outputs.

``--json`` prints the System as JSON (schema: ``rocm_wizard/schema/detect.schema.json``, documented
in ``docs/detect-json.md``) and imports neither Rich nor Textual; the human report uses Rich.
Exit status 0 on success, 1 when the snapshot cannot be read or describes no system (the reason goes
to stderr; the same rule as ``doctor``'s, exitcodes.py).
"""
from __future__ import annotations

import argparse
import sys
from typing import Any, List

from ..exitcodes import ERROR, OK
from ..termsafe import clean_line


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print JSON (schema: docs/detect-json.md)")
    parser.add_argument("--snapshot", metavar="PATH",
                        help="describe a snapshot bundle (.tar.gz), a folder of pasted outputs or one pasted file "
                             "instead of this machine")
    parser.add_argument("--venv", metavar="PATH", action="append", default=[],
                        help="also examine this virtual environment (repeatable)")
    parser.add_argument("--root", metavar="DIR", default="/", help=argparse.SUPPRESS)  # a captured tree (tests)


def run(args: argparse.Namespace) -> int:
    if args.snapshot is None and (args.root or "/") == "/":
        # the commands every live detection runs start now, while the probes load
        from ..detect import live_start

        live_start.start_early()
    from ..detect import detect_live, detect_snapshot

    if args.snapshot is not None:
        from ..detect.bundle import SnapshotError

        try:
            system = detect_snapshot(args.snapshot, args.venv)
        except SnapshotError as exc:
            print("rocm-wizard detect: %s" % clean_line(exc), file=sys.stderr)
            return ERROR
        except OSError as exc:
            print("rocm-wizard detect: cannot read %s: %s" % (clean_line(args.snapshot), clean_line(exc.strerror or exc)),
                  file=sys.stderr)
            return ERROR
        from ..doctor.evidence import described, describes_nothing

        if not described(system):  # an unrelated file: the same refusal as doctor's (exitcodes.INPUT)
            print("rocm-wizard detect: %s" % clean_line(describes_nothing(args.snapshot)), file=sys.stderr)
            return ERROR
    else:
        system = detect_live(args.venv, root=args.root or "/")
    if args.json:
        import json

        from ..model import to_dict

        from ..termsafe import json_c1

        sys.stdout.write(json_c1(json.dumps(to_dict(system), indent=2, ensure_ascii=False)) + "\n")
        return OK
    render_human(system)
    return OK


# -- human report -------------------------------------------------------------------------------------

def _v(value: Any, none: str = "-") -> str:
    """A value as one line of plain text: what detection read may hold terminal sequences."""
    if value is None or value == "" or value == []:
        return none
    if value is True:
        return "yes"
    if value is False:
        return "no"
    return clean_line(value)


def _t(value: Any, style: str = "") -> Any:
    """Rich Text of a value (Text, not a str: never taken as Rich markup)."""
    from rich.text import Text

    return Text(clean_line(value), style=style)


def _all_notes(system: Any) -> List[str]:
    notes: List[str] = []

    def walk(obj: Any, where: str) -> None:
        for n in getattr(obj, "notes", []) or []:
            notes.append("%s: %s" % (where, n) if where else n)

    walk(system, "")
    walk(system.os, "os")
    for g in system.gpus:
        walk(g, "gpu %s" % (g.name or g.pci_id or "?"))
    walk(system.rocm, "rocm")
    for t in system.torch:
        walk(t, "python %s" % (t.path or "(paste)"))
    walk(system.docker, "docker")
    walk(system.access, "access")
    if system.access.kfd is not None:
        walk(system.access.kfd, "/dev/kfd")
    return notes


def _docker_state(d: Any) -> str:
    """The daemon, whether this user may use it, and the ROCm images, in words that agree."""
    if d.daemon is False:
        return "daemon not running"
    if d.daemon is None:
        return "daemon state unknown"
    user = {True: "this user can use it", False: "this user cannot use it (not in the docker group)"}.get(
        d.user_allowed, "whether this user can use it is unknown")
    return "daemon running, %s, rocm images: %s" % (user, ", ".join(d.images) or "none")


def render_human(system: Any, file: Any = None) -> None:
    from rich.table import Table
    from rich.text import Text

    out = file or sys.stdout
    try:
        tty = out.isatty()
    except (AttributeError, ValueError):
        tty = False
    # a pipe or a file gets wide lines rather than folded version strings
    from ._output import console as make_console

    console = make_console(file=out, highlight=False, soft_wrap=False, width=None if tty else 160)
    o = system.os
    title = "This system" if system.origin == "live" else "Snapshot"
    console.print(Text(title, style="bold"))
    kernel = _v(o.kernel)
    extras = [x for x in (o.kernel_flavour, "HWE" if o.hwe else None, "WSL2" if o.wsl else None) if x]
    if extras:
        kernel += " (%s)" % ", ".join(extras)
    rows = [("OS", _v(o.pretty_name or " ".join(x for x in (o.id, o.version_id) if x) or None)),
            ("Kernel", kernel), ("Arch", _v(o.arch)), ("CPU", _v(o.cpu)), ("Container", _v(o.container))]
    grid = Table.grid(padding=(0, 2))
    for k, v in rows:
        grid.add_row(Text(k, style="dim"), _t(v))
    console.print(grid)

    console.print()
    if system.gpus:
        gt = Table(title="GPUs", title_justify="left", show_edge=False)
        for col in ("name", "gfx", "PCI id", "bus", "kind", "driver"):
            gt.add_column(col, overflow="fold")
        for g in system.gpus:
            gt.add_row(*(_t(_v(x)) for x in (g.name, g.gfx_target, g.pci_id, g.bdf, g.kind, g.driver)))
        console.print(gt)
    else:
        console.print(Text("GPUs: none found", style="yellow"))

    r = system.rocm
    console.print()
    grid = Table.grid(padding=(0, 2))
    grid.add_row(Text("ROCm", style="bold"), _t(_v(r.version, "none found") + (" (%s)" % r.stream if r.stream else "")))
    if len(r.streams) > 1:
        grid.add_row(Text("  streams", style="dim"), _t(", ".join(r.streams) + " side by side", "yellow"))
    for inst in r.installs:
        grid.add_row(Text("  install", style="dim"), _t("%s %s%s%s" % (
            _v(inst.path), _v(inst.version, ""), " [%s]" % inst.stream if inst.stream else "",
            " (active)" if inst.active else "")))
    for k, v in (("/opt/rocm ->", r.opt_rocm_target), ("/opt/rocm/core ->", r.core_target),
                 ("HIP", r.hip_version), ("gfx packages", ", ".join(r.package_gfx)),
                 ("amdgpu driver", r.amdgpu_version or r.amdgpu_dkms),
                 ("KFD version", r.kfd_version), ("HSA runtime", r.hsa_runtime_version)):
        if v:
            grid.add_row(Text("  " + k, style="dim"), _t(v))
    console.print(grid)

    console.print()
    if system.torch:
        tt = Table(title="Python environments", title_justify="left", show_edge=False)
        for col in ("where", "python", "torch", "build", "hip", "rocm", "triton"):
            tt.add_column(col, overflow="fold")
        for t in system.torch:
            triton = ", ".join("%s %s" % kv for kv in sorted(t.triton.items())) or "-"
            if t.triton_shadow:
                triton += " (shadowed by %s)" % t.triton_shadow
            where = (t.path or "(pasted)") + (" *" if t.active else "")
            rocm = " ".join(x for x in (t.rocm, "[%s]" % t.stream if t.stream else "",
                                        t.channel if t.channel not in (None, "release") else "",
                                        "devices: " + ",".join(t.device_gfx) if t.device_gfx else "") if x) or "-"
            tt.add_row(*(_t(x) for x in (where, _v(t.python), _v(t.version), _v(t.build), _v(t.hip), rocm, triton)))
        console.print(tt)
    else:
        console.print(Text("Python environments with torch: none found", style="yellow"))

    d = system.docker
    a = system.access
    console.print()
    grid = Table.grid(padding=(0, 2))
    dock = ("not installed" if "docker is not installed" in d.notes else "unknown") if d.client is None else "%s, %s" % (
        d.client, _docker_state(d))
    grid.add_row(Text("Docker", style="bold"), _t(dock))
    grid.add_row(Text("User", style="bold"), _t("%s in groups %s" % (_v(a.user, "?"), ", ".join(a.groups) or "?")))
    if a.kfd is not None:
        kfd = "missing" if not a.kfd.exists else "%s %s, usable %s" % (_v(a.kfd.mode), _v(a.kfd.group), _v(a.kfd.accessible, "?"))
        grid.add_row(Text("/dev/kfd", style="bold"), _t(kfd))
    if a.env:
        grid.add_row(Text("GPU env", style="bold"), _t(" ".join("%s=%s" % kv for kv in sorted(a.env.items()))))
    console.print(grid)

    if system.errors:
        console.print()
        et = Table(title="Known errors seen", title_justify="left", show_edge=False)
        et.add_column("signature", overflow="fold")
        et.add_column("line", overflow="fold")
        for e in system.errors:
            et.add_row(_t(_v(e.signature)), _t(_v(e.text)))
        console.print(et)

    notes = _all_notes(system)
    if notes:
        console.print()
        console.print(Text("Notes", style="bold"))
        for n in notes:
            console.print(_t("  - " + clean_line(n)))
