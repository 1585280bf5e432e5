"""What comes after a run: what the GPU smoke test runs against, whether it must wait (a new kernel
driver is used only after a reboot), and the exact command lines to run next.  One rule for every
frontend: ``--yes`` / ``resume`` (``verify_after``) and the TUI (its Verify and Done screens).
Plain data in, plain data out; no I/O."""
from __future__ import annotations

import shlex
from typing import Any, Dict, Iterable, List, Optional

REBOOT_WHY = "after the reboot the new kernel driver needs"


def rebooting(plan, changed: Iterable[str]) -> bool:
    """Whether the run changed a step that needs a reboot before the GPU is used (a new kernel
    driver): ``changed`` are the ids of the steps that changed something."""
    done = set(changed)
    return any(s.kind == "reboot-flag" and s.id in done for s in getattr(plan, "steps", []) or [])


def _image(plan) -> Optional[str]:
    inputs = getattr(plan, "inputs", {}) or {}
    image = ((getattr(plan, "facts", {}) or {}).get("docker") or {}).get("image") or inputs.get("image")
    if image and ":" in image and "/" not in image.split(":")[0]:
        return f"rocm/pytorch:{image}"
    if image and "/" not in image:
        from ..catalog import docker

        return docker.image(image)
    return image


def kept_venv(plan) -> Dict[str, Any]:
    """A ROCm upgrade's venv that the plan leaves as it is (``{}`` when none was detected):
    ``{"venv", "torch_now", "torch_next", "rocm"}`` as the plan builder recorded it."""
    return dict(((getattr(plan, "facts", {}) or {}).get("venv_kept") or {}))


def target(plan, system=None) -> Dict[str, Any]:
    """What the smoke test runs against after ``plan``: the image of the docker path, the venv of
    the torch-reinstall path, the venv a ROCm upgrade left as it was, else the first venv of
    ``system`` with a ROCm torch (``{}``: none known)."""
    if getattr(plan, "path", None) == "docker":
        image = _image(plan)
        return {"docker_image": image} if image else {}
    inputs = getattr(plan, "inputs", {}) or {}
    venv = (inputs.get("venv") if getattr(plan, "path", None) == "torch-reinstall" else None) \
        or getattr(getattr(plan, "fingerprint", None), "venv", None) or kept_venv(plan).get("venv")
    if not venv and system is not None:
        venv = next((t.path for t in getattr(system, "torch", []) or [] if t.path and t.build in (None, "rocm")), None)
    return {"venv": venv} if venv else {}


def verify_command(tgt: Dict[str, Any]) -> str:
    """The exact ``rocm-wizard verify`` command line for a target of :func:`target`."""
    if tgt.get("docker_image"):
        return "rocm-wizard verify --docker " + shlex.quote(str(tgt["docker_image"]))
    if tgt.get("venv"):
        return "rocm-wizard verify --venv " + shlex.quote(str(tgt["venv"]))
    return "rocm-wizard verify --venv PATH"


def torch_command(kept: Dict[str, Any]) -> Optional[str]:
    """The torch way for the venv a ROCm upgrade left as it was, or None."""
    if not kept.get("venv") or not kept.get("torch_next"):
        return None
    return ("rocm-wizard --path torch-reinstall --venv " + shlex.quote(str(kept["venv"]))
            + " --torch " + shlex.quote(str(kept["torch_next"])))


def next_steps(plan, reboot: bool, system=None) -> List[str]:
    """The command lines to run after a finished run, in order (after the reboot when ``reboot``):
    the torch way for a venv a ROCm upgrade did not touch, then the smoke test.  Empty when the
    smoke test runs at once and nothing else is left."""
    out = []
    cmd = torch_command(kept_venv(plan))
    if cmd:
        out.append(cmd)
    if reboot or out:
        out.append(verify_command(target(plan, system)))
    return out


def reminders(plan, changed: Iterable[str], root_cmd: str = 'sudo "$(command -v rocm-wizard)"') -> List[str]:
    """What a finished run leaves for the user to do that no command does for them, one sentence
    each (the same for ``--yes`` and the wizard's Done screen): a new shell for the environment
    persisted in the venv, a new login for new groups, and how to go back (``root_cmd``: how this
    program is run as root, :func:`rocm_wizard.invoker.root_command`; a command is a line of its own)."""
    done = set(changed)
    steps = [s for s in getattr(plan, "steps", []) or [] if s.id in done]
    out: List[str] = []
    if any(s.kind == "env-persist" for s in steps):
        out.append("The venv's environment changed: open a new shell, or run  deactivate  then activate the venv "
                   "again (a service reads rocm-wizard.env in the venv).")
    if any(s.kind == "user-groups" for s in steps):
        out.append("New groups (render, video) take effect at the next login: log out and in (or run  newgrp render "
                   " in a shell).")
    if steps:
        out.append("To put back the files this run replaced (packages are not undone; it prints the commands that "
                   "would):")
        out.append(f"    {root_cmd} rollback")
    return out
