"""``rocm-wizard rollback [RUN]``: put back the files a run replaced (apt sources, keyring, pin,
linker configuration, the venv's activate script and env file, the venv link), newest run by
default, and say plainly what cannot be undone (packages, the kernel module) with the exact
commands that would.  stdout carries that account; ``--dry-run`` only shows it.

It takes the run lock (no run, resume or other rollback meanwhile), checks the run directory as
``resume`` does, waits for (or ends) a command the interrupted run left running, and keeps the
``pip freeze`` file it tells the user to reinstall from."""
from __future__ import annotations

import argparse
import os
import sys

from .. import exitcodes


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run", nargs="?", default=None, metavar="RUN",
                        help="run id or run directory (default: the latest run)")
    parser.add_argument("--dry-run", action="store_true", help="show what would be restored; change nothing")


def _err(msg: str) -> None:
    print(f"rocm-wizard rollback: {msg}", file=sys.stderr, flush=True)


def run(args: argparse.Namespace) -> int:
    from ..execute import journal as jr
    from ..execute.fsutil import read_json
    from ..execute import paths, pkgdb
    from ..execute.procs import settle_survivors, survivors
    from ..execute.rollback import cannot_undo, kept_files, package_changes, restore_files
    from .resume import _load

    run_dir, journal = _load(args.run, _err)
    if journal is None:
        return exitcodes.ERROR
    if journal.state == jr.RUN_RUNNING and journal.alive():
        _err(f"run {journal.run_id} is still going (pid {journal.data.get('pid')}); stop it first (Ctrl-C or "
             "kill -TERM, it stops at a safe point), then roll back")
        return exitcodes.ERROR
    if not args.dry_run:
        busy = paths.take_run_lock(paths.log_root_of(run_dir))
        if busy:
            _err(busy)
            return exitcodes.ERROR
        try:  # read again under the lock
            journal = jr.Journal.load(journal.path)
        except jr.JournalError as exc:
            _err(str(exc))
            return exitcodes.ERROR
        settle_survivors(journal.data.get("children") or [], lambda m: print(m, file=sys.stderr, flush=True), 600.0)
    elif survivors(journal.data.get("children") or []):
        _err("a command of the interrupted run is still running; a real rollback waits for it first")
    root = journal.data.get("root") or "/"
    res = restore_files(journal.data.get("files", []), root, dry_run=args.dry_run, keep=kept_files(journal.data))
    out = [f"# rollback of run {journal.run_id}: {journal.data.get('title', '')}" + (" (dry run)" if args.dry_run else "")]
    if res.restored:
        out += [("would: " if args.dry_run else "") + line for line in res.restored]
    else:
        out.append("no file to restore: every file the run touched is as it was before")
    changes = journal.data.get("packages")
    if not changes:
        db = pkgdb.db_of(pkgdb.tool_of(s.get("kind", "") for s in journal.data.get("steps", [])))
        try:
            before = read_json(os.path.join(run_dir, pkgdb.BEFORE_FILES[db]))
        except ValueError:
            before = None
        changes = package_changes(before, pkgdb.versions(db, root)) if isinstance(before, dict) else []
    out += cannot_undo(changes or [], journal.data)
    if any(e.get("path", "").startswith("/etc/apt/") for e in journal.data.get("files", [])) and res.restored:
        out.append("apt's package lists still describe the new repositories: run  sudo apt-get update")
    for p in res.problems:
        out.append(f"could not restore: {p}")
    sys.stdout.write("\n".join(out) + "\n")
    if not args.dry_run and res.ok:
        journal.set_state(jr.RUN_ROLLED_BACK, "files restored by rocm-wizard rollback")
    if not res.ok:
        _err("some files could not be restored (see above)")
        return exitcodes.ERROR
    return exitcodes.OK
