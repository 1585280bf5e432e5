"""WSL 2: the torch wheel's own HSA runtime out of the venv.

With ROCm's 6.x WSL runtime (``hsa-runtime-rocr4wsl-amdgpu``, ROCm 6.1.3 to 7.1) a pip torch wheel
still loads the ``libhsa-runtime64.so*`` it bundles in ``torch/lib``: a runtime without the WSL thunk,
so torch sees no GPU.  AMD's WSL install-pytorch steps remove it (``cd <site-packages>/torch/lib; rm
libhsa-runtime64.so*``; sources ``amd-wsl-pytorch``, ``amd-blog-comfyui-wsl``), after which the loader
finds the host's WSL runtime in /opt/rocm/lib.  The files are the wheel's: ``pip install
--force-reinstall`` of the same torch puts them back, so no backup is kept.

The files are removed by the venv's owner (the one owner rule), never by root inside a user's venv.
"""
from __future__ import annotations

import glob
import os
from typing import Any, Dict, List

from ..core import CHANGE, CHANGED, OK, UNKNOWN, CheckResult, Description, Result, Step
from ..shellquote import q
from ._util import J, check_abs_path

PATTERN = "libhsa-runtime64.so*"
TORCH_LIBS = "lib/python3*/site-packages/torch/lib"


def bundled(real_venv: str) -> List[str]:
    """The wheel's own HSA runtime files under the venv at ``real_venv`` (a path on this machine)."""
    base = glob.escape(real_venv.rstrip("/"))
    return sorted(glob.glob(f"{base}/{TORCH_LIBS}/{PATTERN}"))


class WslHsaRemove(Step):
    """Remove ``torch/lib/libhsa-runtime64.so*`` from the venv's torch (AMD's WSL step for the 6.x
    runtime)."""

    kind = "wsl-hsa-remove"
    required = ("venv",)

    def validate(self) -> None:
        check_abs_path(self.params["venv"], "venv")

    def check(self, state) -> CheckResult:
        venv = self.params["venv"]
        view = state.venv(venv)
        if view.source.startswith("plan:"):  # an earlier step of this plan installs a torch wheel
            return CheckResult(CHANGE, "the torch wheel installed by this plan carries its own libhsa-runtime64")
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
        return Description(self.title, [f"remove {venv}/{TORCH_LIBS}/{PATTERN} as the venv's owner (the wheel's own "
                                        "HSA runtime: AMD's WSL steps; pip install --force-reinstall torch puts it back)"])

    def apply(self, ctx) -> Result:
        venv = self.params["venv"]
        found = bundled(ctx.p(venv))
        if not found:
            return Result(OK, "torch/lib has no libhsa-runtime64 of its own")
        owner = ctx.venv_user(venv)
        inside = [venv.rstrip("/") + f[len(ctx.p(venv).rstrip("/")):] for f in found]
        ctx.check_call(["rm", "-f", "--", *inside], user=owner, timeout=60)
        return Result(CHANGED, "removed " + ", ".join(os.path.basename(f) for f in found))

    def render_shell_body(self) -> List[str]:
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

    def ansible_vars(self) -> Dict[str, Any]:
        return {self.var("venv"): self.params["venv"]}

    def render_ansible(self) -> List[Dict[str, Any]]:
        n = f"Step {self.index} {self.id}"
        found = self.var("found")
        return [
            {"name": f"{n}: find the wheel's own HSA runtime (reads only)", "ansible.builtin.find": {
                "paths": J(self.var("venv")) + "/lib", "patterns": PATTERN, "recurse": True, "file_type": "any"},
             "register": found, "check_mode": False},
            {"name": f"{n}: remove it from torch/lib", "ansible.builtin.file": {"path": "{{ item.path }}", "state": "absent"},
             "loop": "{{ " + found + ".files | selectattr('path', 'search', '/site-packages/torch/lib/') | list }}"},
        ]
