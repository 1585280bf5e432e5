"""WSL 2: the torch wheel's own HSA runtime out of the venv.

With ROCm's 6.x WSL runtime (``hsa-runtime-rocr4wsl-amdgpu``, ROCm 6.1.3 to 7.1) a pip torch wheel
still loads the ``libhsa-runtime64.so*`` it bundles in ``torch/lib``: a runtime without the WSL thunk,
so torch sees no GPU.  AMD's WSL install-pytorch steps remove it (``cd <site-packages>/torch/lib; rm
libhsa-runtime64.so*``; sources ``amd-wsl-pytorch``, ``amd-blog-comfyui-wsl``), after which the loader
finds the host's WSL runtime in /opt/rocm/lib.  The files are the wheel's: ``pip install
--force-reinstall`` of the same torch puts them back, so no backup is kept.

The files are removed by the venv's owner (the one owner rule), never by root inside a user's venv.

AMD's WSL install-pytorch pages of ROCm 6.1.3 to 6.2.x went one step further: after the removal,
``cp /opt/rocm/lib/libhsa-runtime64.so.1.2 libhsa-runtime64.so`` in torch/lib (source
``amd-wsl-pytorch-6x``).  With ``replace_from`` the step does that too, as the venv's owner: it stops
before removing anything when that file is not there, and a run where torch/lib holds only
``libhsa-runtime64.so`` equal to it has nothing to do.  The wheel's ``libhsa-runtime64.so`` is
recorded before it goes (rollback puts it back).
"""
from __future__ import annotations

import glob
import os
from typing import Any, Dict, List, Optional

from ..core import CHANGE, CHANGED, OK, UNKNOWN, CheckResult, Description, Result, Step
from ..shellquote import q
from ._util import J, check_abs_path

PATTERN = "libhsa-runtime64.so*"
TORCH_LIBS = "lib/python3*/site-packages/torch/lib"
COPY_NAME = "libhsa-runtime64.so"  # the name AMD's 6.1.3-6.2 steps copy the WSL runtime in as


def torch_libs(real_venv: str) -> List[str]:
    """The torch/lib directories of the venv at ``real_venv`` (a path on this machine)."""
    base = glob.escape(real_venv.rstrip("/"))
    return sorted(d for d in glob.glob(f"{base}/{TORCH_LIBS}") if os.path.isdir(d))


def _same(path: str, data: bytes) -> bool:
    try:
        if os.path.islink(path) or not os.path.isfile(path):
            return False
        with open(path, "rb") as fh:
            return fh.read() == data
    except OSError:
        return False


def replaced(real_venv: str, data: bytes) -> bool:
    """Whether every torch/lib of the venv holds just ``libhsa-runtime64.so`` with ``data`` in it."""
    libs = torch_libs(real_venv)
    if not libs:
        return False
    for d in libs:
        own = [os.path.basename(f) for f in glob.glob(f"{glob.escape(d)}/{PATTERN}")]
        if own != [COPY_NAME] or not _same(os.path.join(d, COPY_NAME), data):
            return False
    return True


def bundled(real_venv: str) -> List[str]:
    """The wheel's own HSA runtime files under the venv at ``real_venv`` (a path on this machine)."""
    base = glob.escape(real_venv.rstrip("/"))
    return sorted(glob.glob(f"{base}/{TORCH_LIBS}/{PATTERN}"))


class WslHsaRemove(Step):
    """Remove ``torch/lib/libhsa-runtime64.so*`` from the venv's torch (AMD's WSL step for the 6.x
    runtime)."""

    kind = "wsl-hsa-remove"
    required = ("venv",)
    defaults = {"replace_from": ""}

    def validate(self) -> None:
        check_abs_path(self.params["venv"], "venv")
        if self.params["replace_from"]:
            check_abs_path(self.params["replace_from"], "replace_from")

    def _source(self, ctx) -> Optional[bytes]:
        try:
            with open(ctx.p(self.params["replace_from"]), "rb") as fh:
                return fh.read()
        except OSError:
            return None

    def check(self, state) -> CheckResult:
        venv = self.params["venv"]
        view = state.venv(venv)
        if view.source.startswith("plan:"):  # an earlier step of this plan installs a torch wheel
            return CheckResult(CHANGE, "the torch wheel installed by this plan carries its own libhsa-runtime64")
        if state.ctx.filesystem and self.params["replace_from"]:
            data = self._source(state.ctx)
            if data is None:
                return CheckResult(CHANGE, f"{self.params['replace_from']} is not there (the step will stop): the "
                                           "ROCm 6.1.3-6.2 WSL runtime it copies is not installed")
            if replaced(state.ctx.p(venv), data):
                return CheckResult(OK, f"torch/lib's {COPY_NAME} is {self.params['replace_from']}")
            return CheckResult(CHANGE, f"replace torch/lib's libhsa-runtime64 with {self.params['replace_from']}")
        if state.ctx.filesystem:
            found = bundled(state.ctx.p(venv))
            if found:
                return CheckResult(CHANGE, "remove " + ", ".join(os.path.basename(f) for f in found))
            return CheckResult(OK, "torch/lib has no libhsa-runtime64 of its own")
        env = state.torch_env(venv)
        if env is None:
            return CheckResult(UNKNOWN, "the venv's torch/lib is not known")
        own = list(getattr(env, "bundled_hsa", []) or [])
        if own:
            return CheckResult(CHANGE, "remove " + ", ".join(own))
        return CheckResult(UNKNOWN, "the snapshot does not list torch/lib")

    def describe(self, state) -> Description:
        venv = self.params["venv"]
        lines = [f"remove {venv}/{TORCH_LIBS}/{PATTERN} as the venv's owner (the wheel's own "
                 "HSA runtime: AMD's WSL steps; pip install --force-reinstall torch puts it back)"]
        if self.params["replace_from"]:
            lines.append(f"then copy {self.params['replace_from']} in as torch/lib/{COPY_NAME}, as the venv's owner "
                         "(AMD's WSL steps of ROCm 6.1.3-6.2); it stops first if that file is not there")
        return Description(self.title, lines)

    def _apply_replace(self, ctx) -> Result:
        from ..context import StepError

        venv, src = self.params["venv"], self.params["replace_from"]
        data = self._source(ctx)
        if data is None:
            raise StepError(f"{src} is not there: the ROCm 6.1.3-6.2 WSL runtime AMD's steps copy into torch/lib is "
                            "not installed (amdgpu-install --usecase=wsl,rocm --no-dkms); nothing was removed")
        real = ctx.p(venv).rstrip("/")
        if replaced(real, data):
            return Result(OK, f"torch/lib's {COPY_NAME} is {src}")
        libs = torch_libs(real)
        if not libs:
            raise StepError(f"{venv} has no torch/lib to copy the WSL runtime into")
        owner = ctx.venv_user(venv)
        remember = getattr(ctx, "remember", None)
        for d in libs:
            inside = venv.rstrip("/") + d[len(real):]
            found = [venv.rstrip("/") + f[len(real):] for f in sorted(glob.glob(f"{glob.escape(d)}/{PATTERN}"))]
            if remember is not None and os.path.lexists(os.path.join(d, COPY_NAME)):
                remember(f"{inside}/{COPY_NAME}", owner)  # the wheel's own file: rollback puts it back
            if found:
                ctx.check_call(["rm", "-f", "--", *found], user=owner, timeout=60)
            ctx.write_as(owner, f"{inside}/{COPY_NAME}", data, mode=0o755)
        return Result(CHANGED, f"replaced torch/lib's libhsa-runtime64 with {src}")

    def apply(self, ctx) -> Result:
        venv = self.params["venv"]
        if self.params["replace_from"]:
            return self._apply_replace(ctx)
        found = bundled(ctx.p(venv))
        if not found:
            return Result(OK, "torch/lib has no libhsa-runtime64 of its own")
        owner = ctx.venv_user(venv)
        inside = [venv.rstrip("/") + f[len(ctx.p(venv).rstrip("/")):] for f in found]
        ctx.check_call(["rm", "-f", "--", *inside], user=owner, timeout=60)
        return Result(CHANGED, "removed " + ", ".join(os.path.basename(f) for f in found))

    def render_shell_body(self) -> List[str]:
        if self.params["replace_from"]:
            return self._shell_replace()
        return [
            f"local venv={q(self.params['venv'])} owner='' f",
            "local -a found=()",
            f'for f in "$RW_ROOT$venv"/{TORCH_LIBS}/{PATTERN}; do',
            '  if [[ -e $f || -L $f ]]; then found+=("${f#"$RW_ROOT"}"); fi',
            "done",
            'if [[ ${#found[@]} -eq 0 ]]; then',
            "  rw_ok 'torch/lib has no libhsa-runtime64 of its own'",
            "  return 0",
            "fi",
            'owner=$(rw_venv_user "$venv")',
            'rw_as "$owner" rm -f -- "${found[@]}"',
            f"rw_mark {q(self.id)}",
        ]

    def _shell_replace(self) -> List[str]:
        src = self.params["replace_from"]
        return [
            f"local venv={q(self.params['venv'])} src={q(src)} owner='' d f done=1",
            "local -a libs=() found=()",
            f'for d in "$RW_ROOT$venv"/{TORCH_LIBS}; do',
            '  if [[ -d $d ]]; then libs+=("$d"); fi',
            "done",
            'if [[ ! -f $RW_ROOT$src ]]; then',
            f"  rw_die {q(src + ' is not there: the ROCm 6.1.3-6.2 WSL runtime AMD' + chr(39) + 's steps copy into torch/lib is not installed (amdgpu-install --usecase=wsl,rocm --no-dkms); nothing was removed')}",
            "fi",
            'if [[ ${#libs[@]} -eq 0 ]]; then rw_die "$venv has no torch/lib to copy the WSL runtime into"; fi',
            'for d in "${libs[@]}"; do',
            "  found=()",
            f'  for f in "$d"/{PATTERN}; do',
            '    if [[ -e $f || -L $f ]]; then found+=("$f"); fi',
            "  done",
            f'  if [[ ${{#found[@]}} -ne 1 || ${{found[0]}} != "$d/{COPY_NAME}" || -L ${{found[0]}} ]] '
            '|| ! cmp -s -- "$RW_ROOT$src" "${found[0]}"; then done=0; fi',
            "done",
            'if [[ $done == 1 ]]; then',
            f'  rw_ok "torch/lib holds just {COPY_NAME}, a copy of $src"',
            "  return 0",
            "fi",
            'owner=$(rw_venv_user "$venv")',
            'for d in "${libs[@]}"; do',
            "  found=()",
            f'  for f in "$d"/{PATTERN}; do',
            '    if [[ -e $f || -L $f ]]; then found+=("${f#"$RW_ROOT"}"); fi',
            "  done",
            '  if [[ ${#found[@]} -gt 0 ]]; then rw_as "$owner" rm -f -- "${found[@]}"; fi',
            f'  rw_as "$owner" cp -- "$src" "${{d#"$RW_ROOT"}}/{COPY_NAME}"',
            "done",
            f"rw_mark {q(self.id)}",
        ]

    def ansible_vars(self) -> Dict[str, Any]:
        out = {self.var("venv"): self.params["venv"]}
        if self.params["replace_from"]:
            out[self.var("src")] = self.params["replace_from"]
        return out

    def render_ansible(self) -> List[Dict[str, Any]]:
        n = f"Step {self.index} {self.id}"
        found = self.var("found")
        if self.params["replace_from"]:
            src, libs = self.var("src_stat"), self.var("libs")
            return [
                {"name": f"{n}: the WSL runtime to copy in (reads only)", "ansible.builtin.stat": {"path": J(self.var("src"))},
                 "register": src, "check_mode": False},
                {"name": f"{n}: stop when it is not there",
                 "ansible.builtin.fail": {"msg": "{{ " + self.var("src") + " }} is not there: the ROCm 6.1.3-6.2 WSL "
                                                 "runtime is not installed; nothing was removed"},
                 "when": f"not {src}.stat.exists"},
                {"name": f"{n}: find the wheel's own HSA runtime (reads only)", "ansible.builtin.find": {
                    "paths": J(self.var("venv")) + "/lib", "patterns": PATTERN, "recurse": True, "file_type": "any"},
                 "register": found, "check_mode": False},
                {"name": f"{n}: find torch/lib (reads only)", "ansible.builtin.find": {
                    "paths": J(self.var("venv")) + "/lib", "patterns": "lib", "recurse": True, "file_type": "directory"},
                 "register": libs, "check_mode": False},
                {"name": f"{n}: remove the wheel's own (all but {COPY_NAME})", "ansible.builtin.file": {
                    "path": "{{ item.path }}", "state": "absent"},
                 "loop": "{{ " + found + ".files | selectattr('path', 'search', '/site-packages/torch/lib/') | "
                         f"rejectattr('path', 'search', '/{COPY_NAME}$') | list }}}}"},
                {"name": f"{n}: copy the WSL runtime in as {COPY_NAME}", "ansible.builtin.copy": {
                    "src": J(self.var("src")), "remote_src": True, "dest": "{{ item.path }}/" + COPY_NAME, "mode": "0755"},
                 "loop": "{{ " + libs + ".files | selectattr('path', 'search', '/site-packages/torch/lib$') | list }}"},
            ]
        return [
            {"name": f"{n}: find the wheel's own HSA runtime (reads only)", "ansible.builtin.find": {
                "paths": J(self.var("venv")) + "/lib", "patterns": PATTERN, "recurse": True, "file_type": "any"},
             "register": found, "check_mode": False},
            {"name": f"{n}: remove it from torch/lib", "ansible.builtin.file": {"path": "{{ item.path }}", "state": "absent"},
             "loop": "{{ " + found + ".files | selectattr('path', 'search', '/site-packages/torch/lib/') | list }}"},
        ]


# ---------------------------------------------------------------- librocdxg (ROCm 7.2.x under WSL)
def sdk_versions(names: List[str]) -> List[str]:
    """The Windows SDK versions among the entries of ``<Windows Kits>/10/Include`` (``10.0.26100.0``),
    newest first (the librocdxg README: "adjust version number if different")."""
    import re

    found = [n for n in names if re.fullmatch(r"10(\.\d+){1,3}", n)]
    return sorted(found, key=lambda n: tuple(int(x) for x in n.split(".")), reverse=True)


class LibrocdxgBuild(Step):
    """Build and install librocdxg the way its README has you do it in the WSL console (ROCm 7.2.x):
    ``git clone`` the repository, ``cmake .. -DWIN_SDK=<Windows Kits>/10/Include/<version>/shared``
    in ``build/``, ``make``, ``make install`` (as root).  Nothing to do when ``library`` is there
    (built before, or installed from AMD's package).

    Run time needs: the network (the clone), ``git``, ``cmake`` and a compiler (an earlier step
    installs them), and the Windows SDK installed on Windows: its headers are read through
    ``/mnt/c``; without them the step stops and says so (the Windows side is said, not done).

    The build runs in a directory of root's own (``/var/tmp``, mode 0700, removed afterwards).  The
    install goes first into a staging directory (``make install DESTDIR=...``): every file it would
    write is recorded (absent, or a copy) before the real ``make install``, so ``rollback`` removes
    what the build installed and restores what it replaced."""

    kind = "librocdxg-build"
    required = ("repo", "win_kits", "library")
    defaults = {"ref": "", "sdk_subdir": "shared", "tools": ["cmake", "gcc", "g++", "make", "git"]}

    def validate(self) -> None:
        from ._util import check_url

        check_url(self.params["repo"], "librocdxg repository")
        check_abs_path(self.params["win_kits"], "Windows Kits include directory")
        check_abs_path(self.params["library"], "librocdxg library")
        ref = str(self.params["ref"] or "")
        import re

        if ref and not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._/-]{0,99}", ref):
            raise ValueError(f"librocdxg ref {ref!r} is not a branch or tag name")
        sub = str(self.params["sdk_subdir"])
        if not re.fullmatch(r"[A-Za-z0-9_.-]+", sub) or sub in (".", ".."):
            raise ValueError(f"sdk_subdir {sub!r} is not a directory name")
        tools = self.params["tools"]
        if not isinstance(tools, list) or not all(isinstance(t, str) and re.fullmatch(r"[a-z0-9+.-]+", t) for t in tools):
            raise ValueError("tools must be a list of command names")

    # -------------------------------------------------------------- what is there
    def _installed(self, ctx) -> bool:
        lib = self.params["library"]
        return ctx.exists(lib) or ctx.islink(lib)

    def _sdk(self, ctx) -> Optional[str]:
        """``<win_kits>/<newest version>/<sdk_subdir>`` when that directory exists."""
        kits = self.params["win_kits"].rstrip("/")
        for v in sdk_versions(ctx.listdir(kits) if ctx.isdir(kits) else []):
            path = f"{kits}/{v}/{self.params['sdk_subdir']}"
            if ctx.isdir(path):
                return path
        return None

    def _what(self) -> str:
        ref = self.params["ref"]
        return self.params["repo"] + (f" ({ref})" if ref else " (its default branch)")

    def check(self, state) -> CheckResult:
        ctx = state.ctx
        lib = self.params["library"]
        if ctx.filesystem:
            if self._installed(ctx):
                return CheckResult(OK, f"{lib} is installed")
            sdk = self._sdk(ctx)
            where = (f"with the Windows SDK headers in {sdk}" if sdk else
                     f"the Windows SDK headers are not under {self.params['win_kits']}/10.*/"
                     f"{self.params['sdk_subdir']} yet: install the Windows SDK on Windows first")
            return CheckResult(CHANGE, f"build librocdxg from {self._what()} and install it ({where}; needs the "
                                       "network and a compiler)")
        return CheckResult(UNKNOWN, f"whether {lib} is installed is not known from a snapshot")

    def describe(self, state) -> Description:
        p = self.params
        return Description(self.title, [
            f"if {p['library']} is missing: git clone {self._what()} into a directory of root's own under /var/tmp "
            "(needs the network)",
            f"cmake -DWIN_SDK=<newest {p['win_kits']}/10.*/{p['sdk_subdir']}> (the Windows SDK installed on Windows), "
            "make (needs cmake and a compiler: " + ", ".join(p["tools"]) + ")",
            "make install into a staging directory first: each file it would write is recorded for rollback; "
            "then make install, ldconfig; the build directory is removed",
        ])

    # -------------------------------------------------------------- executor
    def apply(self, ctx) -> Result:
        import shutil
        import tempfile

        from ..context import StepError

        lib = self.params["library"]
        if self._installed(ctx):
            return Result(OK, f"{lib} is installed")
        missing = [t for t in self.params["tools"] if not ctx.which(t)]
        if missing:
            raise StepError("building librocdxg needs " + ", ".join(missing) + " (librocdxg README: CMake >= 3.15, "
                            "GCC >= 11.4): install them (apt-get install " + " ".join(self.params["tools"]) + ")")
        sdk = self._sdk(ctx)
        if sdk is None:
            raise StepError(f"the Windows SDK headers are not under {self.params['win_kits']}/10.*/"
                            f"{self.params['sdk_subdir']}: install the Windows SDK on Windows (librocdxg README), "
                            "then run again")
        os.makedirs(ctx.p("/var/tmp"), exist_ok=True)
        real = tempfile.mkdtemp(prefix="rocm-wizard-librocdxg.", dir=ctx.p("/var/tmp"))
        work = "/var/tmp/" + os.path.basename(real)
        try:
            src, build, stage = f"{work}/src", f"{work}/src/build", f"{work}/stage"
            clone = ["git", "clone"] + (["--branch", self.params["ref"]] if self.params["ref"] else [])
            ctx.check_call(clone + ["--", self.params["repo"], src], timeout=900)
            head = ctx.run(["git", "-C", src, "rev-parse", "HEAD"], timeout=60)
            commit = (head.stdout or "").strip()[:12] if head.rc == 0 else ""
            ctx.check_call(["cmake", "-S", src, "-B", build, f"-DWIN_SDK={sdk}"], timeout=900)
            ctx.check_call(["make", "-C", build], timeout=3600)
            ctx.check_call(["make", "-C", build, "install", f"DESTDIR={stage}"], timeout=900)
            staged = []
            top = ctx.p(stage)
            for d, dirs, files in os.walk(top):
                for name in sorted(files + [x for x in dirs if os.path.islink(os.path.join(d, x))]):
                    staged.append(os.path.join(d, name)[len(top):])
            if not staged:
                raise StepError("librocdxg's make install installs nothing")
            remember = getattr(ctx, "remember", None)
            for path in sorted(staged):
                if remember is not None:
                    remember(path)
            ctx.check_call(["make", "-C", build, "install"], timeout=900)
            if not self._installed(ctx):
                raise StepError(f"librocdxg's make install did not install {lib} (it installed: "
                                + ", ".join(sorted(staged)[:8]) + ")")
            ctx.check_call(["ldconfig"], timeout=300)
        finally:
            shutil.rmtree(real, ignore_errors=True)
        return Result(CHANGED, f"built librocdxg{(' ' + commit) if commit else ''} from {self.params['repo']} with "
                               f"{sdk}; installed {len(staged)} files ({lib})")

    # -------------------------------------------------------------- script
    def render_shell_body(self) -> List[str]:
        p = self.params
        clone = "git clone" + (f" --branch {q(p['ref'])}" if p["ref"] else "")
        return [
            f"local lib={q(p['library'])} kits={q(p['win_kits'].rstrip('/'))} sub={q(p['sdk_subdir'])}",
            "local sdk='' v work='' f t",
            "local -a staged=() missing=()",
            'if [[ -e $RW_ROOT$lib || -L $RW_ROOT$lib ]]; then',
            '  rw_ok "$lib is installed"',
            "  return 0",
            "fi",
            'while IFS= read -r v; do',
            '  if [[ $v =~ ^10(\\.[0-9]+){1,3}$ && -d $RW_ROOT$kits/$v/$sub ]]; then sdk=$kits/$v/$sub; break; fi',
            'done < <(ls -1 -- "$RW_ROOT$kits" 2>/dev/null | sort -t. -k1,1nr -k2,2nr -k3,3nr -k4,4nr)',
            "rw_need_root",
            'if [[ $DRY_RUN == 1 ]]; then',
            f"  rw_would {q('build librocdxg from ' + self._what() + ' (needs the network and a compiler) and install it')}",
            '  if [[ -z $sdk ]]; then rw_would "stop: the Windows SDK headers are not under $kits/10.*/$sub (install the Windows SDK on Windows)"; fi',
            f"  rw_mark {q(self.id)}",
            "  return 0",
            "fi",
            "for t in " + " ".join(q(t) for t in p["tools"]) + "; do",
            '  if ! command -v "$t" >/dev/null 2>&1; then missing+=("$t"); fi',
            "done",
            'if [[ ${#missing[@]} -gt 0 ]]; then',
            '  rw_die "building librocdxg needs ${missing[*]} (librocdxg README: CMake >= 3.15, GCC >= 11.4): apt-get install '
            + " ".join(p["tools"]) + '"',
            "fi",
            'if [[ -z $sdk ]]; then',
            '  rw_die "the Windows SDK headers are not under $kits/10.*/$sub: install the Windows SDK on Windows (librocdxg README), then run again"',
            "fi",
            'work=$(mktemp -d -- "$RW_ROOT/var/tmp/rocm-wizard-librocdxg.XXXXXX")',
            f'if ! rw_run {clone} -- {q(p["repo"])} "$work/src" \\',
            '   || ! rw_run cmake -S "$work/src" -B "$work/src/build" "-DWIN_SDK=$sdk" \\',
            '   || ! rw_run make -C "$work/src/build" \\',
            '   || ! rw_run make -C "$work/src/build" install "DESTDIR=$work/stage"; then',
            '  rm -rf -- "$work"',
            '  rw_die "building librocdxg failed (its output is above)"',
            "fi",
            'while IFS= read -r -d "" f; do staged+=("${f#"$work/stage"}"); done < <(find "$work/stage" \\( -type f -o -type l \\) -print0)',
            'if [[ ${#staged[@]} -eq 0 ]]; then rm -rf -- "$work"; rw_die "librocdxg\'s make install installs nothing"; fi',
            'for f in "${staged[@]}"; do rw_remember "$RW_ROOT$f"; done',
            'if ! rw_run make -C "$work/src/build" install; then rm -rf -- "$work"; rw_die "make install of librocdxg failed"; fi',
            'rm -rf -- "$work"',
            'if [[ ! -e $RW_ROOT$lib ]]; then rw_die "librocdxg\'s make install did not install $lib"; fi',
            "rw_run ldconfig",
            f"rw_mark {q(self.id)}",
        ]

    # -------------------------------------------------------------- playbook
    def ansible_vars(self) -> Dict[str, Any]:
        p = self.params
        return {self.var("repo"): p["repo"], self.var("ref"): p["ref"] or "HEAD", self.var("library"): p["library"],
                self.var("kits"): p["win_kits"].rstrip("/"), self.var("sub"): p["sdk_subdir"],
                self.var("tools"): list(p["tools"])}

    def render_ansible(self) -> List[Dict[str, Any]]:
        n = f"Step {self.index} {self.id}"
        lib, sdk, work = self.var("lib_stat"), self.var("sdk"), self.var("work")
        missing = f"not {lib}.stat.exists"
        find_sdk = ('for v in $(ls -1 -- "$1" 2>/dev/null | grep -E \'^10(\\.[0-9]+){1,3}$\' | sort -t. -k1,1nr -k2,2nr '
                    '-k3,3nr -k4,4nr); do if [ -d "$1/$v/$2" ]; then printf %s "$1/$v/$2"; exit 0; fi; done; exit 1')
        build_dir = "{{ " + work + ".path }}/src/build"
        return [
            {"name": f"{n}: is librocdxg installed (reads only)", "ansible.builtin.stat": {"path": J(self.var("library"))},
             "register": lib, "check_mode": False},
            {"name": f"{n}: find the Windows SDK headers (reads only)",
             "ansible.builtin.command": {"argv": ["sh", "-c", find_sdk, "sh", J(self.var("kits")), J(self.var("sub"))]},
             "register": sdk, "changed_when": False, "failed_when": False, "check_mode": False, "when": missing},
            {"name": f"{n}: stop when the Windows SDK is not installed on Windows",
             "ansible.builtin.fail": {"msg": "the Windows SDK headers are not under {{ " + self.var("kits") + " }}/10.*/"
                                             "{{ " + self.var("sub") + " }}: install the Windows SDK on Windows "
                                             "(librocdxg README), then run again"},
             "when": f"{missing} and {sdk}.rc != 0 and not ansible_check_mode"},
            {"name": f"{n}: a build directory of root's own", "ansible.builtin.tempfile": {
                "state": "directory", "path": "/var/tmp", "prefix": "rocm-wizard-librocdxg."},
             "register": work, "when": f"{missing} and not ansible_check_mode"},
            {"name": f"{n}: clone librocdxg (needs the network)", "ansible.builtin.command": {
                "argv": ["git", "clone", "--", J(self.var("repo")), "{{ " + work + ".path }}/src"]},
             "when": f"{missing} and not ansible_check_mode and {self.var('ref')} == 'HEAD'"},
            {"name": f"{n}: clone librocdxg at its ref (needs the network)", "ansible.builtin.command": {
                "argv": ["git", "clone", "--branch", J(self.var("ref")), "--",
                         J(self.var("repo")), "{{ " + work + ".path }}/src"]},
             "when": f"{missing} and not ansible_check_mode and {self.var('ref')} != 'HEAD'"},
            {"name": f"{n}: configure (cmake -DWIN_SDK)", "ansible.builtin.command": {
                "argv": ["cmake", "-S", "{{ " + work + ".path }}/src", "-B", build_dir, "-DWIN_SDK={{ " + sdk + ".stdout }}"]},
             "when": f"{missing} and not ansible_check_mode"},
            {"name": f"{n}: build (make)", "ansible.builtin.command": {"argv": ["make", "-C", build_dir]},
             "when": f"{missing} and not ansible_check_mode"},
            {"name": f"{n}: install (make install)", "ansible.builtin.command": {"argv": ["make", "-C", build_dir, "install"]},
             "when": f"{missing} and not ansible_check_mode"},
            {"name": f"{n}: refresh the linker cache", "ansible.builtin.command": {"argv": ["ldconfig"]},
             "when": f"{missing} and not ansible_check_mode"},
            {"name": f"{n}: remove the build directory", "ansible.builtin.file": {
                "path": "{{ " + work + ".path }}", "state": "absent"},
             "when": f"{missing} and {work}.path is defined"},
        ]
