"""How the Ansible export starts a command as a venv's owner: nothing of root's goes with it.

The playbook's venv tasks run as the venv's owner (``become_user``); a command among them (pip,
uv, ``pip freeze``, ``pip check``) starts the owner's interpreter, so it runs the owner's code
(a ``.pth`` runs at every start).  This module, standard library only, is run by the host's
``/usr/bin/python3 -I -S -c`` as that user with the command after it (the playbook carries its
source, as it carries :mod:`rocm_wizard.ownerrule`), and starts the command:

* in a session of its own with no controlling terminal, stdin ``/dev/null`` (finding 3 of issue
  27: on a terminal, the owner's code could push keystrokes into root's shell with ``TIOCSTI``);
* with a minimal environment: :data:`KEEP` and nothing else, whatever the become method passed on
  (finding 9: root's ``HF_TOKEN``, cloud keys, ``RW_MIRROR_PASSWORD`` stay root's);
* with its output read in chunks and bounded (finding 8: the module returns what it captured to
  the controller, which holds it several times over; one 48 MiB line took ``ansible-playbook`` to
  over 1 GiB): beyond :data:`LIMIT` bytes on stdout or stderr the command's process group is
  killed and this exits :data:`OVER` naming the bound, so the task fails cleanly.

Usage: ``python3 -I -S -c SOURCE -- ARGV...``; the exit status is the command's (or 128 + signal).
"""
from __future__ import annotations

import os
import selectors
import signal
import subprocess
import sys

LIMIT = 1024 * 1024  # bytes of stdout, and of stderr, passed on (pip freeze, pip install: tens of KiB)
OVER = 125  # the exit status when the command wrote more than LIMIT

# the environment the command keeps: what pip and uv need (the index the task sets, proxies, CA
# files, the locale) and the account's own names; the same names as rocm_wizard.runas.OWNER_ENV_NAMES
# plus the index variables the playbook's tasks set and what the become method sets for the user
KEEP = frozenset({
    "PATH", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "TZ", "TERM",
    "http_proxy", "https_proxy", "no_proxy", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY", "all_proxy",
    "SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE", "PIP_CERT", "UV_NATIVE_TLS",
    "TORCH_BLAS_PREFER_HIPBLASLT", "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES",
    "HSA_ENABLE_SDMA", "HSA_OVERRIDE_GFX_VERSION", "AMD_LOG_LEVEL", "ROC_ENABLE_PRE_VEGA",
    "HOME", "USER", "LOGNAME", "SHELL", "TMPDIR",
    "PIP_INDEX_URL", "UV_INDEX_URL", "UV_DEFAULT_INDEX",
})
DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


def environment(environ):
    """What the command gets of ``environ``: :data:`KEEP`, a proxy URL with credentials left out."""
    out = {k: v for k, v in environ.items()
           if k in KEEP and not (k.lower().endswith("_proxy") and "@" in v)}
    out.setdefault("PATH", DEFAULT_PATH)
    return out


def run(argv, limit=LIMIT, out=None, err=None):
    """Start ``argv`` as described above; pass on at most ``limit`` bytes of each stream; return
    the exit status."""
    out = out if out is not None else sys.stdout.buffer
    err = err if err is not None else sys.stderr.buffer
    try:
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                env=environment(os.environ), start_new_session=True, close_fds=True)
    except OSError as exc:
        err.write(("rocm-wizard: cannot start %s: %s\n" % (argv[0], exc.strerror)).encode())
        return 127
    sinks = {proc.stdout: [out, 0], proc.stderr: [err, 0]}
    over = None
    with selectors.DefaultSelector() as sel:
        for pipe in sinks:
            sel.register(pipe, selectors.EVENT_READ)
        while sel.get_map() and over is None:
            for key, _ in sel.select():
                data = os.read(key.fd, 65536)
                if not data:
                    sel.unregister(key.fileobj)
                    continue
                sink = sinks[key.fileobj]
                keep = data[:max(0, limit - sink[1])]
                sink[1] += len(data)
                if keep:
                    sink[0].write(keep)
                    sink[0].flush()
                if sink[1] > limit:
                    over = "stdout" if key.fileobj is proc.stdout else "stderr"
                    break
    if over is not None:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            pass
        proc.wait()
        err.write(("\nrocm-wizard: %s wrote more than %d bytes on %s: stopped (its output is bounded, "
                   "so that the play's controller is not flooded)\n" % (argv[0], limit, over)).encode())
        return OVER
    rc = proc.wait()
    return 128 - rc if rc < 0 else rc  # a signal: 128 + its number, as a shell says


def main(args):
    if args[:1] == ["--"]:
        args = args[1:]
    if not args:
        sys.stderr.write("usage: ownerrun.py -- ARGV...\n")
        return 2
    return run(args)


def source():
    """This module's source: what the playbook runs with ``python3 -I -S -c``."""
    with open(__file__, encoding="utf-8") as f:
        return f.read()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
