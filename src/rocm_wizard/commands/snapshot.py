"""``rocm-wizard snapshot -o bundle.tar.gz``: gather what detection reads into a bundle to share.

The bundle holds only what detection read, scrubbed (see :mod:`rocm_wizard.snapshot`); read it
back with ``rocm-wizard detect --snapshot bundle.tar.gz``.  ``-o -`` writes the tarball to stdout.
Exit status 0 on success, 1 when the bundle cannot be written.
"""
from __future__ import annotations

import argparse
import sys

from ..exitcodes import ERROR, OK, USAGE


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-o", "--output", metavar="FILE", required=True,
                        help="where to write the bundle (.tar.gz); '-' for stdout")
    parser.add_argument("--venv", metavar="PATH", action="append", default=[],
                        help="also examine this virtual environment (repeatable)")
    parser.add_argument("--include-hostname", action="store_true",
                        help="keep the host name (it is removed by default)")
    parser.add_argument("--root", metavar="DIR", default="/", help=argparse.SUPPRESS)  # a captured tree (tests)


def run(args: argparse.Namespace) -> int:
    from ..snapshot import SnapshotWriteError, take

    out = args.output
    if out == "-" and sys.stdout.isatty():
        print("rocm-wizard snapshot: refusing to write a tarball to a terminal; redirect stdout or use -o FILE",
              file=sys.stderr)
        return USAGE
    try:
        system, bundle, data = take(out, venvs=args.venv, include_hostname=args.include_hostname, root=args.root or "/")
    except SnapshotWriteError as exc:
        print("rocm-wizard snapshot: %s" % exc, file=sys.stderr)
        return ERROR
    if out == "-":
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
    else:
        files = sum(1 for n in bundle.members if n.startswith("files/"))
        cmds = sum(1 for n in bundle.members if n.startswith("commands/"))
        print("wrote %s (%d files, %d command outputs, %d bytes); read it with: rocm-wizard detect --snapshot %s"
              % (out, files, cmds, len(data), out), file=sys.stderr)
        if not args.include_hostname:
            print("the host name and home directory were removed", file=sys.stderr)
        print(env_kept_message(), file=sys.stderr)
    return OK


def env_kept_message() -> str:
    """What the bundle keeps of the environment: exactly the variables detection reads
    (``detect.sources.GPU_ENV_NAMES`` and prefixes), named, so the message cannot drift from the rule."""
    from ..detect.sources import GPU_ENV_NAMES, GPU_ENV_PREFIXES

    names = list(GPU_ENV_NAMES) + [p + "*" for p in GPU_ENV_PREFIXES]
    return "environment variables kept (those detection reads; no others): " + ", ".join(names)
