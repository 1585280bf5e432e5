"""The options form as plain data: which fields a path takes, which values are valid (only those the
catalog knows to work for the detected GPUs and OS are offered), and validators that run as the user
types.  No Textual here: the screen renders these, tests check them directly.
"""
from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

Validator = Callable[[str], Optional[str]]  # value -> error message, or None when valid

CHOICE, TEXT, FLAG = "choice", "text", "flag"
CHECKLIST = "checklist"  # value: the list of picked choice values (nothing picked by default)


@dataclass
class Field:
    name: str
    label: str
    kind: str  # choice | text | flag | checklist
    value: Any = None  # current value (str for choice/text, bool for flag)
    choices: List[Tuple[str, str]] = field(default_factory=list)  # (value, label) for CHOICE
    help: str = ""
    validate: Optional[Validator] = None
    placeholder: str = ""
    notes: List[str] = field(default_factory=list)  # lines shown under a checklist, not choices

    def error(self, value: Any = None) -> Optional[str]:
        """Why ``value`` (default: the current value) is not acceptable, or None."""
        v = self.value if value is None else value
        if self.kind == CHOICE:
            if not self.choices:
                return "no valid choice for this system"
            if v not in [c[0] for c in self.choices]:
                return "pick one of the offered values"
            return None
        if self.kind == FLAG:
            return None if isinstance(v, bool) else "must be on or off"
        if self.kind == CHECKLIST:
            v = self.value if value is None else value
            known = [c[0] for c in self.choices]
            bad = [x for x in (v or []) if x not in known]
            return f"not on the list: {', '.join(bad)}" if bad else None
        text = "" if v is None else str(v)
        if self.validate is None:
            return None
        try:
            return self.validate(text)
        except Exception as exc:  # a validator must never take the form down
            return f"cannot check this value ({type(exc).__name__})"


def errors(fields: Sequence[Field]) -> Dict[str, str]:
    out = {}
    for f in fields:
        e = f.error()
        if e:
            out[f.name] = e
    return out


def values(fields: Sequence[Field]) -> Dict[str, Any]:
    return {f.name: f.value for f in fields}


_SYSTEM_DIRS = ("/", "/bin", "/boot", "/dev", "/etc", "/lib", "/lib64", "/proc", "/sbin", "/sys", "/usr", "/var",
                "/opt/rocm")


# -- validators (the plan engine's own rules, so the form refuses exactly what the plan would) ------

UserLookup = Callable[[str], Optional[str]]  # user name -> why it is not an account there, or None


def check_user(text: str, lookup: Optional[UserLookup] = None) -> Optional[str]:
    """One Linux user name that is an account on the system (``lookup`` says which exist); empty
    means "the user running the wizard"."""
    from ..plan.steps._util import SAFE_USER

    t = text.strip()
    if t and not SAFE_USER.match(t):
        return f"not a valid user name: {t!r} (lower-case letters, digits, '.', '-' and '_')"
    if t and lookup is not None:
        return lookup(t)
    return None


def live_users(name: str) -> Optional[str]:
    """This machine's accounts (the passwd database)."""
    import pwd

    try:
        pwd.getpwnam(name)
    except KeyError:
        return f"there is no user {name!r} on this machine (create the account first)"
    return None


def described_users(system: Any) -> UserLookup:
    """The accounts a snapshot shows (its user and root): a snapshot does not list the others."""
    known = sorted({"root"} | ({system.access.user} if getattr(getattr(system, "access", None), "user", None)
                               else set()))

    def lookup(name: str) -> Optional[str]:
        if name in known:
            return None
        return f"the snapshot shows no user {name!r} (it shows: {', '.join(known)})"

    return lookup


def index_placeholder(torch_value: Optional[str]) -> str:
    """The wheel index a torch choice (``2.6.0+rocm6.2.4``) installs from, as the placeholder of the
    optional index field."""
    from ..catalog.wheels import index_url

    from ..catalog.wheels import indexes

    _, _, label = str(torch_value or "").partition("+")
    if not label:
        return "https://download.pytorch.org/whl/rocmX.Y"
    # a choice carries its index's label (AMD's: rocm7.14.0 on whl-multi-arch), not its name
    named = [i.name for i in indexes() if i.label == label]
    return index_url(named[0] if named else label)


def check_url(text: str, optional: bool = True) -> Optional[str]:
    from ..plan.steps._util import check_url as plan_check_url

    t = text.strip()
    if not t:
        return None if optional else "a URL is required"
    try:
        plan_check_url(t, "the URL")
    except ValueError as exc:
        return str(exc)
    return None


def _check_workspace(text: str) -> Optional[str]:
    from ..plan.steps._util import check_workspace

    err = check_abs_path(text, "workspace")
    if err is None:
        try:
            check_workspace(text.strip())
        except ValueError as exc:
            return str(exc)
    return err


def check_abs_path(text: str, what: str) -> Optional[str]:
    t = text.strip()
    if not t:
        return f"the {what} is required"
    if not t.startswith("/"):
        return "must be an absolute path (start with /)"
    if any(c in t for c in "\n\r\t\0\"'`$\\;|&<>*?"):
        return "the path contains characters a shell script cannot carry safely"
    return None


def check_venv(text: str) -> Optional[str]:
    err = check_abs_path(text, "path of the virtual environment")
    if err:
        return err
    norm = posixpath.normpath(text.strip())
    if norm in _SYSTEM_DIRS or any(norm.startswith(d + "/") for d in ("/proc", "/sys", "/dev", "/etc", "/usr")):
        return "that is a system directory, not a virtual environment"
    return None


def check_env(text: str) -> Optional[str]:
    """``NAME=VALUE`` pairs separated by spaces or commas (values without spaces or quotes)."""
    from ..plan.steps._util import SAFE_ENV_NAME

    for item in [i for i in re.split(r"[,\s]+", text.strip()) if i]:
        name, sep, value = item.partition("=")
        if not sep or not SAFE_ENV_NAME.match(name):
            return f"{item!r}: expected NAME=VALUE"
        if not re.match(r"^[A-Za-z0-9._:/+=-]*$", value):
            return f"{item!r}: the value must be plain text without spaces or quotes"
    return None


def env_dict(text: str) -> Dict[str, str]:
    out = {}
    for item in [i for i in re.split(r"[,\s]+", str(text or "").strip()) if i]:
        name, _, value = item.partition("=")
        out[name] = value
    return out


def check_fingerprint(text: str) -> Optional[str]:
    from ..plan.openpgp import normalize_fingerprint

    if text.strip() and normalize_fingerprint(text) is None:
        return "a key fingerprint is 40 hexadecimal digits (spaces allowed)"
    return None


# -- what each path offers ------------------------------------------------------------------------

def _gfx(system: Any) -> List[str]:
    return sorted({g.gfx_target for g in getattr(system, "amd_gpus", []) if g.gfx_target})


def torch_choices(system: Any) -> List[Tuple[str, str]]:
    """(``torch+index``, label) of every torch release + wheel index the resolver offers for this
    system (kernels for every GPU that does the work, a wheel for the venv's Python, the driver
    window...), newest first."""
    from .. import resolve

    if not _gfx(system):
        return []
    try:
        offered = resolve.torch_ways(resolve.from_system(system)).offered
    except Exception:
        offered = []
    out: List[Tuple[str, str]] = []
    for w in offered:
        rel, idx = w.subject
        triton = f", {rel.triton_requirement}" if rel.triton_requirement else ""
        unproven = "" if w.proven else " (not every check proven)"
        out.append((w.key, f"torch {rel.version} from {idx.name}{triton}{unproven}"))
    out.sort(key=lambda kv: _vkey(*kv[0].split("+", 1)), reverse=True)
    return out


def _label(index: Any) -> str:
    """The local version label of an index's wheels (the choices' keys): ``rocm7.14.0`` for AMD's."""
    from ..catalog import wheels

    idx = wheels.index(index)
    return idx.label if idx is not None and idx.label else str(index)


def _vkey(*parts: str):
    from packaging.version import InvalidVersion, Version

    key = []
    for p in parts:
        p = p.replace("rocm", "")
        try:
            key.append(Version(p))
        except InvalidVersion:
            key.append(Version("0"))
    return tuple(key)


CORE_ONLY_FIELDS = ("rocm_core_mirror", "rocm_core_key_fingerprint")  # shown for a Core SDK release only


def is_core_release(version: Any) -> bool:
    """Whether ROCm ``version`` is a Core SDK release (7.14, 10.x), whose own host and key the Core
    SDK fields are for; False when the catalog does not know it."""
    from ..catalog import releases

    try:
        return getattr(releases.resolve(str(version)), "stream", "legacy") == "core-sdk"
    except Exception:
        return False


def release_choices(system: Any) -> List[Tuple[str, str]]:
    """ROCm releases the resolver offers for this system (the GPUs, this Ubuntu release, WSL), not
    older than the installed one, newest first."""
    from .. import resolve
    from ..catalog import rpmrepos

    if rpmrepos.family(getattr(system, "os", None)):  # issue 26: dnf hosts have their own list
        from ..plan.dnfplan import release_choices_dnf

        return release_choices_dnf(system)
    installed = getattr(getattr(system, "rocm", None), "version", None)
    offered = resolve.rocm_ways(resolve.from_system(system)).offered
    # the installed release stays a choice only when it is the target (a repair: never a downgrade)
    repair = bool(installed and offered and _vkey(installed) >= _vkey(offered[0].subject.version))
    out = []
    for w in offered:
        rel = w.subject
        if installed and (_vkey(rel.version) < _vkey(installed)
                          or (_vkey(rel.version) == _vkey(installed) and not repair)):
            continue
        tag = "" if rel.status == "documented" else f" ({rel.status})"
        stream = "Core SDK" if getattr(rel, "stream", "legacy") == "core-sdk" else "legacy"
        out.append((rel.version, f"ROCm {rel.version} {stream}{tag}"))
    out.sort(key=lambda kv: _vkey(kv[0]), reverse=True)
    return out


def image_choices(system: Any) -> List[Tuple[str, str]]:
    """AMD rocm/pytorch tags the resolver offers for this system, best first."""
    from .. import resolve

    out = []
    for w in resolve.docker_ways(resolve.from_system(system)).offered:
        t = w.subject
        tag = "" if t.status == "documented" else f" ({t.status})"
        if t.repo:  # AMD's vLLM image for a vLLM workload: the whole image names its repository
            out.append((t.image, f"vLLM {t.vllm}, ROCm {t.rocm}, torch {t.torch}, Ubuntu {t.ubuntu}, py{t.python}{tag}"))
            continue
        out.append((t.tag, f"ROCm {t.rocm}, torch {t.torch}, Ubuntu {t.ubuntu}, py{t.python}{tag}"))
    return out


def _key_fpr(stream: str) -> str:
    """The catalog's signing-key fingerprint of ``stream`` (core: the Core SDK's; legacy: repo.radeon.com's)."""
    from ..catalog import coresdk, releases

    return coresdk.info().key_fingerprint if stream == "core" else releases.repo().key_fingerprint


def _key_default(stream: str) -> str:
    """"D0F0... (observed: ROCm/TheRock build_repo_package.py, PR #7269)": the default and its source."""
    from ..catalog import coresdk, releases

    if stream == "core":
        info = coresdk.info()
        fpr, status, src = info.key_fingerprint, info.key_fingerprint_status, info.key_fingerprint_source
    else:
        repo = releases.repo()
        fpr, status, src = repo.key_fingerprint, repo.key_fingerprint_status, "seen in apt output"
    if not fpr:
        return f"(none in the catalog: {status})"
    return f"{fpr} ({status}: {src})" if src else f"{fpr} ({status})"


def _spaced(fpr: str) -> str:
    return " ".join(fpr[i:i + 4] for i in range(0, len(fpr), 4)) if fpr else ""


def _with_default(choices: List[Tuple[str, str]], value: Optional[str]) -> Optional[str]:
    keys = [c[0] for c in choices]
    if value in keys:
        return value
    return keys[0] if keys else None


THIRD_PARTY = ("(third-party): known only from other people's scripts, issues or posts, (observed): only "
               "from real command output, not from AMD's own pages")


def fields_for(path: str, system: Any, target: Optional[Dict[str, Any]] = None,
               users: Optional[UserLookup] = None) -> List[Field]:
    """The options of ``path`` for ``system`` (names are the plan engine's ``Choices`` fields);
    defaults come from the doctor's recommendation ``target`` when it has one; ``users`` says which
    user names are accounts on the system."""
    target = dict(target or {})

    def user_check(text: str) -> Optional[str]:
        return check_user(text, users)

    user = getattr(getattr(system, "access", None), "user", None) or ""
    if user == "root":
        user = ""
    if path == "torch-reinstall":
        envs = [t.path for t in getattr(system, "torch", []) if t.path and t.path.startswith("/")]
        venv = target.get("venv") or (envs[0] if envs else "")
        choices = torch_choices(system)
        want = f"{target.get('torch')}+{_label(target.get('index'))}" if target.get("torch") else None
        torch = _with_default(choices, want)
        return [
            Field("venv", "Virtual environment", TEXT, venv, help="the venv whose torch is replaced (detected: "
                  + (", ".join(envs) or "none") + "; a new path gets a new venv)", validate=check_venv,
                  placeholder="/path/to/venv"),
            Field("venv_mode", "How", CHOICE, "existing" if venv in envs else "new",
                  [("existing", "change this venv in place"),
                   ("new", "build a new venv beside it and make the path a link to it (the old one is kept, "
                             "moved aside if it is a directory)")]),
            Field("torch", "PyTorch build", CHOICE, torch, choices,
                  help="only builds whose wheels carry kernels for this GPU are offered"),
            Field("env", "Environment variables", TEXT, " ".join(f"{k}={v}" for k, v in (target.get("env") or {}).items()),
                  help="persisted in the venv, NAME=VALUE separated by spaces (the plan adds the ones this "
                  "GPU needs)", validate=check_env, placeholder="TORCH_BLAS_PREFER_HIPBLASLT=0"),
            Field("torch_index_url", "Wheel index", TEXT, "", help="optional: a pip index to use instead of "
                  "the catalog's (download.pytorch.org, or AMD's for its builds)", validate=check_url,
                  placeholder=index_placeholder(torch)),
            Field("guard", "Guard the venv", FLAG, True,
                  help="pin this torch build in the venv (its pip.conf; UV_CONSTRAINT for uv) so that a later "
                  "install cannot swap it for a CUDA or CPU build"),
        ]
    if path == "rocm-upgrade":
        choices = release_choices(system)
        return [
            Field("rocm", "ROCm release", CHOICE, _with_default(choices, target.get("rocm")), choices,
                  help="releases whose support lists include this GPU on this Ubuntu release; " + THIRD_PARTY),
            Field("dkms", "Install the amdgpu kernel driver (amdgpu-dkms)", FLAG,
                  target.get("kernel_driver", "amdgpu-dkms") == "amdgpu-dkms",
                  help="off: keep the installed kernel driver (containers, WSL, or a newer in-kernel driver)"),
            Field("user", "User for render and video", TEXT, user, help="added to the GPU groups",
                  validate=user_check, placeholder="alice"),
            Field("rocm_mirror", "Repository mirror", TEXT, "", help="optional: a mirror of https://repo.radeon.com",
                  validate=check_url, placeholder="https://repo.radeon.com"),
            Field("rocm_key_fingerprint", "Key fingerprint", TEXT, "", help="optional: the signing key's "
                  "fingerprint from a source you trust; default " + _key_default("legacy"),
                  validate=check_fingerprint, placeholder=_spaced(_key_fpr("legacy"))),
            Field("rocm_core_mirror", "Core SDK mirror", TEXT, "", help="optional: a mirror of AMD's Core SDK "
                  "hosts (https://stable.repo.amd.com, https://repo.amd.com)", validate=check_url,
                  placeholder="https://stable.repo.amd.com"),
            Field("rocm_core_key_fingerprint", "Core SDK key fingerprint", TEXT, "", help="optional, for a Core "
                  "SDK release (7.14, 10.x): empty checks the default " + _key_default("core")
                  + "; type another to override it", validate=check_fingerprint,
                  placeholder=_spaced(_key_fpr("core"))),
        ]
    if path == "docker":
        choices = image_choices(system)
        vllm = bool(target.get("vllm"))
        return [
            Field("image", "rocm/vllm image" if vllm else "rocm/pytorch image", CHOICE,
                  _with_default(choices, target.get("image") if vllm else target.get("tag")), choices,
                  help=("AMD's vLLM images for this GPU (vLLM keeps its own torch); " if vllm else
                        "AMD's images whose ROCm supports this GPU; ") + THIRD_PARTY),
            Field("workspace", "Workspace", TEXT, f"/home/{user}/rocm-workspace" if user else "/root/rocm-workspace",
                  help="host directory mounted as /workspace", validate=_check_workspace,
                  placeholder="/home/alice/rocm-workspace"),
            Field("user", "User for the docker group", TEXT, user, help="may run containers without sudo",
                  validate=user_check, placeholder="alice"),
        ]
    return []


# -- guard and clean ------------------------------------------------------------------------------

def guard_venvs(system: Any) -> List[Tuple[str, str]]:
    """(path, label) of the venvs with a ROCm torch whose guard is missing or unwired: what
    ``--path guard`` can pin (a venv already guarded and wired is not offered)."""
    out = []
    for t in getattr(system, "torch", []) or []:
        if not t.path or not str(t.path).startswith("/") or getattr(t, "build", None) != "rocm" or not t.version:
            continue
        if getattr(t, "guard", None) and getattr(t, "guard_wired", None) is not False:
            continue
        out.append((t.path, f"{t.path} (torch {t.version})"))
    return list(dict(out).items())


KIND_WORDS = {"rocm-tree": "old ROCm tree", "venv": "venv left behind", "cache": "cache", "apt-file": "stale apt list",
              "apt-key": "stale apt key", "apt-pin": "stale apt pin", "package-leftover": "removed package's files"}


def clean_label(item: Any, counting: bool = False) -> str:
    """One line of the clean checklist: the path, its size and what it is (the why in full under
    the list, for the highlighted line); ``counting``: sizes not known yet are being counted."""
    size = "counting..." if counting and item.size is None else item.size_text
    return f"{item.path}  {size}  ({KIND_WORDS.get(item.kind, item.kind)})"


def size_total(items: Sequence[Any], picked: Sequence[str]) -> str:
    """\"2 of 5 picked: 1.2 GiB (of 3.4 GiB)\": the clean checklist's total line."""
    from ..plan.clean import Item

    chosen = [i for i in items if i.id in set(picked)]

    def total(its) -> str:
        sized = [i for i in its if i.size is not None]
        t = Item("", "", "", "", size=sum(i.size for i in sized), exact=all(i.exact for i in sized))
        return t.size_text + (" (and sizes not known)" if len(sized) < len(its) else "")

    return f"{len(chosen)} of {len(items)} picked: {total(chosen)} (of {total(items)})"


def guard_fields(system: Any) -> List[Field]:
    venvs = guard_venvs(system)
    return [Field("venv", "Virtual environment", CHOICE, venvs[0][0] if venvs else None, venvs,
                  help="its torch, torchvision, torchaudio, Triton and rocm wheels are pinned to what it has now "
                  "(a constraint file named in the venv's pip.conf; UV_CONSTRAINT for uv), so that a later install "
                  "cannot swap them for a CUDA or CPU build")]


def held_label(item: Any, why: str) -> str:
    """One not-offered line under the clean checklist: the path, what it is, and why it stays (the
    process, or the file and line naming it), as the plan's notes say it."""
    return f"not offered: {item.path}  ({KIND_WORDS.get(item.kind, item.kind)}): {why}"


def clean_fields(items: Sequence[Any], counting: bool = False, held: Sequence[Any] = ()) -> List[Field]:
    return [Field("clean_items", "What to remove", CHECKLIST, [], [(i.id, clean_label(i, counting)) for i in items],
                  help="nothing is removed unless you tick it (space); each one is checked again when the plan "
                  "runs. Deleted trees, venvs and caches cannot be rolled back; apt files are kept in the run's "
                  "backups", notes=[held_label(i, why) for i, why in held])]
