"""Python environment steps: the venv (a new versioned one, or the chosen one after saving its
``pip freeze``), stray Triton distributions, exact pins from the PyTorch index, the other packages
of the previous venv, environment variables where the venv's users get them, ``pip check``."""
from __future__ import annotations

import os
import re
from typing import Any, Dict, List, Optional, Tuple

from ..core import (CHANGE, CHANGED, FAILED, OK, UNKNOWN, CheckResult, Description, FileChange, PackageChange,
                    Result, Step, unified_diff)
from ...detect.sources import decode
from ..shellquote import q
from ..state import ABSENT, PRESENT, VenvView, canon_dist
from ._util import J, SAFE_ENV_NAME, check_abs_path, check_url, pin_matches, shell_array

BLOCK_BEGIN = "# >>> rocm-wizard >>>"
BLOCK_END = "# <<< rocm-wizard <<<"

# run with the previous venv's python: "name==version" of its distributions minus the excluded
PY_FREEZE = (
    "import importlib.metadata as m, re, sys\n"
    "skip = set(re.sub(r\"[-_.]+\", \"-\", a).lower() for a in sys.argv[1:])\n"
    "seen = set()\n"
    "for d in m.distributions():\n"
    "    n = re.sub(r\"[-_.]+\", \"-\", d.metadata[\"Name\"] or \"\").lower()\n"
    "    if n and n not in skip and n not in seen and not n.startswith(\"nvidia-\"):\n"
    "        seen.add(n)\n"
    "        print(\"%s==%s\" % (n, d.version))\n"
)
PY_DISTS = (
    "import importlib.metadata as m, re, sys\n"
    "want = set(re.sub(r\"[-_.]+\", \"-\", a).lower() for a in sys.argv[1:])\n"
    "for d in m.distributions():\n"
    "    n = re.sub(r\"[-_.]+\", \"-\", d.metadata[\"Name\"] or \"\").lower()\n"
    "    if n in want:\n"
    "        print(n, d.version)\n"
)
# run with the venv's python: every NAME[EXTRA,...]==VERSION installed exactly, and for each extra
# the distribution provides it and what it requires for it is installed (pip only warns about an
# extra a wheel lacks: torch[device-gfxNNNN] without the GPU's device wheel has no kernels for it)
PY_PINS = (
    "import importlib.metadata as m, re, sys\n"
    "def canon(s):\n"
    "    return re.sub(r\"[-_.]+\", \"-\", s).lower()\n"
    "def have_dist(n):\n"
    "    try:\n"
    "        return m.distribution(n)\n"
    "    except m.PackageNotFoundError:\n"
    "        return None\n"
    "bad = 0\n"
    "for req in sys.argv[1:]:\n"
    "    head, _, want = req.partition(\"==\")\n"
    "    name, _, extras = head.partition(\"[\")\n"
    "    dist = have_dist(name)\n"
    "    have = dist.version if dist is not None else None\n"
    "    if have is None or (have != want and (\"+\" in want or have.split(\"+\")[0] != want)):\n"
    "        print(\"  %s: %s (want %s)\" % (name, have or \"not installed\", want))\n"
    "        bad = 1\n"
    "        continue\n"
    "    provided = set(canon(e) for e in dist.metadata.get_all(\"Provides-Extra\") or [])\n"
    "    for extra in [canon(e) for e in extras.rstrip(\"]\").split(\",\") if e.strip()]:\n"
    "        if extra not in provided:\n"
    "            print(\"  %s %s provides no extra %s\" % (name, have, extra))\n"
    "            bad = 1\n"
    "            continue\n"
    "        for r in dist.requires or []:\n"
    "            mk = re.search(r\"extra\\s*==\\s*[\\x22\\x27]([^\\x22\\x27]+)\", r)\n"
    "            dep = re.match(r\"[A-Za-z0-9._-]+\", r)\n"
    "            if mk and dep and canon(mk.group(1)) == extra and have_dist(dep.group(0)) is None:\n"
    "                print(\"  %s[%s]: %s not installed\" % (name, extra, dep.group(0)))\n"
    "                bad = 1\n"
    "sys.exit(bad)\n"
)

_PIN_RE = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)(\[[A-Za-z0-9._-]+(?:,[A-Za-z0-9._-]+)*\])?==([A-Za-z0-9.+!_-]+)$")


def _pins(reqs: List[str], extras: bool = False) -> List[Tuple[str, str]]:
    """``(canonical name, version)`` of exact pins ``NAME==VERSION`` (``NAME[EXTRA,...]==VERSION``
    where ``extras``)."""
    out = []
    for r in reqs:
        m = _PIN_RE.match(str(r))
        if m is None or (m.group(2) and not extras):
            raise ValueError(f"requirement {r!r} must be an exact pin NAME==VERSION"
                             + (" (or NAME[EXTRA,...]==VERSION)" if extras else ""))
        out.append((canon_dist(m.group(1)), m.group(3)))
    return out


def _python_of(venv: str) -> str:
    return venv.rstrip("/") + "/bin/python"


def uv_venv(ctx, venv: str) -> bool:
    """A venv made by uv with no pip in it (``uv = `` in its pyvenv.cfg, no pip package): its
    packages are managed with ``uv pip`` (``python -m pip`` fails there)."""
    import glob
    import re as _re

    cfg = ctx.read_text(venv.rstrip("/") + "/pyvenv.cfg") or ""
    if not _re.search(r"^uv\s*=", cfg, _re.M):
        return False
    return not glob.glob(glob.escape(ctx.p(venv.rstrip("/"))) + "/lib/python*/site-packages/pip")


def pip_argv(ctx, venv: str, command: str, *args: str) -> List[str]:
    """``python -m pip COMMAND ARGS`` for the venv, or ``uv pip COMMAND --python PY ARGS`` for a
    pip-less uv venv (``--all`` and ``-y`` are pip's: uv lists everything and asks nothing)."""
    py = _python_of(venv)
    if uv_venv(ctx, venv):
        if not ctx.which("uv"):
            from ..context import StepError

            raise StepError(f"{venv} was made by uv and has no pip, and uv is not installed here: install uv "
                            "(https://docs.astral.sh/uv/) and run again")
        return ["uv", "pip", command, "--python", py] + [a for a in args if a not in ("--all", "-y")]
    return [py, "-m", "pip", command, *args]


# The playbook's twin of uv_venv(), run on each host by its own /usr/bin/python3 (reads only):
# prints "uv" for a venv made by uv with no pip in it, "pip" otherwise (a missing venv too)
UV_PROBE_PY = ("import glob, re, sys\n"
               "v = sys.argv[1].rstrip('/')\n"
               "try:\n    cfg = open(v + '/pyvenv.cfg').read()\nexcept OSError:\n    cfg = ''\n"
               "uv = re.search(r'^uv\\s*=', cfg, re.M) and not glob.glob(glob.escape(v) + '/lib/python*/site-packages/pip')\n"
               "print('uv' if uv else 'pip')\n")


def uv_probe_tasks(n: str, venv_var: str, reg: str) -> List[Dict[str, Any]]:
    """Playbook tasks that register ``reg`` (stdout ``uv`` for a pip-less uv venv) and refuse such a
    venv on a host without uv; :func:`uv_when` is the condition of the uv branch."""
    return [
        {"name": f"{n}: a venv made by uv, without pip? (reads only)", "ansible.builtin.command": {
            "argv": ["/usr/bin/python3", "-I", "-S", "-c", UV_PROBE_PY, J(venv_var)]},
         "register": reg, "changed_when": False, "check_mode": False},
        {"name": f"{n}: uv is installed (the venv has no pip)", "ansible.builtin.command": {"argv": ["uv", "--version"]},
         "register": reg + "_uv", "changed_when": False, "failed_when": False, "check_mode": False,
         "when": uv_when(reg)},
        {"name": f"{n}: refuse a venv without pip on a host without uv", "ansible.builtin.assert": {
            "that": [f"not ({uv_when(reg)}) or {reg}_uv.rc == 0"],
            "fail_msg": "{{ " + venv_var + " }} was made by uv and has no pip, and uv is not installed on this "
                        "host: install uv (https://docs.astral.sh/uv/) and run again"}},
    ]


def uv_when(reg: str) -> str:
    return f"({reg}.stdout | trim) == 'uv'"


# names and pins compared the way pip and uv write them (case, runs of - _ . alike; extras dropped)
_NORM = "map('lower') | map('regex_replace', '\\[[^\\]]*\\]', '') | map('regex_replace', '[-_.]+', '-')"


def uv_project_warning(ctx, venv: str) -> Optional[str]:
    """A uv project (uv.lock or pyproject.toml) beside the venv would undo the change on its next
    ``uv sync``/``uv run``: what to put in pyproject.toml instead."""
    import os as _os

    parent = _os.path.dirname(venv.rstrip("/"))
    found = [n for n in ("uv.lock", "pyproject.toml") if ctx.exists(parent + "/" + n)]
    if not found or not (uv_venv(ctx, venv) or "uv.lock" in found):
        return None
    return (f"{parent} is a uv project ({', '.join(found)}): its next `uv sync` or `uv run` puts back the locked "
            "torch and undoes this change; make it lasting in pyproject.toml instead: a [[tool.uv.index]] entry "
            "(name = \"pytorch-rocm\", url = the index of this plan, explicit = true) and [tool.uv.sources] "
            "torch = { index = \"pytorch-rocm\" } (the same for torchvision, torchaudio, pytorch-triton-rocm), "
            "then `uv lock`")


def _venv_dists(state, venv: str) -> Optional[Dict[str, str]]:
    view = state.venv(venv)
    if view.exists is False:
        return {}
    return view.dists


def _update_venv(state, venv: str, dists: Dict[str, str], by: str) -> None:
    old = state.venv(venv)
    state.set_venv(venv, VenvView(True, dists, old.python, old.link_target, old.is_dir, "plan:" + by, old.created))


def _run_py(ctx, py: str, code: str, args: List[str], user: Optional[str]):
    return ctx.run([py, "-c", code] + list(args), user=user, timeout=600)


class Venv(Step):
    """``mode = "new"``: create a new versioned venv directory (the link flips to it later, the
    previous one is kept; ``link`` is that path, for the record).  ``mode = "existing"``: use the chosen venv, after saving its
    ``pip freeze`` next to it."""

    kind = "venv"
    required = ("path", "mode")
    defaults = {"python": "python3", "freeze_backup": "", "link": ""}

    def validate(self) -> None:
        check_abs_path(self.params["path"], "venv path")
        if self.params["mode"] not in ("new", "existing"):
            raise ValueError("venv mode must be 'new' or 'existing'")
        if self.params["mode"] == "existing":
            check_abs_path(self.params["freeze_backup"], "freeze backup")
        if self.params["link"]:
            check_abs_path(self.params["link"], "venv link")
        if not re.match(r"^[A-Za-z0-9._/+-]+$", self.params["python"]):
            raise ValueError(f"python interpreter {self.params['python']!r} is not valid")

    def check(self, state) -> CheckResult:
        p = self.params
        view = state.venv(p["path"])
        if p["mode"] == "new":
            if view.exists:
                return CheckResult(OK, f"venv {p['path']} exists")
            if view.exists is None:
                return CheckResult(UNKNOWN, f"{p['path']}: not known")
            if state.ctx.filesystem and state.ctx.exists(p["path"]):
                return CheckResult(UNKNOWN, f"{p['path']} exists but is not a venv: move it away first")
            return CheckResult(CHANGE, f"create the venv {p['path']} with {p['python']}")
        if view.exists is False:
            return CheckResult(UNKNOWN, f"{p['path']} is not a venv (no bin/python)")
        backup = state.file(p["freeze_backup"])
        if backup.state == PRESENT:
            return CheckResult(OK, f"pip freeze already saved in {p['freeze_backup']}")
        if backup.state == ABSENT:
            warn = uv_project_warning(state.ctx, p["path"]) if state.ctx.filesystem else None
            return CheckResult(CHANGE, f"save pip freeze of {p['path']} to {p['freeze_backup']}"
                               + (" (with uv pip: a venv made by uv, without pip)" if state.ctx.filesystem
                                  and uv_venv(state.ctx, p["path"]) else "") + (f"; warning: {warn}" if warn else ""))
        return CheckResult(UNKNOWN, f"{p['freeze_backup']}: not known")

    def project(self, state) -> None:
        p = self.params
        if p["mode"] == "new":
            state.set_venv(p["path"], VenvView(True, {}, source="plan:" + self.id, created=True))
        else:
            state.set_file(p["freeze_backup"], b"(pip freeze)", self.id)

    def describe(self, state) -> Description:
        p = self.params
        if p["mode"] == "new":
            return Description(self.title, [f"{p['python']} -m venv {p['path']} (as the owner of its parent directory)"],
                               commands=[[p["python"], "-m", "venv", "--", p["path"]]])
        return Description(self.title, [f"save `pip freeze --all` of {p['path']} to {p['freeze_backup']}"],
                           files=[FileChange(p["freeze_backup"], "write", note="the current package list")])

    def apply(self, ctx) -> Result:
        p = self.params
        py = _python_of(p["path"])
        if p["mode"] == "new":
            if os.path.exists(ctx.p(py)):
                return Result(OK, f"venv {p['path']} exists")
            if ctx.exists(p["path"]):
                return Result(FAILED, f"{p['path']} exists but is not a venv: move it away first")
            owner = ctx.owner(p["path"])  # of the nearest existing parent directory
            ctx.check_call([p["python"], "-m", "venv", "--", p["path"]], user=owner, timeout=600)
            return Result(CHANGED, f"created {p['path']}")
        if not os.path.exists(ctx.p(py)):
            return Result(FAILED, f"{p['path']} is not a venv (no bin/python)")
        if ctx.exists(p["freeze_backup"]):
            return Result(OK, "pip freeze already saved")
        owner = ctx.venv_user(p["path"])
        warn = uv_project_warning(ctx, p["path"])
        res = ctx.check_call(pip_argv(ctx, p["path"], "freeze", "--all"), user=owner, timeout=600)
        # written by the owner (a root run follows no link they planted, leaves no root's directory in
        # their venv); a record rollback keeps: it is how to go back
        ctx.write_as(owner, p["freeze_backup"], res.stdout.encode(), 0o644, journal=False)
        return Result(CHANGED, f"saved pip freeze to {p['freeze_backup']}" + (f"; warning: {warn}" if warn else ""))

    def render_shell_body(self) -> List[str]:
        p = self.params
        if p["mode"] == "new":
            return [
                f"local venv={q(p['path'])} py={q(p['python'])} owner",
                'if [[ -x $RW_ROOT$venv/bin/python ]]; then',
                '  rw_ok "venv $venv exists"',
                "  return 0",
                "fi",
                'if [[ -e $RW_ROOT$venv ]]; then rw_die "$venv exists but is not a venv: move it away first"; fi',
                'if ! command -v "$py" >/dev/null 2>&1; then',
                '  if [[ $DRY_RUN == 1 ]]; then rw_warn "$py is not installed here"; else',
                '    rw_die "$py is not installed (on Ubuntu: apt-get install python3-venv)"',
                "  fi",
                "fi",
                'owner=$(rw_owner_of "$RW_ROOT$venv")',
                'rw_as "$owner" "$py" -m venv -- "$venv"',
                f"rw_mark {q(self.id)}",
            ]
        return [
            f"local venv={q(p['path'])} backup={q(p['freeze_backup'])} owner freeze",
            'if [[ ! -x $RW_ROOT$venv/bin/python ]]; then rw_die "$venv is not a venv (no bin/python)"; fi',
            'if [[ -s $RW_ROOT$backup ]]; then',
            '  rw_ok "pip freeze already saved in $backup"',
            "  return 0",
            "fi",
            'owner=$(rw_venv_user "$venv")',
            "if [[ $DRY_RUN == 1 ]]; then",
            '  rw_would "save pip freeze of $venv to $backup (as $owner)"',
            f"  rw_mark {q(self.id)}",
            "  return 0",
            "fi",
            'if rw_uv_venv "$venv"; then',
            '  freeze=$(rw_user_run "$owner" uv pip freeze --python "$venv/bin/python")',
            "else",
            '  freeze=$(rw_user_run "$owner" "$venv/bin/python" -m pip freeze --all)',
            "fi",
            'rw_put_as "$owner" "$backup" 0644 "${freeze}"$\'\\n\'',
            'rw_say "    saved the package list to $backup"',
            f"rw_mark {q(self.id)}",
        ]

    def ansible_vars(self) -> Dict[str, Any]:
        p = self.params
        return {self.var("path"): p["path"], self.var("python"): p["python"], self.var("backup"): p["freeze_backup"]}

    def render_ansible(self) -> List[Dict[str, Any]]:
        p = self.params
        n = f"Step {self.index} {self.id}"
        if p["mode"] == "new":
            return [{"name": f"{n}: create the new venv", "ansible.builtin.command": {
                "argv": [J(self.var("python")), "-m", "venv", "--", J(self.var("path"))],
                "creates": J(self.var("path")) + "/bin/python"}}]
        freeze = self.var("freeze")
        where = self.var("backup_dir")
        tool, lock, proj = self.var("tool"), self.var("uv_lock"), self.var("pyproject")
        project = [  # uv_project_warning(), on each host: a uv project beside the venv undoes the change
            {"name": f"{n}: a uv.lock beside the venv? (reads only)", "ansible.builtin.stat": {
                "path": "{{ " + self.var("path") + " | dirname }}/uv.lock"}, "register": lock},
            {"name": f"{n}: a pyproject.toml beside the venv? (reads only)", "ansible.builtin.stat": {
                "path": "{{ " + self.var("path") + " | dirname }}/pyproject.toml"}, "register": proj},
            {"name": f"{n}: warn that the uv project would undo the change", "ansible.builtin.debug": {
                "msg": "WARNING: {{ " + self.var("path") + " | dirname }} is a uv project: its next `uv sync` or "
                       "`uv run` puts back the locked torch and undoes this change; make it lasting in "
                       "pyproject.toml instead: a [[tool.uv.index]] entry (name = \"pytorch-rocm\", url = the index "
                       "of this plan, explicit = true) and [tool.uv.sources] torch = { index = \"pytorch-rocm\" } "
                       "(the same for torchvision, torchaudio, pytorch-triton-rocm), then `uv lock`"},
             "when": lock + ".stat.exists or (" + proj + ".stat.exists and " + uv_when(tool) + ")"},
        ]
        return uv_probe_tasks(n, self.var("path"), tool) + project + [
            {"name": f"{n}: read the venv's package list", "ansible.builtin.command": {
                "argv": "{{ (['uv', 'pip', 'freeze', '--python', " + self.var("path") + " ~ '/bin/python'] if "
                        + uv_when(tool) + " else [" + self.var("path") + " ~ '/bin/python', '-m', 'pip', 'freeze', "
                        "'--all']) }}"},
             "register": freeze, "changed_when": False, "check_mode": False},
            {"name": f"{n}: is the directory of the record there (reads only)", "ansible.builtin.stat": {
                "path": "{{ " + self.var("backup") + " | dirname }}"}, "register": where},
            # the record's directory is made first (copy makes none); --check cannot copy into it
            {"name": f"{n}: make the record's directory", "ansible.builtin.file": {
                "path": "{{ " + self.var("backup") + " | dirname }}", "state": "directory", "mode": "0755"}},
            {"name": f"{n}: save the package list once", "ansible.builtin.copy": {
                "dest": J(self.var("backup")), "content": "{{ " + freeze + ".stdout }}\n", "force": False,
                "mode": "0644"}, "when": "not (ansible_check_mode and not " + where + ".stat.exists)"},
        ]


class VenvLink(Step):
    """Point the venv path (a symbolic link) at the new versioned venv, atomically; the previous
    target stays where it is, so going back is one link away.  A venv path that is a real directory
    (a venv made in place) is first moved to ``aside`` (which must not exist), by the owner of the
    directory it is in; rollback moves it back."""

    kind = "venv-link"
    required = ("link", "target")
    defaults = {"aside": ""}

    def validate(self) -> None:
        check_abs_path(self.params["link"], "venv link")
        check_abs_path(self.params["target"], "venv target")
        if self.params["aside"]:
            check_abs_path(self.params["aside"], "venv moved aside")

    def check(self, state) -> CheckResult:
        p = self.params
        if p["link"] in state.links:
            return CheckResult(OK if state.links[p["link"]] == p["target"] else CHANGE, "")
        if state.ctx.filesystem:
            if state.ctx.islink(p["link"]):
                cur = state.ctx.readlink(p["link"])
                if cur == p["target"]:
                    return CheckResult(OK, f"{p['link']} points at {p['target']}")
                return CheckResult(CHANGE, f"{p['link']} -> {cur}, will point at {p['target']} (the old one is kept)")
            if state.ctx.exists(p["link"]):
                if not p["aside"] or not state.ctx.isdir(p["link"]):
                    return CheckResult(UNKNOWN, f"{p['link']} is not a symbolic link; it will not be replaced")
                if state.ctx.exists(p["aside"]) or state.ctx.islink(p["aside"]):
                    return CheckResult(UNKNOWN, f"{p['link']} is a directory and {p['aside']} exists: it cannot be "
                                                "moved aside")
                return CheckResult(CHANGE, f"move the venv {p['link']} to {p['aside']}, then link {p['link']} -> "
                                           f"{p['target']}")
            return CheckResult(CHANGE, f"create the link {p['link']} -> {p['target']}")
        view = state.venv(p["link"])
        if view.exists and view.source == "snapshot":
            if p["aside"]:
                return CheckResult(CHANGE, f"point {p['link']} at {p['target']} (a venv directory there is moved "
                                           f"to {p['aside']} first)")
            return CheckResult(UNKNOWN, f"{p['link']} exists; a symbolic link will replace it only if it is one")
        return CheckResult(CHANGE, f"point {p['link']} at {p['target']}")

    def project(self, state) -> None:
        state.links[self.params["link"]] = self.params["target"]

    def describe(self, state) -> Description:
        p = self.params
        lines = [f"ln -sfn {p['target']} {p['link']} (atomically, through a temporary link)",
                 "the previous venv is kept; to go back, point the link at it again"]
        if p["aside"]:
            lines.insert(0, f"if {p['link']} is a venv directory: mv -T {p['link']} {p['aside']} (its scripts' "
                            f"#! lines still name {p['link']}: run {p['aside']}/bin/python -m ...; rollback moves "
                            "it back)")
        return Description(self.title, lines)

    def apply(self, ctx) -> Result:
        p = self.params
        if ctx.islink(p["link"]) and ctx.readlink(p["link"]) == p["target"]:
            return Result(OK, f"{p['link']} points at {p['target']}")
        owner = ctx.owner(os.path.dirname(p["link"]))
        moved = ""
        if ctx.exists(p["link"]) and not ctx.islink(p["link"]):
            if not p["aside"] or not ctx.isdir(p["link"]):
                return Result(FAILED, f"{p['link']} is not a symbolic link; not replacing it")
            if ctx.exists(p["aside"]) or ctx.islink(p["aside"]):
                return Result(FAILED, f"{p['link']} is a directory and {p['aside']} exists: not moving it there")
            ctx.move_aside(p["link"], p["aside"], user=owner)
            moved = p["aside"]
        previous = ctx.readlink(p["link"])
        ctx.symlink_flip(p["link"], p["target"], user=owner)
        kept = moved and f" (the previous venv moved to {moved}, kept)" or (
            f" (was {previous}, kept)" if previous else "")
        return Result(CHANGED, f"{p['link']} -> {p['target']}" + kept)

    def render_shell_body(self) -> List[str]:
        p = self.params
        return [
            f"local link={q(p['link'])} target={q(p['target'])} aside={q(p['aside'])} cur='' owner",
            'owner=$(rw_owner_of "$RW_ROOT${link%/*}")',
            'if [[ -L $RW_ROOT$link ]]; then',
            '  cur=$(readlink -- "$RW_ROOT$link")',
            '  if [[ $cur == "$target" ]]; then',
            '    rw_ok "$link points at $target"',
            "    return 0",
            "  fi",
            'elif [[ -n $aside && -d $RW_ROOT$link ]]; then',
            '  if [[ -e $RW_ROOT$aside || -L $RW_ROOT$aside ]]; then',
            '    rw_die "$link is a directory and $aside exists: not moving it there"',
            "  fi",
            '  rw_as "$owner" mv -T -- "$link" "$aside"',
            '  cur=$aside',
            'elif [[ -e $RW_ROOT$link ]]; then',
            '  rw_die "$link is not a symbolic link: not replacing it"',
            "fi",
            'rw_as "$owner" ln -sfn -- "$target" "$link.rocm-wizard-new"',
            'rw_as "$owner" mv -Tf -- "$link.rocm-wizard-new" "$link"',
            'if [[ -n $cur ]]; then rw_say "    the previous venv $cur is kept"; fi',
            f"rw_mark {q(self.id)}",
        ]

    def ansible_vars(self) -> Dict[str, Any]:
        return {self.var("link"): self.params["link"], self.var("target"): self.params["target"],
                self.var("aside"): self.params["aside"]}

    def render_ansible(self) -> List[Dict[str, Any]]:
        n = f"Step {self.index} {self.id}"
        tasks: List[Dict[str, Any]] = []
        if self.params["aside"]:
            st = self.var("stat")
            tasks += [
                {"name": f"{n}: is the venv path a directory", "ansible.builtin.stat": {
                    "path": J(self.var("link")), "follow": False}, "register": st},
                {"name": f"{n}: move the venv directory aside", "ansible.builtin.command": {
                    "argv": ["mv", "-T", "--", J(self.var("link")), J(self.var("aside"))],
                    "creates": J(self.var("aside"))},
                 "when": f"{st}.stat.exists and {st}.stat.isdir and not {st}.stat.islnk"},
            ]
        tasks.append({"name": f"{n}: point the venv link at the new venv", "ansible.builtin.file": {
            "src": J(self.var("target")), "dest": J(self.var("link")), "state": "link", "force": True}})
        return tasks


class PipUninstall(Step):
    """Remove stray Triton distributions.  They share the ``triton/`` directory with the one torch
    requires, so when any is present the required one is removed too (and reinstalled cleanly by
    the next step)."""

    kind = "pip-uninstall"
    required = ("venv", "strays")
    defaults = {"keep": ""}

    def validate(self) -> None:
        check_abs_path(self.params["venv"], "venv")
        self.params["strays"] = [canon_dist(s) for s in self.params["strays"]]
        if self.params["keep"]:
            self.params["keep"] = canon_dist(self.params["keep"])

    def _found(self, dists: Dict[str, str]) -> List[str]:
        found = [s for s in self.params["strays"] if s in dists]
        if found and self.params["keep"] and self.params["keep"] in dists:
            found.append(self.params["keep"])
        return found

    def check(self, state) -> CheckResult:
        dists = _venv_dists(state, self.params["venv"])
        if dists is None:
            return CheckResult(UNKNOWN, "the venv's distributions are not known")
        found = self._found(dists)
        if not found:
            return CheckResult(OK, "no stray Triton distribution")
        return CheckResult(CHANGE, "remove " + ", ".join(found))

    def project(self, state) -> None:
        dists = _venv_dists(state, self.params["venv"])
        if dists is None:
            return
        rest = {k: v for k, v in dists.items() if k not in self._found(dists)}
        _update_venv(state, self.params["venv"], rest, self.id)

    def describe(self, state) -> Description:
        dists = _venv_dists(state, self.params["venv"]) or {}
        found = self._found(dists)
        desc = Description(self.title, [f"pip uninstall -y {' '.join(found) or '(strays found at run time)'}"])
        for name in found:
            desc.packages.append(PackageChange(name, dists.get(name), None))
        return desc

    def apply(self, ctx) -> Result:
        venv = self.params["venv"]
        py = _python_of(venv)
        if not os.path.exists(ctx.p(py)):
            return Result(OK, "no venv yet, nothing to remove")
        owner = ctx.venv_user(venv)
        names = self.params["strays"] + ([self.params["keep"]] if self.params["keep"] else [])
        res = _run_py(ctx, py, PY_DISTS, names, owner)
        have = {ln.split()[0]: ln.split()[1] for ln in res.stdout.splitlines() if len(ln.split()) == 2}
        found = self._found(have)
        if not found:
            return Result(OK, "no stray Triton distribution")
        ctx.check_call(pip_argv(ctx, venv, "uninstall", "-y", *found), user=owner, timeout=600)
        return Result(CHANGED, "removed " + ", ".join(found))

    def render_shell_body(self) -> List[str]:
        p = self.params
        return [
            f"local venv={q(p['venv'])} keep={q(p['keep'])} owner=''",
            shell_array("strays", p["strays"]),
            "local -a found=()",
            'if [[ -x $RW_ROOT$venv/bin/python ]]; then owner=$(rw_venv_user "$venv"); fi',
            'mapfile -t found < <(rw_dists "$owner" "$venv/bin/python" "${strays[@]}")',
            'if [[ ${#found[@]} -eq 0 ]]; then',
            "  rw_ok 'no stray Triton distribution'",
            "  return 0",
            "fi",
            'if [[ -n $keep && -n $(rw_dists "$owner" "$venv/bin/python" "$keep") ]]; then found+=("$keep"); fi',
            'if command -v uv >/dev/null 2>&1 || rw_uv_venv "$venv"; then',
            '  rw_as "$owner" uv pip uninstall --python "$venv/bin/python" "${found[@]}"',
            "else",
            '  rw_as "$owner" "$venv/bin/python" -m pip uninstall -y "${found[@]}"',
            "fi",
            f"rw_mark {q(self.id)}",
        ]

    def ansible_vars(self) -> Dict[str, Any]:
        return {self.var("venv"): self.params["venv"], self.var("strays"): list(self.params["strays"]),
                self.var("keep"): self.params["keep"]}

    def render_ansible(self) -> List[Dict[str, Any]]:
        n = f"Step {self.index} {self.id}"
        listed, tool, venv = self.var("listed"), self.var("tool"), self.var("venv")
        names = "(" + self.var("strays") + " + ([" + self.var("keep") + "] if " + self.var("keep") + " else []))"
        present = ("(" + listed + ".stdout_lines | " + _NORM + " | map('regex_replace', '==.*$', '') | list)")
        any_stray = "(" + present + " | intersect(" + self.var("strays") + ") | length) > 0"
        tasks: List[Dict[str, Any]] = uv_probe_tasks(n, venv, tool) + [
            {"name": f"{n}: list the Triton distributions", "ansible.builtin.command": {
                "argv": "{{ (['uv', 'pip', 'list', '--python', " + venv + " ~ '/bin/python'] if " + uv_when(tool)
                        + " else [" + venv + " ~ '/bin/python', '-m', 'pip', 'list']) + ['--format', 'freeze'] }}"},
             "register": listed, "changed_when": False, "failed_when": False, "check_mode": False},
            # pip itself, not Ansible's pip module: a command the playbook starts through the owner's
            # bounded runner (plan/ansible.py _as_owner), as every other start of the venv's interpreter
            {"name": f"{n}: remove the stray ones and the one torch requires", "ansible.builtin.command": {
                "argv": "{{ [" + venv + " ~ '/bin/python', '-m', 'pip', 'uninstall', '--yes'] + " + names + " }}"},
             "register": self.var("removed"),
             "changed_when": "'Successfully uninstalled' in " + self.var("removed") + ".stdout",
             "when": "not (" + uv_when(tool) + ") and " + any_stray},
            {"name": f"{n}: remove the stray ones and the one torch requires (uv pip: a venv without pip)",
             "ansible.builtin.command": {
                "argv": "{{ ['uv', 'pip', 'uninstall', '--python', " + venv + " ~ '/bin/python'] + (" + present
                        + " | intersect(" + names + ")) }}"},
             "changed_when": True,  # runs only when a stray is there
             "when": uv_when(tool) + " and " + any_stray},
        ]
        return tasks


SECRET_MASK = "***"  # a password as plans, logs and JSON show it


def index_env(url: str, login: str = "", password: str = "") -> Dict[str, str]:
    """The index as pip and uv read it from the environment -- not from their command line, where
    every user could read its credentials (``ps``)."""
    if login:
        from urllib.parse import quote

        scheme, _, rest = url.partition("://")
        url = f"{scheme}://{quote(login, safe='')}:{quote(password, safe='')}@{rest}"
    return {"PIP_INDEX_URL": url, "UV_INDEX_URL": url, "UV_DEFAULT_INDEX": url}


class PipInstall(Step):
    """Install exact pins (torch, torchvision, torchaudio and the Triton build torch requires) from
    one index; uv when it is installed, pip otherwise.  The index reaches pip (uv) through its
    environment, never its command line; an index login's password is kept out of every output of
    the plan (the script asks for it at run time, or reads ``RW_INDEX_PASSWORD``; the playbook takes
    ``rw_index_password``)."""

    kind = "pip-install"
    required = ("venv", "requirements", "index_url")
    defaults = {"index_login": "", "index_password": ""}

    def validate(self) -> None:
        check_abs_path(self.params["venv"], "venv")
        _pins(self.params["requirements"], extras=True)
        check_url(self.params["index_url"], "index URL")
        if "@" in self.params["index_url"].split("://", 1)[-1].split("/", 1)[0]:
            raise ValueError("the index URL must not carry credentials: give index_login and index_password")

    def to_dict(self) -> Dict[str, Any]:
        d = super().to_dict()
        if d["params"]["index_password"]:
            d["params"]["index_password"] = SECRET_MASK
        return d

    def _pending(self, dists: Optional[Dict[str, str]]) -> Optional[List[Tuple[str, Optional[str], str]]]:
        if dists is None:
            return None
        out = []
        for name, version in _pins(self.params["requirements"], extras=True):
            have = dists.get(name)
            if not pin_matches(have, version):
                out.append((name, have, version))
        return out

    def check(self, state) -> CheckResult:
        todo = self._pending(_venv_dists(state, self.params["venv"]))
        if todo is None:
            return CheckResult(UNKNOWN, "the venv's packages are not known")
        if not todo:
            return CheckResult(OK, "installed: " + " ".join(self.params["requirements"]))
        return CheckResult(CHANGE, "; ".join(f"{n} {h or '(not installed)'} -> {v}" for n, h, v in todo))

    def project(self, state) -> None:
        dists = dict(_venv_dists(state, self.params["venv"]) or {})
        for name, version in _pins(self.params["requirements"], extras=True):
            dists[name] = version
        _update_venv(state, self.params["venv"], dists, self.id)

    def describe(self, state) -> Description:
        todo = self._pending(_venv_dists(state, self.params["venv"]))
        login = self.params["index_login"]
        desc = Description(self.title, [
            f"pip install {' '.join(self.params['requirements'])} from {self.params['index_url']}"
            + (f" (login {login}, password not shown)" if login else "")
            + " (uv pip install when uv is installed; the index given as PIP_INDEX_URL / UV_INDEX_URL)"])
        for name, have, version in todo or []:
            desc.packages.append(PackageChange(name, have, version))
        desc.commands.append([_python_of(self.params["venv"]), "-m", "pip", "install"]
                             + list(self.params["requirements"]))
        return desc

    def apply(self, ctx) -> Result:
        venv = self.params["venv"]
        py = _python_of(venv)
        if not os.path.exists(ctx.p(py)):
            return Result(FAILED, f"{venv} is not a venv (no bin/python)")
        owner = ctx.venv_user(venv)
        res = _run_py(ctx, py, PY_PINS, list(self.params["requirements"]), owner)
        if res.rc == 0 and not res.error:  # every pin, with its extras' packages
            return Result(OK, "already installed")
        before = "; ".join(ln.strip() for ln in res.stdout.splitlines()[:8] if ln.strip())
        if ctx.which("uv"):
            argv = ["uv", "pip", "install", "--python", py]
        else:
            argv = [py, "-m", "pip", "install", "--disable-pip-version-check", "--no-input"]
        p = self.params
        if p["index_password"] == SECRET_MASK:  # a plan read back from JSON (resume)
            return Result(FAILED, "the index password is not kept in the run's files: run again with the index URL "
                                  "that carries it")
        ctx.check_call(argv + list(p["requirements"]), user=owner, timeout=7200,
                       env=index_env(p["index_url"], p["index_login"], p["index_password"]))
        return Result(CHANGED, "installed " + " ".join(self.params["requirements"])
                      + (f" (was: {before})" if before else ""))

    def render_shell_body(self) -> List[str]:
        p = self.params
        lines = [
            f"local venv={q(p['venv'])} idx={q(p['index_url'])} owner=''" + (f" login={q(p['index_login'])} pw"
                                                                               if p["index_login"] else ""),
            shell_array("reqs", p["requirements"]),
            'if [[ -x $RW_ROOT$venv/bin/python ]]; then owner=$(rw_venv_user "$venv"); fi',
            'if rw_pins_ok "$owner" "$venv/bin/python" "${reqs[@]}"; then',
            '  rw_ok "installed: ${reqs[*]}"',
            "  return 0",
            "fi",
            "# a dry run, before an earlier step made the venv: whoever will own it",
            'if [[ -z $owner ]]; then owner=$(rw_owner_of "$RW_ROOT$venv"); fi',
        ]
        if p["index_login"]:
            lines += [
                "pw=${RW_INDEX_PASSWORD:-}",
                'if [[ -z $pw && $DRY_RUN != 1 && -t 0 ]]; then read -rsp "password of $login for $idx: " pw; '
                'rw_say ""; fi',
                'if [[ -z $pw && $DRY_RUN != 1 ]]; then',
                '  rw_die "the index needs the password of $login, which this script does not contain: run it on a '
                'terminal (it asks), or with RW_INDEX_PASSWORD (URL-encoded) in its environment"',
                "fi",
                'idx="${idx%%://*}://$login:$pw@${idx#*://}"',
            ]
        lines += [
            'PIP_INDEX_URL=$idx UV_INDEX_URL=$idx UV_DEFAULT_INDEX=$idx rw_pip_install "$owner" "$venv/bin/python" '
            '"${reqs[@]}"',
            f"rw_mark {q(self.id)}",
        ]
        return lines

    def ansible_vars(self) -> Dict[str, Any]:
        p = self.params
        out = {self.var("venv"): p["venv"], self.var("requirements"): list(p["requirements"]),
               self.var("index_url"): p["index_url"]}
        if p["index_login"]:
            out["rw_index_login"] = p["index_login"]
        return out

    def render_ansible(self) -> List[Dict[str, Any]]:
        login = self.params["index_login"]
        url = J(self.var("index_url"))
        if login:  # the password from the play's caller, never from the plan
            url = ("{{ " + self.var("index_url") + " | regex_replace('^([a-z+]+://)', '\\1' + (rw_index_login "
                   "| urlencode) + ':' + (rw_index_password | urlencode) + '@') }}")
        n = f"Step {self.index} {self.id}"
        venv, tool, have, reqs = self.var("venv"), self.var("tool"), self.var("have"), self.var("requirements")
        # pip itself, not Ansible's pip module: started through the owner's bounded runner
        # (plan/ansible.py _as_owner); already-satisfied pins change nothing
        task = {"name": f"{n}: install the exact pins from the index", "ansible.builtin.command": {
            "argv": "{{ [" + venv + " ~ '/bin/python', '-m', 'pip', 'install'] + " + reqs + " }}"},
            "environment": {"PIP_INDEX_URL": url}, "register": self.var("installed"),
            "changed_when": "'Successfully installed' in " + self.var("installed") + ".stdout",
            "when": "not (" + uv_when(tool) + ")"}
        # a venv made by uv without pip: uv pip, run only when a pin is not installed as it is
        uv_task = {"name": f"{n}: install the exact pins from the index (uv pip: a venv without pip)",
                   "ansible.builtin.command": {
                       "argv": "{{ ['uv', 'pip', 'install', '--python', " + venv + " ~ '/bin/python'] + " + reqs + " }}"},
                   "environment": {"UV_INDEX_URL": url},
                   "changed_when": True,  # runs only when a pin is missing
                   "when": uv_when(tool) + " and (" + reqs + " | " + _NORM + " | difference(" + have
                           + ".stdout_lines | " + _NORM + ") | length) > 0"}
        if login:
            task["no_log"] = uv_task["no_log"] = True
        return uv_probe_tasks(n, venv, tool) + [
            task,
            {"name": f"{n}: what the venv has (uv pip: a venv without pip; reads only)", "ansible.builtin.command": {
                "argv": ["uv", "pip", "freeze", "--python", J(venv) + "/bin/python"]},
             "register": have, "changed_when": False, "check_mode": False, "when": uv_when(tool)},
            uv_task,
        ]


class PipRestore(Step):
    """Reinstall into the new venv the other packages of the previous one (transformers,
    diffusers...), with the new torch pinned: exact old versions when they fit, otherwise the
    versions pip finds compatible with the new torch."""

    kind = "pip-restore"
    required = ("source", "venv", "constraints", "exclude")

    def validate(self) -> None:
        check_abs_path(self.params["source"], "previous venv")
        check_abs_path(self.params["venv"], "venv")
        _pins(self.params["constraints"])
        self.params["exclude"] = [canon_dist(x) for x in self.params["exclude"]]

    def _wanted(self, state) -> Optional[List[str]]:
        src = state.venv(self.params["source"])
        if src.exists is False:
            return []
        if src.dists is None:
            return None
        new = _venv_dists(state, self.params["venv"])
        if new is None:
            return None
        return sorted(n for n in src.dists if n not in self.params["exclude"] and not n.startswith("nvidia-")
                      and n not in ("pip", "setuptools", "wheel") and n not in new)

    def check(self, state) -> CheckResult:
        if state.ctx.filesystem and os.path.realpath(state.ctx.p(self.params["source"])) == \
                os.path.realpath(state.ctx.p(self.params["venv"])):
            return CheckResult(OK, "the previous venv is this one")
        want = self._wanted(state)
        if want is None:
            return CheckResult(UNKNOWN, "the previous venv's packages are not known")
        if not want:
            return CheckResult(OK, "no other package to carry over")
        return CheckResult(CHANGE, "carry over " + ", ".join(want))

    def project(self, state) -> None:
        want = self._wanted(state) or []
        dists = dict(_venv_dists(state, self.params["venv"]) or {})
        src = state.venv(self.params["source"]).dists or {}
        for n in want:
            dists[n] = src.get(n, "")
        _update_venv(state, self.params["venv"], dists, self.id)

    def describe(self, state) -> Description:
        want = self._wanted(state)
        return Description(self.title, [
            f"install into {self.params['venv']} the packages of {self.params['source']} except the torch family: "
            + (", ".join(want) if want else "(read at run time)"),
            "with " + " ".join(self.params["constraints"]) + " as constraints; exact old versions first, "
            "else the versions pip finds compatible"])

    def apply(self, ctx) -> Result:
        p = self.params
        old, new = _python_of(p["source"]), _python_of(p["venv"])
        if not os.path.exists(ctx.p(old)) or os.path.realpath(ctx.p(p["source"])) == os.path.realpath(ctx.p(p["venv"])):
            return Result(OK, "no previous venv to copy packages from")
        owner = ctx.venv_user(p["venv"])
        res = _run_py(ctx, old, PY_FREEZE, p["exclude"] + ["pip", "setuptools", "wheel"], ctx.venv_user(p["source"]))
        reqs = [ln.strip() for ln in res.stdout.splitlines() if "==" in ln]
        have = _run_py(ctx, new, PY_DISTS, [r.split("==")[0] for r in reqs], owner)
        present = {ln.split()[0] for ln in have.stdout.splitlines() if ln.split()}
        want = [r for r in reqs if r.split("==")[0] not in present]
        if not want:
            return Result(OK, "nothing to carry over")
        import tempfile

        with tempfile.TemporaryDirectory() as tmp:
            cons = os.path.join(tmp, "constraints.txt")
            with open(cons, "w") as fh:
                fh.write("\n".join(p["constraints"]) + "\n")
            os.chmod(tmp, 0o755)
            os.chmod(cons, 0o644)
            base = [new, "-m", "pip", "install", "--disable-pip-version-check", "--no-input", "-c", cons]
            first = ctx.run(base + want, user=owner, timeout=7200)
            if first.rc == 0 and not first.error:
                return Result(CHANGED, "carried over " + " ".join(want))
            ctx.check_call(base + [r.split("==")[0] for r in want], user=owner, timeout=7200)
        return Result(CHANGED, "carried over (newer, compatible versions) " + " ".join(r.split("==")[0] for r in want))

    def render_shell_body(self) -> List[str]:
        p = self.params
        return [
            f"local src={q(p['source'])} venv={q(p['venv'])} owner srcowner line",
            shell_array("exclude", p["exclude"] + ["pip", "setuptools", "wheel"]),
            shell_array("cons", p["constraints"]),
            "local -a want=() names=()",
            'if [[ ! -x $RW_ROOT$src/bin/python ]]; then',
            '  rw_ok "no previous venv at $src"',
            "  return 0",
            "fi",
            'if [[ $(readlink -f -- "$RW_ROOT$src") == "$(readlink -f -- "$RW_ROOT$venv")" ]]; then',
            "  rw_ok 'the previous venv is this one'",
            "  return 0",
            "fi",
            'srcowner=$(rw_venv_user "$src")',
            'if [[ -x $RW_ROOT$venv/bin/python ]]; then owner=$(rw_venv_user "$venv"); else owner=$(rw_owner_of "$RW_ROOT$venv"); fi',
            "while IFS= read -r line; do",
            '  if [[ $line != *==* ]]; then continue; fi',
            '  if [[ -n $(rw_dists "$owner" "$venv/bin/python" "${line%%==*}") ]]; then continue; fi',
            '  want+=("$line")',
            '  names+=("${line%%==*}")',
            f'done < <(rw_user_run "$srcowner" "$src/bin/python" -c {q(PY_FREEZE)} "${{exclude[@]}}" 2>/dev/null || true)',
            'if [[ ${#want[@]} -eq 0 ]]; then',
            "  rw_ok 'no other package to carry over'",
            "  return 0",
            "fi",
            "if [[ $DRY_RUN == 1 ]]; then",
            '  rw_would "install ${want[*]} into $venv (torch pinned)"',
            f"  rw_mark {q(self.id)}",
            "  return 0",
            "fi",
            "rw_tmp",
            'printf \'%s\\n\' "${cons[@]}" >"$RW_TMP/constraints.txt"',
            'chmod 0755 "$RW_TMP"',
            'chmod 0644 "$RW_TMP/constraints.txt"',
            'if ! rw_pip_install "$owner" "$venv/bin/python" -c "$RW_TMP/constraints.txt" "${want[@]}"; then',
            '  rw_warn "the exact previous versions do not fit the new torch; letting pip choose compatible ones"',
            '  rw_pip_install "$owner" "$venv/bin/python" -c "$RW_TMP/constraints.txt" "${names[@]}"',
            "fi",
            f"rw_mark {q(self.id)}",
        ]

    def ansible_vars(self) -> Dict[str, Any]:
        p = self.params
        return {self.var("source"): p["source"], self.var("venv"): p["venv"],
                self.var("exclude"): p["exclude"] + ["pip", "setuptools", "wheel"],
                self.var("constraints"): list(p["constraints"])}

    def render_ansible(self) -> List[Dict[str, Any]]:
        n = f"Step {self.index} {self.id}"
        old = self.var("old")
        wanted = ("(" + old + ".stdout_lines | reject('match', '(?i)^(nvidia-|' + (" + self.var("exclude")
                  + " | map('regex_escape') | join('|')) + ')[=]') | list)")
        return [
            {"name": f"{n}: write the torch pins as pip constraints", "ansible.builtin.copy": {
                "dest": J(self.var("venv")) + "/rocm-wizard-constraints.txt",
                "content": "{{ " + self.var("constraints") + " | join('\\n') }}\n", "mode": "0644"}},
            {"name": f"{n}: read the previous venv's packages", "ansible.builtin.command": {
                "argv": [J(self.var("source")) + "/bin/python", "-m", "pip", "list", "--format", "freeze",
                         "--exclude-editable"]},
             "register": old, "changed_when": False, "failed_when": False, "check_mode": False},
            # pip itself, not Ansible's pip module: started through the owner's bounded runner
            # (plan/ansible.py _as_owner)
            {"name": f"{n}: install them into the new venv with torch pinned", "ansible.builtin.command": {
                "argv": "{{ [" + self.var("venv") + " ~ '/bin/python', '-m', 'pip', 'install', '-c', " + self.var("venv")
                        + " ~ '/rocm-wizard-constraints.txt'] + " + wanted + " }}"},
             "register": self.var("restored"),
             "changed_when": "'Successfully installed' in " + self.var("restored") + ".stdout",
             "when": old + ".rc == 0 and (" + wanted + " | length) > 0"},
        ]


class EnvPersist(Step):
    """Persist environment variables where the venv's users get them: a managed block in the
    venv's ``bin/activate`` and an env file a systemd unit can load (``EnvironmentFile=``)."""

    kind = "env-persist"
    required = ("venv", "env", "env_file")

    def validate(self) -> None:
        check_abs_path(self.params["venv"], "venv")
        check_abs_path(self.params["env_file"], "env file")
        env = self.params["env"]
        if not isinstance(env, dict) or not env:
            raise ValueError("env-persist needs at least one variable")
        for k, v in env.items():
            if not SAFE_ENV_NAME.match(k) or not re.match(r"^[A-Za-z0-9._:/,+=-]*$", str(v)):
                raise ValueError(f"environment setting {k}={v!r} is not allowed")

    @property
    def block(self) -> str:
        lines = [BLOCK_BEGIN]
        lines += [f"export {k}={q(v)}" for k, v in sorted(self.params["env"].items())]
        lines.append(BLOCK_END)
        return "\n".join(lines) + "\n"

    @property
    def env_content(self) -> str:
        from ..shellquote import comment

        head = (f"# Environment for programs that use the venv {comment(self.params['venv'])}\n"
                "# (systemd: EnvironmentFile= this file).  Written by rocm-wizard.\n")
        return head + "".join(f"{k}={v}\n" for k, v in sorted(self.params["env"].items()))

    def new_activate(self, text: str) -> str:
        out, skip = [], False
        for line in text.splitlines():
            if line == BLOCK_BEGIN:
                skip = True
                continue
            if line == BLOCK_END:
                skip = False
                continue
            if not skip:
                out.append(line + "\n")
        return "".join(out) + self.block

    @property
    def activate(self) -> str:
        return self.params["venv"].rstrip("/") + "/bin/activate"

    def check(self, state) -> CheckResult:
        venv = state.venv(self.params["venv"])
        if venv.created and state.file(self.activate).state != PRESENT:
            return CheckResult(CHANGE, "set " + ", ".join(f"{k}={v}" for k, v in self.params["env"].items())
                               + " in the new venv")
        act = state.file(self.activate)
        env = state.file(self.params["env_file"])
        if act.state == PRESENT and act.text is not None and env.state != "unknown":
            if act.text == self.new_activate(act.text) and env.data == self.env_content.encode():
                return CheckResult(OK, "the environment is set in bin/activate and the env file")
            return CheckResult(CHANGE, "set " + ", ".join(f"{k}={v}" for k, v in self.params["env"].items()))
        if act.state == ABSENT and venv.exists is False:
            return CheckResult(CHANGE, "the venv is created earlier")
        return CheckResult(UNKNOWN, "bin/activate: not known")

    def project(self, state) -> None:
        act = state.file(self.activate)
        if act.text is not None:
            state.set_file(self.activate, self.new_activate(act.text).encode(), self.id)
        state.set_file(self.params["env_file"], self.env_content.encode(), self.id)

    def describe(self, state) -> Description:
        act = state.file(self.activate)
        desc = Description(self.title, [f"add a managed block to {self.activate}",
                                        f"write {self.params['env_file']} (for systemd EnvironmentFile=)"])
        if act.text is not None:
            desc.files.append(FileChange(self.activate, "edit", unified_diff(
                self.activate, act.data, self.new_activate(act.text).encode())))
        else:
            desc.files.append(FileChange(self.activate, "edit", note="adds:\n" + self.block))
        env = state.file(self.params["env_file"])
        desc.files.append(FileChange(self.params["env_file"], "write", unified_diff(
            self.params["env_file"], env.data if env.state == PRESENT else None, self.env_content.encode())))
        return desc

    def apply(self, ctx) -> Result:
        owner = ctx.venv_user(self.params["venv"])
        # read as the owner: bin/activate is theirs, and a link there must not show root's files
        data, mode = ctx.read_as(owner, self.activate)
        if data is None:
            return Result(FAILED, f"{self.activate} does not exist")
        text = decode(data)
        changed = []
        new = self.new_activate(text)
        if new != text:
            ctx.write_as(owner, self.activate, new.encode(), (mode or 0o644) & 0o777)
            changed.append(self.activate)
        if ctx.read_as(owner, self.params["env_file"])[0] != self.env_content.encode():
            ctx.write_as(owner, self.params["env_file"], self.env_content.encode(), 0o644)
            changed.append(self.params["env_file"])
        if not changed:
            return Result(OK, "environment already set")
        return Result(CHANGED, "wrote " + ", ".join(changed))

    def render_shell_body(self) -> List[str]:
        p = self.params
        return [
            f"local venv={q(p['venv'])} envfile={q(p['env_file'])} owner mode",
            f"local block={q(self.block)} envcontent={q(self.env_content)}",
            'local activate="$RW_ROOT$venv/bin/activate"',
            'if [[ ! -f $activate ]]; then',
            "  if [[ $DRY_RUN == 1 ]]; then",
            '    rw_would "add the variables to $venv/bin/activate and write $envfile"',
            f"    rw_mark {q(self.id)}",
            "    return 0",
            "  fi",
            '  rw_die "$venv/bin/activate does not exist"',
            "fi",
            'owner=$(rw_venv_user "$venv")',
            'rw_with_block "$activate" "$block" "$owner"',
            'if rw_same "$activate" "$RW_NEW" && rw_same "$RW_ROOT$envfile" "$envcontent"; then',
            "  rw_ok 'the environment is set in bin/activate and the env file'",
            "  return 0",
            "fi",
            'if ! rw_same "$activate" "$RW_NEW"; then',
            '  mode=$(stat -c %a -- "$activate")',
            '  rw_put_as "$owner" "$venv/bin/activate" "$mode" "$RW_NEW"',
            "fi",
            'if ! rw_same "$RW_ROOT$envfile" "$envcontent"; then rw_put_as "$owner" "$envfile" 0644 "$envcontent"; fi',
            f"rw_mark {q(self.id)}",
        ]

    def ansible_vars(self) -> Dict[str, Any]:
        p = self.params
        return {self.var("activate"): self.activate, self.var("block"): "\n".join(self.block.splitlines()[1:-1]),
                self.var("env_file"): p["env_file"], self.var("env_content"): self.env_content}

    def render_ansible(self) -> List[Dict[str, Any]]:
        n = f"Step {self.index} {self.id}"
        return [
            {"name": f"{n}: set the variables in bin/activate", "ansible.builtin.blockinfile": {
                "path": J(self.var("activate")), "block": J(self.var("block")),
                "marker": "# {mark} rocm-wizard", "marker_begin": ">>>", "marker_end": "<<<"}},
            {"name": f"{n}: write the env file for systemd units", "ansible.builtin.copy": {
                "dest": J(self.var("env_file")), "content": J(self.var("env_content")), "mode": "0644"}},
        ]


class PipCheck(Step):
    """``pip check`` in the venv after the change: the other packages' own metadata says what the
    new torch breaks (transformers, diffusers, accelerate...).  It reports, it does not fail."""

    kind = "pip-check"
    required = ("venv",)

    def validate(self) -> None:
        check_abs_path(self.params["venv"], "venv")

    def check(self, state) -> CheckResult:
        return CheckResult(OK, "reports broken requirements after the change (never changes anything)")

    def describe(self, state) -> Description:
        return Description(self.title, ["pip check (report only)"],
                           commands=[[_python_of(self.params["venv"]), "-m", "pip", "check"]])

    def apply(self, ctx) -> Result:
        py = _python_of(self.params["venv"])
        if not os.path.exists(ctx.p(py)):
            return Result(OK, "no venv to check")
        res = ctx.run(pip_argv(ctx, self.params["venv"], "check"), user=ctx.venv_user(self.params["venv"]),
                      timeout=600)
        if res.rc == 0:
            return Result(OK, "pip check: no broken requirements")
        return Result(OK, "pip check reports (fix by upgrading or pinning these, or go back to the previous venv): "
                      + " | ".join((res.stdout or res.stderr).strip().splitlines()))

    def render_shell_body(self) -> List[str]:
        return [
            f"local venv={q(self.params['venv'])} out owner",
            'if [[ ! -x $RW_ROOT$venv/bin/python ]]; then',
            "  rw_ok 'no venv yet: pip check runs after the install'",
            "  return 0",
            "fi",
            'owner=$(rw_venv_user "$venv")',
            'local -a check=("$venv/bin/python" -m pip check)',
            'if rw_uv_venv "$venv"; then check=(uv pip check --python "$venv/bin/python"); fi',
            'if out=$(rw_user_run "$owner" "${check[@]}" 2>&1); then',
            "  rw_ok 'pip check: no broken requirements'",
            "  return 0",
            "fi",
            "rw_warn 'pip check reports requirements the change broke (from the packages'\"'\"' own metadata):'",
            "printf '      %s\\n' \"$out\" | rw_clean >&2",
            "rw_say '    fix: upgrade or pin the packages named above in the venv, or go back to the previous venv'",
        ]

    def ansible_vars(self) -> Dict[str, Any]:
        return {self.var("venv"): self.params["venv"]}

    def render_ansible(self) -> List[Dict[str, Any]]:
        n = f"Step {self.index} {self.id}"
        out, tool, venv = self.var("out"), self.var("tool"), self.var("venv")
        return uv_probe_tasks(n, venv, tool) + [
            {"name": f"{n}: run pip check", "ansible.builtin.command": {
                "argv": "{{ ['uv', 'pip', 'check', '--python', " + venv + " ~ '/bin/python'] if " + uv_when(tool)
                        + " else [" + venv + " ~ '/bin/python', '-m', 'pip', 'check'] }}"},
             "register": out, "changed_when": False, "failed_when": False, "check_mode": False},
            {"name": f"{n}: report what the change broke", "ansible.builtin.debug": {
                "msg": "{{ " + out + ".stdout_lines }}"},
             "when": out + ".rc != 0"},
        ]


# ------------------------------------------------------------------------------ the guard
GUARD_HEAD = ("# Written by rocm-wizard: the PyTorch ROCm build this venv was given.  pip reads it through\n"
              "# the venv's pip.conf (constraint =), uv through UV_CONSTRAINT: an install that would swap\n"
              "# these for a CUDA or CPU build is refused.  To change them, run rocm-wizard again (or delete\n"
              "# this file and the constraint line of pip.conf).\n")
_CONSTRAINT_KEY = re.compile(r"^\s*constraints?\s*[=:]")
_GLOBAL = re.compile(r"^\s*\[global\]\s*$")


class GuardError(ValueError):
    """A pip.conf the guard cannot take over without guessing (it names other constraint files)."""


def guarded_pip_conf(text: Optional[str], line: str) -> str:
    """``text`` (a venv's ``pip.conf``, None when there is none) with ``line`` (``constraint = FILE``)
    in its ``[global]`` section: right below the section's header, or a new section at the end.
    The same rule as the script's ``rw_guard_conf`` and the playbook's two ``lineinfile`` tasks.
    Raises GuardError for a file that already names other constraint files."""
    lines = (text or "").split("\n")  # lines as bash's read sees them (no other line breaks)
    if lines[-1] == "":
        lines.pop()
    if line in lines:
        return text or ""
    for ln in lines:
        if _CONSTRAINT_KEY.match(ln):
            raise GuardError(f"it already names constraint files ({ln.strip()})")
    out: List[str] = []
    placed = False
    for ln in lines:
        out.append(ln)
        if not placed and _GLOBAL.match(ln):
            out.append(line)
            placed = True
    if not placed:
        out += ["[global]", line]
    return "\n".join(out) + "\n"


# the venv's pip.conf as the playbook reads it (as the owner): exit 3 when there is none, 1 (a message)
# when it is not a regular file or over 64 KiB, else its text on stdout
PIP_CONF_READER = (
    "import os, stat, sys\n"
    "try:\n"
    "    fd = os.open(sys.argv[1], os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY)\n"
    "except FileNotFoundError:\n"
    "    sys.exit(3)\n"
    "if not stat.S_ISREG(os.fstat(fd).st_mode):\n"
    "    sys.exit(sys.argv[1] + ' is not a regular file')\n"
    "data = os.read(fd, 65537)\n"
    "if len(data) > 65536:\n"
    "    sys.exit(sys.argv[1] + ' is larger than 64 KiB: not a pip.conf rocm-wizard edits')\n"
    "sys.stdout.write(data.decode('utf-8', 'replace'))\n")


class PipGuard(Step):
    """Keep the venv a ROCm one: a constraints file pinning the torch family (and the rocm wheels)
    to what the plan installs, named by the venv's own ``pip.conf`` (pip reads ``$VIRTUAL_ENV/
    pip.conf`` for every ``pip install`` there) so that a later install of an app or a requirement
    cannot swap torch for PyPI's CUDA or CPU build; uv gets it through ``UV_CONSTRAINT`` (the
    env-persist step).  Written before the install, so the plan's own pip runs satisfy it."""

    kind = "pip-guard"
    required = ("venv", "constraints", "guard_file")

    def validate(self) -> None:
        check_abs_path(self.params["venv"], "venv")
        check_abs_path(self.params["guard_file"], "guard file")
        if not self.params["constraints"]:
            raise ValueError("pip-guard needs at least one pin")
        _pins(self.params["constraints"])
        if re.search(r"\s", self.params["guard_file"]):
            raise ValueError("guard file: pip and uv split constraint paths at white space")

    @property
    def pip_conf(self) -> str:
        return self.params["venv"].rstrip("/") + "/pip.conf"

    @property
    def line(self) -> str:
        return "constraint = " + self.params["guard_file"]

    @property
    def content(self) -> str:
        return GUARD_HEAD + "".join(c + "\n" for c in self.params["constraints"])

    def check(self, state) -> CheckResult:
        venv = state.venv(self.params["venv"])
        if venv.created or venv.exists is False:
            return CheckResult(CHANGE, "pin " + ", ".join(self.params["constraints"]) + " in the new venv")
        guard, conf = state.file(self.params["guard_file"]), state.file(self.pip_conf)
        if guard.state == "unknown" or conf.state == "unknown":
            return CheckResult(UNKNOWN, "the venv's pip.conf: not known")
        try:
            new_conf = guarded_pip_conf(conf.text, self.line)
        except GuardError as exc:
            return CheckResult(UNKNOWN, f"{self.pip_conf}: {exc}")
        if guard.data == self.content.encode() and conf.text == new_conf:
            return CheckResult(OK, "the venv is guarded (pip.conf names the pins)")
        return CheckResult(CHANGE, "pin " + ", ".join(self.params["constraints"]))

    def project(self, state) -> None:
        state.set_file(self.params["guard_file"], self.content.encode(), self.id)
        conf = state.file(self.pip_conf)
        try:
            state.set_file(self.pip_conf, guarded_pip_conf(conf.text, self.line).encode(), self.id)
        except GuardError:
            pass

    def describe(self, state) -> Description:
        desc = Description(self.title, [f"write {self.params['guard_file']} (the pins)",
                                        f"name it in {self.pip_conf} ([global] {self.line})"])
        guard, conf = state.file(self.params["guard_file"]), state.file(self.pip_conf)
        desc.files.append(FileChange(self.params["guard_file"], "write", unified_diff(
            self.params["guard_file"], guard.data if guard.state == PRESENT else None, self.content.encode())))
        try:
            desc.files.append(FileChange(self.pip_conf, "edit", unified_diff(
                self.pip_conf, conf.data if conf.state == PRESENT else None,
                guarded_pip_conf(conf.text, self.line).encode())))
        except GuardError as exc:
            desc.files.append(FileChange(self.pip_conf, "edit", note=f"refused: {exc}"))
        return desc

    def apply(self, ctx) -> Result:
        venv = self.params["venv"]
        if not os.path.isdir(ctx.p(venv)):
            return Result(FAILED, f"{venv} is not a venv yet")
        owner = ctx.venv_user(venv)
        data, mode = ctx.read_as(owner, self.pip_conf)
        try:
            new = guarded_pip_conf(None if data is None else decode(data), self.line)
        except GuardError as exc:
            return Result(FAILED, f"{self.pip_conf}: {exc}: add  {self.line}  to it by hand, or plan with --no-guard")
        changed = []
        if ctx.read_as(owner, self.params["guard_file"])[0] != self.content.encode():
            ctx.write_as(owner, self.params["guard_file"], self.content.encode(), 0o644)
            changed.append(self.params["guard_file"])
        if data is None or decode(data) != new:
            ctx.write_as(owner, self.pip_conf, new.encode(), (mode or 0o644) & 0o777)
            changed.append(self.pip_conf)
        if not changed:
            return Result(OK, "the venv is guarded")
        return Result(CHANGED, "wrote " + ", ".join(changed))

    def render_shell_body(self) -> List[str]:
        p = self.params
        return [
            f"local venv={q(p['venv'])} gfile={q(p['guard_file'])} owner mode",
            f"local content={q(self.content)} line={q(self.line)}",
            'if [[ ! -d $RW_ROOT$venv ]]; then',
            "  if [[ $DRY_RUN == 1 ]]; then",
            '    rw_would "write $gfile and name it in $venv/pip.conf"',
            f"    rw_mark {q(self.id)}",
            "    return 0",
            "  fi",
            '  rw_die "$venv is not a venv yet"',
            "fi",
            'owner=$(rw_venv_user "$venv")',
            'rw_guard_conf "$RW_ROOT$venv/pip.conf" "$line" "$owner"',
            'if rw_same "$RW_ROOT$gfile" "$content" && rw_same "$RW_ROOT$venv/pip.conf" "$RW_NEW"; then',
            "  rw_ok 'the venv is guarded (pip.conf names the pins)'",
            "  return 0",
            "fi",
            'if ! rw_same "$RW_ROOT$gfile" "$content"; then rw_put_as "$owner" "$gfile" 0644 "$content"; fi',
            'if ! rw_same "$RW_ROOT$venv/pip.conf" "$RW_NEW"; then',
            '  mode=0644',
            '  if [[ -f $RW_ROOT$venv/pip.conf ]]; then mode=$(stat -c %a -- "$RW_ROOT$venv/pip.conf"); fi',
            '  rw_put_as "$owner" "$venv/pip.conf" "$mode" "$RW_NEW"',
            "fi",
            f"rw_mark {q(self.id)}",
        ]

    def ansible_vars(self) -> Dict[str, Any]:
        return {self.var("guard_file"): self.params["guard_file"], self.var("content"): self.content,
                self.var("pip_conf"): self.pip_conf, self.var("line"): self.line}

    def render_ansible(self) -> List[Dict[str, Any]]:
        n = f"Step {self.index} {self.id}"
        conf, seen = self.var("pip_conf"), self.var("seen")
        return [
            # read as the owner through the bounded runner (plan/ansible.py _as_owner), by a reader that
            # takes a regular file of at most 64 KiB: slurp returned the whole file to the controller,
            # so a huge (or sparse) pip.conf of the owner's flooded root's ansible-playbook
            {"name": f"{n}: read the venv's pip.conf", "ansible.builtin.command": {
                "argv": ["/usr/bin/python3", "-I", "-S", "-c", PIP_CONF_READER, J(conf)]},
             "register": seen, "failed_when": seen + ".rc not in [0, 3]", "changed_when": False,
             "check_mode": False},
            {"name": f"{n}: refuse a pip.conf that names other constraint files", "ansible.builtin.assert": {
                "that": ["not (" + seen + ".rc == 0 and (" + seen + ".stdout) is search("
                         "'(?m)^\\s*constraints?\\s*[=:]') and not ((" + seen + ".stdout) is search("
                         "'(?m)^' ~ (" + self.var("line") + " | regex_escape) ~ '$')))"],
                "fail_msg": "{{ " + conf + " }} already names constraint files: add {{ " + self.var("line")
                            + " }} to it by hand, or plan with --no-guard"}},
            {"name": f"{n}: write the pins", "ansible.builtin.copy": {
                "dest": J(self.var("guard_file")), "content": J(self.var("content")), "mode": "0644"}},
            {"name": f"{n}: pip.conf has a [global] section", "ansible.builtin.lineinfile": {
                "path": J(conf), "line": "[global]", "create": True, "mode": "0644"},
             "when": "not ((" + seen + ".stdout | default('')) is search('(?m)^\\s*\\[global\\]\\s*$'))"},
            {"name": f"{n}: pip.conf names the pins", "ansible.builtin.lineinfile": {
                "path": J(conf), "line": J(self.var("line")), "insertafter": "^\\s*\\[global\\]\\s*$",
                "firstmatch": True, "create": True, "mode": "0644"}},  # create: --check has no file yet
        ]
