"""Docker steps: the engine present, running and usable by the user; the image pulled; a run
script and a compose file with AMD's documented device flags and the host's numeric video/render
group ids (group names inside the image may map to other ids)."""
from __future__ import annotations

import json
import re
from typing import Any, Dict, List, Optional, Tuple

from ..core import CHANGE, CHANGED, FAILED, OK, UNKNOWN, CheckResult, Description, FileChange, Result, Step, unified_diff
from ..shellquote import q
from ..state import ABSENT, PRESENT, UNKNOWN as UNK
from ._util import J, SAFE_PKG, SAFE_USER, check_workspace

IMAGE_RE = re.compile(r"^[a-z0-9][a-z0-9._/-]*(:[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?$")
VIDEO_GID = "@VIDEO_GID@"
RENDER_GID = "@RENDER_GID@"


def _render_line(template: str) -> str:
    """The whole line of ``template`` that adds the render group (its id's placeholder in it)."""
    at = template.index(RENDER_GID)
    start = template.rfind("\n", 0, at) + 1
    end = template.index("\n", at) + 1
    return template[start:end]


def _parts(template: str) -> List[str]:
    """``template`` cut around its placeholders for the playbook: [head, up to the render line,
    the render line before its id, after its id, the rest]."""
    head, _, tail = template.partition(VIDEO_GID)
    line = _render_line(tail)
    mid, _, rest = tail.partition(line)
    before, _, after = line.partition(RENDER_GID)
    return [head, mid, before, after, rest]


def check_image(value: object) -> str:
    text = str(value or "")
    if not IMAGE_RE.match(text):
        raise ValueError(f"image reference {text!r} is not a valid name[:tag]")
    return text


class DockerCheck(Step):
    """Docker installed (the distribution's docker.io when it is missing), its daemon running, the
    invoking user in the docker group (which is as powerful as root: the plan says so)."""

    kind = "docker-check"
    defaults = {"user": "", "package": "docker.io", "apt": True}

    @property
    def uses_dpkg(self) -> bool:  # type: ignore[override]
        return bool(self.params["apt"])

    def validate(self) -> None:
        if self.params["user"] and not SAFE_USER.match(self.params["user"]):
            raise ValueError(f"user name {self.params['user']!r} is not valid")
        if not SAFE_PKG.match(self.params["package"]):
            raise ValueError("docker package name is not valid")

    def _todo(self, state) -> Tuple[List[str], bool]:
        system = state.system
        docker = getattr(system, "docker", None) if system is not None else None
        todo: List[str] = []
        unknown = False
        ctx = state.ctx
        user = ctx.invoking_user(self.params["user"] or None) or ""
        if ctx.filesystem:
            present: Optional[bool] = ctx.which("docker")
        else:
            present = None if docker is None or "client" not in docker.sources and docker.client is None \
                else docker.client is not None
        if present is False:
            todo.append(f"install {self.params['package']}" if self.params["apt"] else "install Docker")
        elif present is None:
            unknown = True
        daemon = getattr(docker, "daemon", None) if docker is not None else None
        if present is False or daemon is False:
            todo.append("start the Docker daemon")
        elif daemon is None:
            unknown = True
        if user and user != "root":
            groups = state.groups_of(user)
            if groups is UNK:
                allowed = getattr(docker, "user_allowed", None) if docker is not None else None
                if allowed is False:
                    todo.append(f"add {user} to the docker group")
                elif allowed is None:
                    unknown = True
            elif "docker" not in groups:
                todo.append(f"add {user} to the docker group")
        return todo, unknown

    def check(self, state) -> CheckResult:
        todo, unknown = self._todo(state)
        if todo:
            return CheckResult(CHANGE, "; ".join(todo))
        if unknown:
            return CheckResult(UNKNOWN, "Docker's state is not known")
        return CheckResult(OK, "Docker is installed, running and usable")

    def describe(self, state) -> Description:
        todo, _ = self._todo(state)
        actions = todo or ["check that Docker is installed, running and usable"]
        if any("docker group" in t for t in todo):
            actions.append("note: members of the docker group can do anything root can on this host")
        return Description(self.title, actions)

    def apply(self, ctx) -> Result:
        done = []
        if not ctx.which("docker"):
            if not self.params["apt"]:
                return Result(FAILED, "Docker is not installed: install it with the distribution's package manager")
            ctx.check_call(["apt-get", "install", "-y", "-o", "DPkg::Lock::Timeout=600", self.params["package"]],
                           timeout=3600)
            done.append(f"installed {self.params['package']}")
        info = ctx.run(["docker", "info"], timeout=60)
        if info.rc != 0:
            ctx.check_call(["systemctl", "enable", "--now", "docker"], timeout=300)
            done.append("started the Docker daemon")
        user = ctx.invoking_user(self.params["user"] or None)
        if user and user != "root":
            from ..state import groups_from_files

            have = groups_from_files(ctx.read_text("/etc/passwd"), ctx.read_text("/etc/group"), user) or set()
            if "docker" not in have:
                ctx.check_call(["usermod", "-a", "-G", "docker", user])
                done.append(f"added {user} to the docker group")
        return Result(CHANGED, "; ".join(done)) if done else Result(OK, "Docker is ready")

    def render_shell_body(self) -> List[str]:
        p = self.params
        lines = [
            f"local user=${{SUDO_USER:-}} fallback={q(p['user'])} did=0"
            + (f" pkg={q(p['package'])}" if p["apt"] else ""),
            'if [[ -z $user || $user == root ]]; then user=$fallback; fi',
            "if ! command -v docker >/dev/null 2>&1; then",
        ]
        if p["apt"]:
            lines += [
                "  rw_need_root",
                '  rw_dpkg_run apt-get install -y -o DPkg::Lock::Timeout=600 "$pkg"',
                "  did=1",
            ]
        else:
            lines += ["  rw_die 'Docker is not installed: install it with your distribution'\"'\"'s package manager, "
                      "then run this script again'"]
        lines += [
            "fi",
            "if ! docker info >/dev/null 2>&1; then",
            "  rw_need_root",
            "  if command -v systemctl >/dev/null 2>&1; then",
            "    rw_run systemctl enable --now docker",
            "  else",
            "    rw_run service docker start",
            "  fi",
            "  did=1",
            "fi",
            'if [[ -n $user && $user != root ]] && ! rw_in_group "$user" docker; then',
            "  rw_need_root",
            '  rw_run usermod -a -G docker "$user"',
            "  rw_say '    note: members of the docker group can do anything root can on this host'",
            '  rw_say "    $user must log out and in again for the group to apply"',
            "  did=1",
            "fi",
            "if [[ $did == 0 ]]; then",
            "  rw_ok 'Docker is installed, running and usable'",
            "  return 0",
            "fi",
            f"rw_mark {q(self.id)}",
        ]
        return lines

    def ansible_vars(self) -> Dict[str, Any]:
        return {self.var("package"): self.params["package"]}

    def render_ansible(self) -> List[Dict[str, Any]]:
        n = f"Step {self.index} {self.id}"
        return [
            {"name": f"{n}: install Docker", "ansible.builtin.apt": {
                "name": J(self.var("package")), "state": "present", "lock_timeout": 600}},
            {"name": f"{n}: start and enable the Docker daemon", "ansible.builtin.systemd_service": {
                "name": "docker", "state": "started", "enabled": True}},
            {"name": f"{n}: let the GPU users use Docker (as powerful as root)", "ansible.builtin.user": {
                "name": "{{ item }}", "groups": ["docker"], "append": True},
             "loop": "{{ rocm_wizard_gpu_users }}"},
        ]


class DockerPull(Step):
    """Pull the image once (it is several GB)."""

    kind = "docker-pull"
    required = ("image",)

    def validate(self) -> None:
        check_image(self.params["image"])

    def check(self, state) -> CheckResult:
        image = self.params["image"]
        if state.ctx.commands:
            res = state.ctx.run(["docker", "image", "inspect", image], timeout=60)
            if res.rc == 0:
                return CheckResult(OK, f"{image} is present")
            return CheckResult(CHANGE, f"pull {image}")
        system = state.system
        docker = getattr(system, "docker", None) if system is not None else None
        if docker is not None and docker.images:
            if image in docker.images:
                return CheckResult(OK, f"{image} is present")
            return CheckResult(CHANGE, f"pull {image}")
        if docker is not None and docker.client is None and "client" in docker.sources:
            return CheckResult(CHANGE, f"pull {image} (Docker is not installed yet)")
        return CheckResult(UNKNOWN, f"pull {image} unless it is present")

    def describe(self, state) -> Description:
        return Description(self.title, [f"docker pull {self.params['image']} (several GB)"],
                           commands=[["docker", "pull", self.params["image"]]])

    def apply(self, ctx) -> Result:
        image = self.params["image"]
        if ctx.run(["docker", "image", "inspect", image], timeout=60).rc == 0:
            return Result(OK, f"{image} is present")
        ctx.check_call(["docker", "pull", image], timeout=7200)
        return Result(CHANGED, f"pulled {image}")

    def render_shell_body(self) -> List[str]:
        return [
            f"local image={q(self.params['image'])}",
            'if command -v docker >/dev/null 2>&1 && docker image inspect "$image" >/dev/null 2>&1; then',
            '  rw_ok "$image is present"',
            "  return 0",
            "fi",
            "rw_need_root",
            'rw_run docker pull "$image"',
            f"rw_mark {q(self.id)}",
        ]

    def ansible_vars(self) -> Dict[str, Any]:
        return {self.var("image"): self.params["image"]}

    def render_ansible(self) -> List[Dict[str, Any]]:
        n = f"Step {self.index} {self.id}"
        seen = self.var("seen")
        return [
            {"name": f"{n}: look for the image", "ansible.builtin.command": {
                "argv": ["docker", "image", "inspect", J(self.var("image"))]},
             "register": seen, "changed_when": False, "failed_when": False, "check_mode": False},
            {"name": f"{n}: pull the image", "ansible.builtin.command": {
                "argv": ["docker", "pull", J(self.var("image"))]},
             "changed_when": True, "when": seen + ".rc != 0"},
        ]


def _pairs(flags: List[str]) -> List[List[str]]:
    out: List[List[str]] = []
    for f in flags:
        if out and not f.startswith("-") and len(out[-1]) == 1 and "=" not in out[-1][0]:
            out[-1].append(f)
        else:
            out.append([f])
    return out


class DockerRunScript(Step):
    """A run script and a compose file for the chosen image: AMD's documented flags, the host's
    numeric video/render group ids, and a workspace volume."""

    kind = "docker-run-script"
    required = ("dir", "image", "flags")
    defaults = {"user": "", "script": "run-rocm-pytorch.sh", "compose": "compose.yaml"}

    def validate(self) -> None:
        check_workspace(self.params["dir"], "workspace")
        check_image(self.params["image"])
        for name in ("script", "compose"):
            if not re.match(r"^[A-Za-z0-9._-]+$", self.params[name]):
                raise ValueError(f"{name} file name {self.params[name]!r} is not valid")
        flags = self.params["flags"]
        if not all(isinstance(f, str) and "\x00" not in f and "\n" not in f for f in flags):
            raise ValueError("docker flags must be single-line strings")
        if self.params["user"] and not SAFE_USER.match(self.params["user"]):
            raise ValueError("user name is not valid")

    def _flags(self) -> List[List[str]]:
        out = []
        for pair in _pairs(list(self.params["flags"])):
            if pair[0] == "--group-add":
                continue  # replaced by the host's numeric ids
            out.append(pair)
        out.append(["--group-add", VIDEO_GID])
        out.append(["--group-add", RENDER_GID])
        return out

    @property
    def script_template(self) -> str:
        p = self.params
        lines = [
            "#!/usr/bin/env bash",
            "# Start AMD's PyTorch image with access to the GPUs (written by rocm-wizard).",
            "# Usage: ./" + p["script"] + " [command...]   (default: the image's shell)",
            "set -euo pipefail",
            f"image={q(p['image'])}",
            f"workspace={q(p['dir'])}",
            "exec docker run -it --rm \\",
        ]
        for pair in self._flags():
            lines.append("  " + " ".join(q(x) if not x.startswith("@") else x for x in pair) + " \\")
        lines.append('  -v "$workspace:/workspace" -w /workspace \\')
        lines.append('  "$image" "$@"')
        return "\n".join(lines) + "\n"

    @property
    def compose_template(self) -> str:
        p = self.params
        svc: Dict[str, Any] = {"image": p["image"], "devices": [], "group_add": [], "cap_add": [],
                               "security_opt": [], "volumes": [p["dir"].replace("$", "$$") + ":/workspace"], "working_dir": "/workspace",
                               "stdin_open": True, "tty": True}
        for pair in self._flags():
            flag, _, inline = pair[0].partition("=")
            value = inline or (pair[1] if len(pair) > 1 else "")
            if flag == "--device":
                svc["devices"].append(value)
            elif flag == "--group-add":
                svc["group_add"].append(value)
            elif flag == "--cap-add":
                svc["cap_add"].append(value)
            elif flag == "--security-opt":
                svc["security_opt"].append(value)
            elif flag == "--ipc":
                svc["ipc"] = value
            elif flag == "--shm-size":
                svc["shm_size"] = value
            elif flag in ("-v", "--volume"):  # WSL: the host's DXCore and librocdxg
                svc["volumes"].insert(len(svc["volumes"]) - 1, value)
            elif flag in ("-e", "--env"):
                svc.setdefault("environment", []).append(value)
        lines = ["# Start with: docker compose run --rm pytorch   (written by rocm-wizard)", "services:", "  pytorch:"]
        for key, value in svc.items():
            if isinstance(value, list):
                if not value:
                    continue
                lines.append(f"    {key}:")
                lines += [f"      - {json.dumps(v) if not str(v).startswith('@') else v}" for v in value]
            elif isinstance(value, bool):
                lines.append(f"    {key}: {'true' if value else 'false'}")
            else:
                lines.append(f"    {key}: {json.dumps(value)}")
        return "\n".join(lines) + "\n"

    @staticmethod
    def fill(template: str, video: Optional[int], render: Optional[int]) -> str:
        v = str(video) if video is not None else "video"
        if render is None or render == video:  # no render group of its own: video's id once, not twice
            template = template.replace(_render_line(template), "")
        return template.replace(VIDEO_GID, v).replace(RENDER_GID, str(render))

    def _paths(self) -> Tuple[str, str]:
        d = self.params["dir"].rstrip("/")
        return d + "/" + self.params["script"], d + "/" + self.params["compose"]

    def _wanted(self, state) -> Tuple[Optional[str], Optional[str]]:
        video, render = state.group_gid("video"), state.group_gid("render")
        if video is None:
            return None, None
        return self.fill(self.script_template, video, render), self.fill(self.compose_template, video, render)

    def check(self, state) -> CheckResult:
        script, compose = self._wanted(state)
        paths = self._paths()
        views = [state.file(p) for p in paths]
        if any(v.state == ABSENT for v in views):
            return CheckResult(CHANGE, "write " + " and ".join(p for p, v in zip(paths, views) if v.state == ABSENT))
        if script is None or any(v.state != PRESENT for v in views):
            return CheckResult(UNKNOWN, "the files or the host's group ids are not known")
        if views[0].data == script.encode() and views[1].data == compose.encode():
            return CheckResult(OK, "the run script and compose file are as planned")
        return CheckResult(CHANGE, "rewrite the run script and compose file")

    def project(self, state) -> None:
        script, compose = self._wanted(state)
        sp, cp = self._paths()
        state.set_file(sp, (script or self.script_template).encode(), self.id)
        state.set_file(cp, (compose or self.compose_template).encode(), self.id)

    def describe(self, state) -> Description:
        script, compose = self._wanted(state)
        sp, cp = self._paths()
        desc = Description(self.title, [f"write {sp} (mode 0755) and {cp}",
                                        "the group ids are the host's numeric video and render ids"
                                        + ("" if script else " (filled in at run time)")])
        for path, text in ((sp, script or self.script_template), (cp, compose or self.compose_template)):
            view = state.file(path)
            desc.files.append(FileChange(path, "write", unified_diff(
                path, view.data if view.state == PRESENT else None, text.encode())))
        return desc

    def apply(self, ctx) -> Result:
        from ..state import PlanState

        st = PlanState(ctx)
        video, render = st.group_gid("video"), st.group_gid("render")
        if video is None:
            return Result(FAILED, "the video group does not exist on this host")
        user = ctx.invoking_user(self.params["user"] or None)
        owner = user if user and ctx.user_ids(user) else None
        sp, cp = self._paths()
        done = []
        for path, text, mode in ((sp, self.fill(self.script_template, video, render), 0o755),
                                 (cp, self.fill(self.compose_template, video, render), 0o644)):
            if ctx.read_bytes(path) == text.encode():
                continue
            ctx.write_as(owner, path, text.encode(), mode)  # as the workspace's user: no link of theirs followed by root
            done.append(path)
        return Result(CHANGED, "wrote " + ", ".join(done)) if done else Result(OK, "files as planned")

    def render_shell_body(self) -> List[str]:
        sp, cp = self._paths()
        return [
            f"local dir={q(self.params['dir'])} script_path={q(sp)} compose_path={q(cp)}",
            f"local script_tpl={q(self.script_template)}",
            f"local compose_tpl={q(self.compose_template)}",
            f"local user=${{SUDO_USER:-}} fallback={q(self.params['user'])} vg rg script compose",
            'if [[ -z $user || $user == root ]]; then user=$fallback; fi',
            'if [[ -z $user ]] || ! rw_user_exists "$user"; then user=root; fi',
            'if ! vg=$(rw_gid video); then rw_die "the video group does not exist on this host"; fi',
            f"local script_rl={q(_render_line(self.script_template))} compose_rl={q(_render_line(self.compose_template))}",
            'if ! rg=$(rw_gid render) || [[ $rg == "$vg" ]]; then  # video\'s id once, not twice',
            '  script_tpl=${script_tpl//"$script_rl"/}',
            '  compose_tpl=${compose_tpl//"$compose_rl"/}',
            'fi',
            f'script=${{script_tpl//{VIDEO_GID}/$vg}}',
            f'script=${{script//{RENDER_GID}/$rg}}',
            f'compose=${{compose_tpl//{VIDEO_GID}/$vg}}',
            f'compose=${{compose//{RENDER_GID}/$rg}}',
            'if rw_same "$RW_ROOT$script_path" "$script" && rw_same "$RW_ROOT$compose_path" "$compose"; then',
            "  rw_ok 'the run script and compose file are as planned'",
            "  return 0",
            "fi",
            'if [[ ! -d $RW_ROOT$dir ]]; then rw_as "$user" mkdir -p -- "$dir"; fi',
            'rw_put_as "$user" "$script_path" 0755 "$script"',
            'rw_put_as "$user" "$compose_path" 0644 "$compose"',
            'rw_say "    start the container with: $script_path"',
            f"rw_mark {q(self.id)}",
        ]

    def ansible_vars(self) -> Dict[str, Any]:
        sp, cp = self._paths()
        return {self.var("dir"): self.params["dir"], self.var("script_path"): sp, self.var("compose_path"): cp,
                self.var("script_parts"): _parts(self.script_template),
                self.var("compose_parts"): _parts(self.compose_template)}

    def render_ansible(self) -> List[Dict[str, Any]]:
        n = f"Step {self.index} {self.id}"
        gid = "ansible_facts['getent_group']"
        video = "(" + gid + "['video'][1])"
        own = "('render' in " + gid + " and " + gid + "['render'][1] != " + gid + "['video'][1])"

        def content(parts: str) -> str:
            # the render line only where the render group has an id of its own (else video's id twice)
            render = ("((" + parts + "[2] ~ " + gid + "['render'][1] ~ " + parts + "[3]) if " + own + " else '')")
            return ("{{ " + parts + "[0] }}{{ " + video + " }}{{ " + parts + "[1] }}{{ " + render + " }}{{ "
                    + parts + "[4] }}")

        return [
            {"name": f"{n}: read the host's group ids", "ansible.builtin.getent": {"database": "group"},
             "check_mode": False},
            {"name": f"{n}: make the workspace", "ansible.builtin.file": {
                "path": J(self.var("dir")), "state": "directory", "owner": "{{ rocm_wizard_gpu_users | first }}",
                "mode": "0755"}},
            {"name": f"{n}: write the run script", "ansible.builtin.copy": {
                "dest": J(self.var("script_path")), "content": content(self.var("script_parts")),
                "owner": "{{ rocm_wizard_gpu_users | first }}", "mode": "0755"}},
            {"name": f"{n}: write the compose file", "ansible.builtin.copy": {
                "dest": J(self.var("compose_path")), "content": content(self.var("compose_parts")),
                "owner": "{{ rocm_wizard_gpu_users | first }}", "mode": "0644"}},
        ]
