"""Python probe: virtual environments (and the system / user site) with PyTorch or Triton in them.

Nothing is imported or run: versions come from files, read as text.

* where: the active ``VIRTUAL_ENV`` / ``CONDA_PREFIX``, every ``--venv PATH``, and the usual
  places (``~/venv*``, ``~/.venv``, ``~/*/venv``, ``~/*/.venv``, ``~/.virtualenvs/*``, ``~/.pyenv/versions/*``,
  ``~/{miniconda3,anaconda3,miniforge3,mambaforge}/envs/*``, ``/opt/venv*``, the user site
  ``~/.local/lib/pythonX.Y/site-packages`` and the system ``dist-packages``), bounded in number;
* torch: ``torch/version.py`` (``__version__``, ``hip``, ``cuda``; old builds write un-annotated
  ``hip = '...'``) and ``torch-*.dist-info/METADATA`` (``Version``, the ``Requires-Dist`` Triton
  pin).  Build = rocm when ``hip`` is set, cuda when ``cuda`` is set, else cpu;
* Triton: which of ``triton`` / ``pytorch-triton-rocm`` / ``triton-rocm`` / ``pytorch-triton`` are
  installed, and whether a stray ``triton`` directory shadows them (a ``triton/`` without
  ``__init__.py``, one without ``language/``, one on ``PYTHONPATH``, in the working directory, or in
  the user site ahead of the system site) -- the real cause of
  ``module 'triton' has no attribute 'language'`` (pytorch/pytorch#130723);
* pasted ``pip freeze`` / ``pip list`` / collect_env reports become environments too.
"""
from __future__ import annotations

import posixpath
import re
from typing import Dict, List, Optional, Sequence, Tuple

from ...catalog import streams
from ...model import GUARD_FILE, System, TorchEnv
from ..parsers import collect_env as p_collect_env
from ..parsers._core_text import lazy, lazy_module
from ..parsers.collect_env import norm_name
from ..sources import Source
from ._core_util import env, fallback_pastes, listdir, ok_outputs, paste_label, pastes, read_text, stat

p_paste_facts = lazy_module("rocm_wizard.detect.parsers.paste_facts")  # pasted text only
p_install_command = lazy_module("rocm_wizard.detect.parsers.install_command")  # pasted text only
p_pip = lazy_module("rocm_wizard.detect.parsers.pip_freeze")  # pasted or recorded pip lists only
p_rocm_sdk = lazy_module("rocm_wizard.detect.parsers.rocm_sdk")  # pasted or recorded rocm-sdk output only

TRITON_DISTS = ("triton", "pytorch-triton-rocm", "triton-rocm", "pytorch-triton")
NOTABLE = ("numpy", "transformers", "diffusers", "accelerate", "bitsandbytes", "vllm", "xformers", "flash-attn",
           "onnxruntime", "onnxruntime-rocm", "safetensors", "peft", "deepspeed", "torchsde")
CONDA_DIRS = ("miniconda3", "anaconda3", "miniforge3", "mambaforge", "micromamba")
MAX_ENVS = 48  # environments examined at most
MAX_HOME_ENTRIES = 256  # entries of $HOME looked into for ~/*/venv

# ROCm as pip wheels (TheRock): the rocm selector, rocm-sdk-core / -libraries[-<family>] / -device-<target> / -devel,
# and AMD's torch device wheels amd-torch-device-<target>
_ROCM_WHEEL = lazy(r"^(?:rocm|rocm-sdk(?:-[a-z0-9-]+)?|amd-torch-device-[a-z0-9-]+)$")
_DEVICE_WHEEL = lazy(r"^(?:amd-torch-device|rocm-sdk-device|rocm-sdk-libraries)-(?P<target>(?:gfx[0-9a-z-]+|all))$", re.I)
_LABEL_ROCM = lazy(r"^(?:dev)?rocm(?P<rocm>\d+(?:\.\d+)*(?:(?:a|rc)\d+)?(?:\.dev\d+)?)", re.I)
_DIST = lazy(r"^(?P<name>[A-Za-z0-9][A-Za-z0-9_.]*?)-(?P<ver>\d[^-]*?)(?:-py\d[\w.]*)?\.(?:dist-info|egg-info)$")
_PYDIR = lazy(r"^python(\d+\.\d+)t?$")


def probe(source: Source, system: System, venvs: Sequence[str] = ()) -> None:
    e = env(source)
    seen: Dict[str, TorchEnv] = {}
    for root, how in _candidates(source, e, venvs)[:MAX_ENVS]:
        for tenv in _examine(source, e, root, how):
            key = tenv.site_packages or tenv.path or ""
            if key in seen:
                continue
            seen[key] = tenv
            system.torch.append(tenv)
    _from_pastes(source, system)
    system.torch.sort(key=lambda t: (not t.active, t.path is None))


# -- where to look ------------------------------------------------------------------------------

def _norm(path: str) -> str:
    p = posixpath.normpath(path)
    return p[:-1] if len(p) > 1 and p.endswith("/") else p


def _candidates(source: Source, e: Dict[str, str], venvs: Sequence[str]) -> List[Tuple[str, str]]:
    out: List[Tuple[str, str]] = []
    seen = set()

    def add(path: Optional[str], how: str) -> None:
        if not path:
            return
        p = _norm(path)
        if p not in seen:
            seen.add(p)
            out.append((p, how))

    add(e.get("VIRTUAL_ENV"), "active")
    add(e.get("CONDA_PREFIX"), "active-conda")
    for v in venvs:
        add(v, "explicit")
    home = e.get("HOME")
    if home and home != "/":
        names = listdir(source, home)
        for name in names:
            if name == ".venv" or name.startswith("venv") or name.startswith(".venv"):
                add(posixpath.join(home, name), "home")
        checked = 0
        for name in names:
            if checked >= MAX_HOME_ENTRIES:
                break
            if name.startswith(".") or name.startswith("venv"):
                continue
            base = posixpath.join(home, name)
            for sub in ("venv", ".venv"):
                st = stat(source, posixpath.join(base, sub, "pyvenv.cfg"))
                if st is not None:
                    add(posixpath.join(base, sub), "home")
            checked += 1
        for name in listdir(source, posixpath.join(home, ".pyenv", "versions")):
            add(posixpath.join(home, ".pyenv", "versions", name), "pyenv")
        for name in listdir(source, posixpath.join(home, ".virtualenvs")):
            add(posixpath.join(home, ".virtualenvs", name), "virtualenvs")
        for conda in CONDA_DIRS:
            if conda in names:
                add(posixpath.join(home, conda), "conda-base")
                for name in listdir(source, posixpath.join(home, conda, "envs")):
                    add(posixpath.join(home, conda, "envs", name), "conda")
    for name in listdir(source, "/opt"):
        if name.startswith("venv") or name.startswith(".venv") or name == "conda":
            add(posixpath.join("/opt", name), "opt")
    if home and home != "/":
        for pydir in listdir(source, posixpath.join(home, ".local", "lib")):
            if _PYDIR.match(pydir):
                add(posixpath.join(home, ".local", "lib", pydir, "site-packages"), "user-site")
    add("/usr/lib/python3/dist-packages", "system")
    for base in ("/usr/local/lib", "/usr/lib"):
        for pydir in listdir(source, base):
            if _PYDIR.match(pydir):
                for sub in ("dist-packages", "site-packages"):
                    if base == "/usr/lib" and sub == "dist-packages":
                        continue
                    add(posixpath.join(base, pydir, sub), "system")
    return out


def _site_dirs(source: Source, root: str) -> List[Tuple[str, Optional[str]]]:
    """(site-packages dir, python version from the lib dir name) of a venv / conda prefix."""
    out = []
    for lib in ("lib", "lib64"):
        for pydir in listdir(source, posixpath.join(root, lib)):
            m = _PYDIR.match(pydir)
            if m:
                site = posixpath.join(root, lib, pydir, "site-packages")
                if stat(source, site) is not None and site not in [s for s, _ in out]:
                    out.append((site, m.group(1)))
        if out:
            break
    return out


def _pyvenv_version(source: Source, root: str) -> Tuple[Optional[str], Optional[str], bool]:
    """(python version, source label, include-system-site-packages) from pyvenv.cfg."""
    cfg = posixpath.join(root, "pyvenv.cfg")
    raw = read_text(source, cfg, 16 * 1024)
    if raw is None:
        return None, None, False
    version = None
    system_site = False
    for line in raw.text.splitlines():
        k, sep, v = line.partition("=")
        if not sep:
            continue
        k = k.strip().lower()
        v = v.strip()
        if k in ("version", "version_info") and version is None:
            m = re.match(r"^(\d+\.\d+(?:\.\d+)?)", v)
            if m:
                version = m.group(1)
        elif k == "include-system-site-packages":
            system_site = v.lower() == "true"
    return version, "file:" + cfg, system_site


def _conda_python(source: Source, root: str) -> Optional[str]:
    for name in listdir(source, posixpath.join(root, "conda-meta")):
        m = re.match(r"^python-(\d+\.\d+\.\d+)-", name)
        if m:
            return m.group(1)
    return None


# -- one environment -------------------------------------------------------------------------------

def _examine(source: Source, e: Dict[str, str], root: str, how: str) -> List[TorchEnv]:
    wanted = how in ("active", "active-conda", "explicit")
    if root.endswith("-packages"):  # a site dir itself
        sites = [(root, _py_from_site(root))]
        venv_root = None
    else:
        if root.endswith("/bin/python") or re.search(r"/bin/python\d(\.\d+)?$", root):
            root = posixpath.dirname(posixpath.dirname(root))
        sites = _site_dirs(source, root)
        venv_root = root
        if not sites:
            if wanted:
                t = TorchEnv(active=how.startswith("active"))
                t.put("path", root, "arg:--venv" if how == "explicit" else "env:VIRTUAL_ENV")
                t.note("no lib/pythonX.Y/site-packages under %s: not a virtual environment, or not readable" % root)
                return [t]
            return []
    out = []
    for site, libver in sites:
        names = listdir(source, site)
        if not names:
            if wanted:
                t = TorchEnv(active=how.startswith("active"))
                t.put("path", venv_root or site, "arg:--venv" if how == "explicit" else "env")
                t.put("site_packages", site, "dir:" + site)
                t.note("site-packages is empty or unreadable")
                out.append(t)
            continue
        dists = _dists(names)
        has_torch = "torch" in dists or "torch" in names
        has_triton = any(d in dists for d in TRITON_DISTS) or "triton" in names
        has_rocm = any(_ROCM_WHEEL.match(d) for d in dists) or any(n.startswith("_rocm_sdk") for n in names)
        if not (has_torch or has_triton or has_rocm or wanted):
            continue
        t = TorchEnv(active=how.startswith("active"))
        t.put("path", venv_root or site, "dir:" + (venv_root or site))
        t.put("site_packages", site, "dir:" + site)
        if venv_root:
            ver, vsrc, _sys_site = _pyvenv_version(source, venv_root)
            if ver:
                t.put("python", ver, vsrc)
            elif how.startswith("conda") or how in ("conda-base", "active-conda"):
                t.put("python", _conda_python(source, venv_root), "dir:%s/conda-meta" % venv_root)
        t.put("python", libver, "dir:" + site, overwrite=False)
        _torch(source, site, names, dists, t)
        if venv_root:
            _guard(source, venv_root, site, dists, t)
        _companions(dists, site, t)
        _triton(source, e, site, names, dists, t, how)
        for n in sorted(names):
            if n.startswith("_rocm_sdk") and "." not in n:
                t.note("%s/%s: ROCm from the rocm pip wheels" % (site, n))
                t.rocm_wheels.setdefault(n, "")
                t.sources.setdefault("rocm_wheels", "dir:" + site)
        classify_rocm(t)
        if not has_torch:
            t.note("no torch in %s" % site)
        out.append(t)
    return out




def _guard(source: Source, venv: str, site: str, dists: Dict[str, Tuple[str, str]], t: TorchEnv) -> None:
    """rocm-wizard's guard in the venv (its pins, and whether the venv's pip.conf still names them),
    and who installed the torch that is there (dist-info INSTALLER and its time) as evidence."""
    gpath = posixpath.join(venv, GUARD_FILE)
    raw = read_text(source, gpath, 64 * 1024)
    if raw is None:
        return
    for line in raw.text.splitlines():
        m = re.match(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*==\s*(\S+)\s*$", line)
        if m:
            t.guard[norm_name(m.group(1))] = m.group(2)
    t.sources.setdefault("guard", "file:" + gpath)
    conf = read_text(source, posixpath.join(venv, "pip.conf"), 64 * 1024)
    wired = conf is not None and any(
        re.match(r"^\s*constraints?\s*[=:]", ln) and gpath in ln.split("=", 1)[-1].split(":", 1)[-1].split()
        for ln in conf.text.splitlines())
    t.put("guard_wired", wired, "file:" + posixpath.join(venv, "pip.conf"))
    if "torch" in dists:
        dinfo = posixpath.join(site, dists["torch"][1])
        inst = read_text(source, posixpath.join(dinfo, "INSTALLER"), 1024)
        who = inst.text.strip().splitlines()[0][:40] if inst is not None and inst.text.strip() else "an unknown installer"
        st = stat(source, dinfo) or {}
        when = ""
        if isinstance(st.get("mtime"), (int, float)):
            import time

            when = time.strftime(" on %Y-%m-%d %H:%M UTC", time.gmtime(float(st["mtime"])))
        t.put("torch_installer", who + when + _direct_url(source, dinfo), "file:" + posixpath.join(dinfo, "INSTALLER"))


def _direct_url(source: Source, dinfo: str) -> str:
    """`` from URL`` when the dist-info's direct_url.json (PEP 610: pip and uv write it for an install
    from a URL, a file or a folder, not for one from an index) says where the build came from; the
    URL without credentials, query or fragment, at most 200 characters; else empty."""
    import json
    from urllib.parse import urlsplit, urlunsplit

    raw = read_text(source, posixpath.join(dinfo, "direct_url.json"), 16 * 1024)
    if raw is None:
        return ""
    try:
        url = json.loads(raw.text).get("url")
        parts = urlsplit(url) if isinstance(url, str) else None
    except (ValueError, AttributeError):
        return ""
    if parts is None or parts.scheme not in ("http", "https", "file"):
        return ""
    clean = urlunsplit((parts.scheme, parts.hostname or "", parts.path, "", ""))
    if parts.port:
        clean = urlunsplit((parts.scheme, f"{parts.hostname}:{parts.port}", parts.path, "", ""))
    return " from " + clean[:200] if clean.isprintable() else ""


def _py_from_site(site: str) -> Optional[str]:
    m = re.search(r"/python(\d+\.\d+)t?/(?:site|dist)-packages$", site)
    return m.group(1) if m else None


def _dists(names: Sequence[str]) -> Dict[str, Tuple[str, str]]:
    """normalised distribution name -> (version, dist-info dir name)."""
    out: Dict[str, Tuple[str, str]] = {}
    for n in names:
        m = _DIST.match(n)
        if m:
            out.setdefault(norm_name(m.group("name")), (m.group("ver"), n))
    return out


_VERSION_RE = lazy(r"^__version__\s*(?::\s*[\w\[\]., ]+)?=\s*['\"]([^'\"]+)['\"]", re.M)


def _attr(text: str, name: str) -> Tuple[bool, Optional[str]]:
    """(assigned at all, value) of ``name = '...'`` / ``name: Optional[str] = None`` in version.py."""
    m = re.search(r"^" + name + r"\s*(?::\s*[\w\[\]., ]+)?=\s*(None|'([^']*)'|\"([^\"]*)\")\s*$", text, re.M)
    if not m:
        return False, None
    val = m.group(2) if m.group(2) is not None else m.group(3)
    return True, (val or None)


def build_from_version(version: Optional[str]) -> Optional[str]:
    """rocm / cuda / cpu from a local version label (``2.5.1+rocm6.2``); None without a label."""
    if not version or "+" not in version:
        return None
    label = version.split("+", 1)[1].lower()
    if label.startswith("rocm"):
        return "rocm"
    if re.match(r"^cu\d", label):
        return "cuda"
    if label.startswith("cpu"):
        return "cpu"
    return None


def _torch(source: Source, site: str, names: Sequence[str], dists: Dict[str, Tuple[str, str]], t: TorchEnv) -> None:
    vpath = posixpath.join(site, "torch", "version.py")
    vraw = read_text(source, vpath, 64 * 1024) if "torch" in names else None
    vlabel = "file:" + vpath
    if vraw is not None:
        m = _VERSION_RE.search(vraw.text)
        if m:
            t.put("version", m.group(1), vlabel)
        hip_set, hip = _attr(vraw.text, "hip")
        cuda_set, cuda = _attr(vraw.text, "cuda")
        t.put("hip", hip, vlabel)
        t.put("cuda", cuda, vlabel)
        if hip:
            t.put("build", "rocm", vlabel + "#hip")
        elif cuda:
            t.put("build", "cuda", vlabel + "#cuda")
        elif hip_set or cuda_set:
            t.put("build", "cpu", vlabel)
        _rocm_set, rocm = _attr(vraw.text, "rocm")
        t.put("rocm", rocm, vlabel + "#rocm")
    if "torch" in dists:
        ver, dname = dists["torch"]
        mpath = posixpath.join(site, dname, "METADATA")
        meta = read_text(source, mpath, 64 * 1024)
        if meta is not None:
            head = meta.text.split("\n\n", 1)[0]
            vm = re.search(r"^Version:\s*(\S+)", head, re.M)
            if vm:
                t.put("version", vm.group(1), "file:" + mpath, overwrite=False)
                if t.version and vm.group(1) != t.version:
                    t.note("torch/version.py says %s but the installed metadata says %s: a broken or mixed install"
                           % (t.version, vm.group(1)))
            for rm in re.finditer(r"^Requires-Dist:\s*(.+)$", head, re.M):
                req = rm.group(1).strip()
                name = re.split(r"[\s<>=!~;\[(]", req, maxsplit=1)[0]
                if "triton" in norm_name(name):
                    t.put("triton_required", req.split(";", 1)[0].strip().replace(" ", ""), "file:" + mpath,
                          overwrite=False)
        t.put("version", ver, "dir:%s/%s" % (site, dname), overwrite=False)
        if "torch" not in names:
            t.note("torch's metadata (%s) is present but the torch package directory is missing" % dname)
    elif "torch" in names:
        t.note("a torch directory without torch-*.dist-info: installed outside pip or a broken uninstall")
    if t.version and t.build is None:
        t.put("build", build_from_version(t.version), "version-label")
        if t.build is None:
            t.note("torch's build (rocm/cuda/cpu) could not be read from torch/version.py")


def _companions(dists: Dict[str, Tuple[str, str]], site: str, t: TorchEnv) -> None:
    for name in ("torchvision", "torchaudio"):
        if name in dists:
            t.put(name, dists[name][0], "dir:%s/%s" % (site, dists[name][1]))
    for name in TRITON_DISTS:
        if name in dists:
            t.triton[name] = dists[name][0]
            t.sources.setdefault("triton", "dir:%s/%s" % (site, dists[name][1]))
    for name in NOTABLE:
        if name in dists:
            t.packages[name] = dists[name][0]
    if t.packages:
        t.sources.setdefault("packages", "dir:" + site)
    rocm_wheels(t, {name: v for name, (v, _d) in dists.items()}, "dir:" + site)


def rocm_wheels(t: TorchEnv, pkgs: Dict[str, str], label: str) -> None:
    """The ROCm pip wheels among ``pkgs`` (normalised name -> version) and the targets of the device wheels."""
    for name in sorted(pkgs):
        if _ROCM_WHEEL.match(name):
            t.rocm_wheels[name] = pkgs[name]
            t.sources.setdefault("rocm_wheels", label)
            m = _DEVICE_WHEEL.match(name)
            if m and m.group("target").lower() not in t.device_gfx:
                t.device_gfx.append(m.group("target").lower())
                t.sources.setdefault("device_gfx", label)


def classify_rocm(t: TorchEnv) -> None:
    """The ROCm a torch build is for, where its ROCm user space comes from (stream) and its channel.

    * ``rocm``: ``torch.version.rocm`` (TheRock builds), else the local label (``+rocm7.14.0``,
      ``+rocm6.2``, ``+rocm7.10.0a20251015``, ``+devrocm7.12.0.dev0...``); never ``torch.version.hip``;
    * stream ``pip``: the build takes ROCm from the ``rocm`` wheels (Core SDK releases 7.14 and later,
      previews, AMD's indexes: pytorch/pytorch#191688), or the venv carries them; ``legacy``: ROCm
      bundled in torch/lib (download.pytorch.org up to rocm7.2);
    * channel ``nightly`` / ``preview`` (7.9-7.13) / ``source`` (a git build, e.g. ``2.6.0a0+git...``
      of AMD's rocm/pytorch images) / ``release``."""
    version = t.version or ""
    label = version.split("+", 1)[1] if "+" in version else ""
    m = _LABEL_ROCM.match(label)
    if m:
        t.put("rocm", m.group("rocm"), t.sources.get("version", "version-label") + " (local label)", overwrite=False)
    if t.rocm is None and not version:  # no torch listed: its device wheels carry torch's own label
        for name, v in sorted(t.rocm_wheels.items()):
            m = _LABEL_ROCM.match(v.split("+", 1)[1]) if name.startswith("amd-torch-device-") and "+" in v else None
            if m and streams.stream_of(m.group("rocm")) is not None:
                t.put("rocm", m.group("rocm"), "%s (%s %s)" % (t.sources.get("rocm_wheels", ""), name, v))
                break
    of = streams.stream_of(t.rocm) if t.rocm else None
    has_rocm = any(k in t.rocm_wheels for k in ("rocm", "rocm-sdk-core")) or any(
        k.startswith("_rocm_sdk") for k in t.rocm_wheels)
    # TheRock's own builds before the 7.9 renumbering carry 7.0.0rc20250731-style labels
    therock = bool(t.rocm and re.search(r"(?:a|rc)\d{8}", t.rocm))
    if t.build == "rocm" or t.rocm or has_rocm:
        if (of is not None and of.stream == "core-sdk") or (therock and has_rocm) or (of is None and has_rocm):
            t.put("stream", "pip", t.sources.get("rocm_wheels") or t.sources.get("rocm") or "")
        elif of is not None and of.stream == "legacy":
            t.put("stream", "legacy", t.sources.get("rocm", ""))
            if has_rocm:
                t.note("rocm pip wheels are installed, but torch %s uses the ROCm bundled in torch/lib" % version)
    if streams.is_nightly(version) or streams.is_nightly(t.rocm):
        t.put("channel", "nightly", t.sources.get("version", ""))
    elif of is not None and of.channel == "preview":
        t.put("channel", "preview", t.sources.get("rocm", ""))
    elif "+git" in version:
        t.put("channel", "source", t.sources.get("version", ""))
    elif of is not None:
        t.put("channel", "release", t.sources.get("rocm", ""))


def _is_dir(source: Source, path: str) -> bool:
    st = stat(source, path)
    if st is None:
        return False
    if "is_dir" in st:
        return bool(st["is_dir"])
    return True


def _triton(source: Source, e: Dict[str, str], site: str, names: Sequence[str], dists: Dict[str, Tuple[str, str]],
            t: TorchEnv, how: str) -> None:
    installed = [d for d in TRITON_DISTS if d in dists]
    if len(installed) > 1:
        t.note("several Triton distributions share the triton/ directory: %s; uninstalling one breaks the "
               "others (pytorch/pytorch#130723, triton-lang/triton#5377)" % ", ".join(installed))
    if t.triton_required and installed:
        req_name = norm_name(re.split(r"[<>=!~ ]", t.triton_required, maxsplit=1)[0])
        if req_name not in installed:
            t.note("torch requires %s but %s is installed" % (t.triton_required, ", ".join(installed)))
    # 1. PYTHONPATH and the working directory come before site-packages on sys.path
    for entry in [p for p in (e.get("PYTHONPATH") or "").split(":") if p]:
        for cand in (posixpath.join(entry, "triton"), posixpath.join(entry, "triton.py")):
            if stat(source, cand) is not None:
                t.put("triton_shadow", cand, "env:PYTHONPATH", overwrite=False)
                t.note("%s is on PYTHONPATH, ahead of site-packages: 'import triton' finds it first" % cand)
    cwd = e.get("PWD")
    if cwd and cwd != site:
        cand = posixpath.join(cwd, "triton")
        if _is_dir(source, cand) and (stat(source, posixpath.join(cand, "__init__.py")) is None
                                      or stat(source, posixpath.join(cand, "language")) is None):
            t.put("triton_shadow", cand, "env:PWD", overwrite=False)
            t.note("a triton/ directory in the working directory %s shadows the Triton package for "
                   "'python -m' / 'python -c' / notebooks started there" % cwd)
    # 2. the user site comes before the system site for a system interpreter
    if how == "system":
        home = e.get("HOME")
        pyver = _py_from_site(site)
        if home and pyver:
            user_triton = posixpath.join(home, ".local", "lib", "python" + pyver, "site-packages", "triton")
            if _is_dir(source, user_triton):
                t.put("triton_shadow", user_triton, "dir:" + user_triton, overwrite=False)
                t.note("%s (user site) is imported before the system site's Triton" % user_triton)
    # 3. the triton/ directory in site-packages itself
    if "triton" in names:
        tdir = posixpath.join(site, "triton")
        has_init = stat(source, posixpath.join(tdir, "__init__.py")) is not None
        has_lang = stat(source, posixpath.join(tdir, "language")) is not None
        if not has_init:
            t.put("triton_shadow", tdir, "dir:" + tdir, overwrite=False)
            t.note("%s has no __init__.py: Python imports it as an empty namespace package and "
                   "'triton.language' is missing" % tdir)
        elif not has_lang:
            t.put("triton_shadow", tdir, "dir:" + tdir, overwrite=False)
            t.note("%s has no language/ subpackage: a corrupted Triton install" % tdir)
        if not installed:
            t.put("triton_shadow", tdir, "dir:" + tdir, overwrite=False)
            t.note("%s belongs to no installed distribution (left over from an uninstall)" % tdir)


# -- pastes ------------------------------------------------------------------------------------------

def _index_commands(source: Source) -> List[Tuple[str, object]]:
    """(s14-detect) The pastes' pip / uv install commands from AMD's ROCm (TheRock) indexes that the pastes do not
    show failing (``parsers/install_command.py``)."""
    every = pastes(source)
    if not any("pip" in t and ("amd.com" in t or "cloudfront.net" in t) for _n, t in every):
        return []
    # the installer's failure may be pasted apart from the command: every paste is looked at
    return p_install_command.commands_installed(every)


def _command_env(commands: List[Tuple[str, object]]) -> Optional[TorchEnv]:
    """(s14-detect) The torch environment a pasted install command made, when no output shows the environment
    itself: torch (or torchvision / torchaudio) from TheRock's per-family index or its multi-arch index with a
    ``[device-gfxNNNN]`` extra is a ROCm build taking ROCm from the rocm wheels (stream pip), with device code for
    the family's / extra's targets (TheRock RELEASES.md; status inferred: the command was run and did not fail)."""
    for name, c in commands:
        if not any(p in ("torch", "torchvision", "torchaudio") for p in c.packages):
            continue
        gfx = p_install_command.targets(c)
        if not gfx:
            continue
        label = paste_label(name, "install command from %s" % c.index)
        t = TorchEnv()
        if c.torch_pin and re.match(r"^\d+\.\d+\.\d+", c.torch_pin):
            t.put("version", c.torch_pin, label)
        t.put("build", "rocm", label)
        t.put("stream", "pip", label)
        t.device_gfx.extend(gfx)
        t.sources["device_gfx"] = label + (" (device extras)" if c.device_extras else " (the %s family's targets)" % c.family)
        t.note("read from the install command '%s' (not from the environment: no pip list or torch output shows "
               "it); no paste shows that install failing" % c.line[:200])
        return t
    return None


def _command_targets(t: TorchEnv, commands: List[Tuple[str, object]]) -> None:
    """(s14-detect) The one pasted environment's device code from a per-family index's install command (its family's
    targets); device extras are read with the other pip extras below."""
    for name, c in commands:
        if c.family and not c.device_extras and any(p in ("torch", "rocm") for p in c.packages):
            for g in p_install_command.targets(c):
                if g not in t.device_gfx:
                    t.device_gfx.append(g)
                    t.sources.setdefault("device_gfx", paste_label(name, "install command from %s (the %s family's "
                                                                         "targets)" % (c.index, c.family)))


def _paste_env(label: str, version: Optional[str], pkgs: Dict[str, str]) -> TorchEnv:
    t = TorchEnv()
    t.put("version", version, label)
    for name in ("torchvision", "torchaudio"):
        t.put(name, pkgs.get(name) or None, label)
    for name in TRITON_DISTS:
        if pkgs.get(name):
            t.triton[name] = pkgs[name]
            t.sources.setdefault("triton", label)
    for name in NOTABLE:
        if pkgs.get(name):
            t.packages[name] = pkgs[name]
    if t.packages:
        t.sources.setdefault("packages", label)
    rocm_wheels(t, {norm_name(k): v for k, v in pkgs.items()}, label)
    return t


def _merge(into: TorchEnv, other: TorchEnv) -> None:
    for name in ("version", "build", "hip", "cuda", "python", "torchvision", "torchaudio", "rocm"):
        into.put(name, getattr(other, name), other.sources.get(name, ""), overwrite=False)
    for k, v in other.rocm_wheels.items():
        into.rocm_wheels.setdefault(k, v)
    for g in other.device_gfx:
        if g not in into.device_gfx:
            into.device_gfx.append(g)
    for k, v in other.triton.items():
        into.triton.setdefault(k, v)
    for k, v in other.packages.items():
        into.packages.setdefault(k, v)
    for n in other.notes:
        into.note(n)


def _rocm_sdk_env(source: Source) -> Optional[TorchEnv]:
    """A pasted ``rocm-sdk version`` / ``rocm-sdk targets``: ROCm from pip wheels, and their GPU targets."""
    t = TorchEnv()
    for raw in ok_outputs(source, "rocm-sdk"):
        res = p_rocm_sdk.parse(raw.text)
        if res.version and "rocm" not in t.rocm_wheels:
            t.rocm_wheels["rocm"] = res.version
            t.sources.setdefault("rocm_wheels", raw.source + " (rocm-sdk version)")
        for g in res.targets:
            if g not in t.device_gfx:
                t.device_gfx.append(g)
                t.sources.setdefault("device_gfx", raw.source + " (rocm-sdk targets)")
    return t if (t.rocm_wheels or t.device_gfx) else None


def _from_pastes(source: Source, system: System) -> None:
    found: List[TorchEnv] = []
    for raw in ok_outputs(source, "collect_env"):
        ce = p_collect_env.parse_cached(raw.text)
        if not ce.ok:
            continue
        pkgs = dict(ce.conda)
        pkgs.update(ce.pip)
        t = _paste_env(raw.source, ce.torch_version or pkgs.get("torch") or None, pkgs)
        t.put("hip", ce.hip_build, raw.source + "#ROCM used to build PyTorch")
        t.put("cuda", ce.cuda_build, raw.source + "#CUDA used to build PyTorch")
        if ce.hip_build:
            t.put("build", "rocm", raw.source + "#ROCM used to build PyTorch")
        elif ce.cuda_build:
            t.put("build", "cuda", raw.source + "#CUDA used to build PyTorch")
        elif ce.torch_version and "ROCM used to build PyTorch" in ce.raw and "CUDA used to build PyTorch" in ce.raw:
            t.put("build", "cpu", raw.source)
        t.put("python", ce.python, raw.source + "#Python version")
        if ce.hip_runtime:
            t.note("HIP runtime version (from torch's build config): %s" % ce.hip_runtime)
        if ce.miopen:
            t.note("MIOpen runtime version: %s" % ce.miopen)
        if t.version or t.triton or t.rocm_wheels:
            found.append(t)
    pip_outs = ok_outputs(source, "pip-freeze")
    if not pip_outs and not found and pastes(source):  # (no pasted text: no fallback to look for)
        pip_outs = fallback_pastes(source, p_pip.looks_like, "pip-freeze", 0.6)
    for raw in pip_outs:
        pp = p_pip.parse(raw.text)
        if not pp.ok:
            continue
        t = _paste_env(raw.source, pp.packages.get("torch") or None, pp.packages)
        if not (t.version or t.triton or t.rocm_wheels):
            continue
        found.append(t)
    if not found:
        # print(torch.__version__, torch.version.hip), a REPL's '2.4.1+rocm6.1', ComfyUI's start-up
        for name, text in pastes(source):
            for version, hip in p_paste_facts.parse_cached(text).torch:
                label = paste_label(name, "torch line")
                t = _paste_env(label, version, {})
                t.put("hip", hip, label)
                found.append(t)
    commands = _index_commands(source)
    if not found:
        t = _command_env(commands)
        if t is not None:
            found.append(t)
    elif len(found) == 1:
        _command_targets(found[0], commands)
    if len(found) == 1:
        # (s8-heldq) pip's torch[device-gfxNNNN] extra names the device wheel the one pasted environment has
        for name, text in pastes(source):
            for g in p_paste_facts.parse_cached(text).device_extras:
                if g not in found[0].device_gfx:
                    found[0].device_gfx.append(g)
                    found[0].sources.setdefault("device_gfx", paste_label(name, "pip extra device-" + g))
    sdk = _rocm_sdk_env(source)
    if sdk is not None:
        if len(found) == 1:  # one pasted environment: the rocm-sdk outputs describe its wheels
            _merge(found[0], sdk)
            for name in ("rocm_wheels", "device_gfx"):
                found[0].sources.setdefault(name, sdk.sources.get(name, ""))
        else:
            found.append(sdk)
    merged: List[TorchEnv] = []
    for t in found:
        if t.build is None and t.version:
            t.put("build", build_from_version(t.version), "version-label")
        classify_rocm(t)
        same = next((m for m in merged if t.version and m.version == t.version), None)
        if same is None and t.version:
            # collect_env's "PyTorch version" and its own "[pip3] torch==" can differ in the local label
            same = next((m for m in merged if m.version and m.version.split("+")[0] == t.version.split("+")[0]
                         and (m.hip or t.hip) and not (m.hip and t.hip and m.hip != t.hip)), None)
        if same is not None:
            _merge(same, t)
            classify_rocm(same)
        else:
            merged.append(t)
    system.torch.extend(merged)
