"""Issue 27, round two, item 2, inside the Debian root with real account databases: the log root
``/var/log/rocm-wizard`` (the test root's, never the host's) under Ubuntu's layout -- ``/var/log``
root:syslog 0775, the syslog group held by the syslog service account only -- is made 0700 by
root and used; once a person (alice) is in the syslog group it is refused, naming her and the
fix; a log root alice planted while she could (a link to her directory, a directory of hers) is
refused, and nothing is written through it."""
from __future__ import annotations

import os
import shutil
import stat

from harness import wizard


def ubuntu_syslog(root):
    root.run(["groupadd", "--system", "syslog"], check=True)
    root.run(["useradd", "--system", "--gid", "syslog", "--no-create-home", "--shell", "/usr/sbin/nologin",
              "syslog"], check=True)
    root.run(["sh", "-c", "chown root:syslog /var/log && chmod 0775 /var/log"], check=True)


def take_lock(root):
    """What --yes, resume and rollback do first: take run.lock in the log root, making it."""
    return root.run(["python3", "-c", "import sys; from rocm_wizard.execute import paths; "
                     "msg = paths.take_run_lock(); print(msg or '', file=sys.stderr); sys.exit(1 if msg else 0)"],
                    env=wizard.env())


def test_ubuntus_var_log_and_the_people_in_its_group(debroot):
    root = debroot
    wizard.prepare(root)
    root.add_user("alice")
    ubuntu_syslog(root)
    logs = root.host_path("/var/log/rocm-wizard")
    assert not os.path.lexists(logs)
    res = take_lock(root)
    assert res.returncode == 0, res.stderr
    st = os.lstat(logs)
    assert stat.S_ISDIR(st.st_mode) and st.st_uid == 0 and stat.S_IMODE(st.st_mode) == 0o700, oct(st.st_mode)

    root.run(["gpasswd", "-a", "alice", "syslog"], check=True)
    res = wizard.run(root, "rollback", "--dry-run")
    assert res.returncode == 1, res.stderr
    assert "/var/log is writable by alice (in its group syslog" in res.stderr, res.stderr
    assert "gpasswd -d USER syslog" in res.stderr and "Traceback" not in res.stderr, res.stderr

    # what alice could plant while she was in the group: root refuses it after she is out
    shutil.rmtree(logs)
    mine = root.host_path("/home/alice/logs")
    root.run(["mkdir", "/home/alice/logs"], user="alice", check=True)
    root.run(["ln", "-s", "/home/alice/logs", "/var/log/rocm-wizard"], user="alice", check=True)
    root.run(["gpasswd", "-d", "alice", "syslog"], check=True)
    res = wizard.run(root, "rollback", "--dry-run")
    assert res.returncode == 1 and "is a symbolic link; refusing to follow it" in res.stderr, res.stderr
    assert os.listdir(mine) == []
    os.unlink(logs)
    root.run(["gpasswd", "-a", "alice", "syslog"], check=True)
    root.run(["mkdir", "/var/log/rocm-wizard"], user="alice", check=True)
    root.run(["gpasswd", "-d", "alice", "syslog"], check=True)
    res = wizard.run(root, "rollback", "--dry-run")
    assert res.returncode == 1 and "/var/log/rocm-wizard belongs to uid 1000, not root" in res.stderr, res.stderr
    assert "sudo chown root:root /var/log/rocm-wizard" in res.stderr
    assert os.listdir(logs) == []


def save_overlay(root):
    """What catalog refresh does as root at its end: write /var/lib/rocm-wizard/catalog-overlay.json."""
    return root.run(["python3", "-c", "import sys; from rocm_wizard.catalog import overlay\n"
                     "try:\n    overlay.save({'schema': 1}, overlay.SYSTEM_PATH)\n"
                     "except OSError as exc:\n    sys.exit(str(exc.strerror))"], env=wizard.env())


def test_the_state_root_follows_the_same_rule(debroot):
    root = debroot
    wizard.prepare(root)
    root.add_user("alice")
    state = root.host_path("/var/lib/rocm-wizard")
    assert not os.path.lexists(state)
    res = save_overlay(root)
    assert res.returncode == 0, res.stderr
    st = os.lstat(state)
    assert st.st_uid == 0 and stat.S_IMODE(st.st_mode) == 0o700, oct(st.st_mode)
    shutil.rmtree(state)
    root.run(["mkdir", "/home/alice/state"], user="alice", check=True)
    os.symlink("/home/alice/state", state)  # as alice would have, had she been able to write /var/lib
    res = save_overlay(root)
    assert res.returncode == 1 and "is a symbolic link; refusing to follow it for rocm-wizard's state" in res.stderr, res.stderr
    assert os.listdir(root.host_path("/home/alice/state")) == []
    os.unlink(state)
    os.mkdir(state)
    os.chown(state, 1000, 1000)
    res = save_overlay(root)
    assert res.returncode == 1 and "/var/lib/rocm-wizard belongs to uid 1000, not root" in res.stderr, res.stderr
    assert os.listdir(state) == []
