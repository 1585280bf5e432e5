"""Finding 4 of issue 27, inside the Debian root with a second user: ``verify --python`` judged a
link by its target.  Alice makes ``~/x/python3`` a link to the system's ``/usr/bin/python3.11`` and
puts a ``pyvenv.cfg`` beside it: CPython reads the ``pyvenv.cfg`` beside the path as given, so that
path is a venv of hers, with ``sys.prefix`` the directory above the executable's (``site.venv``):
``~/lib/python3.11/site-packages`` is imported and her ``.pth`` runs.  Root's
``rocm-wizard verify --python /home/alice/x/python3`` must run it as alice, never as root, however
root-owned the link's target is.  (Judged by the resolved path, as before the fix, the verdict was
root and her ``.pth`` ran as uid 0.)"""
from __future__ import annotations

import os

from harness import wizard

SPY = "/tmp/python-uids"


def test_verify_python_judges_alices_link_by_the_path_as_given(wroot):
    root = wroot
    root.add_user("alice")
    alice = int(root.run("id -u alice").stdout)
    root.write(SPY, "", mode=0o666)
    os.chmod(root.host_path(SPY), 0o666)
    line = f"import os; open({SPY!r}, 'a').write('%d\\n' % os.getuid())\n"
    root.run(["sh", "-c", 'set -e; mkdir -p /home/alice/x /home/alice/lib/python3.11/site-packages; '
              'ln -s /usr/bin/python3.11 /home/alice/x/python3; '
              'printf "home = /usr/bin\\ninclude-system-site-packages = false\\nversion = 3.11\\n" >/home/alice/x/pyvenv.cfg; '
              'printf "%s" "$1" >/home/alice/lib/python3.11/site-packages/zz-spy.pth', "sh", line],
             user="alice", check=True)
    # the premise: started by that path, Python takes it for a venv of alice's and runs her .pth
    probe = root.run(["/home/alice/x/python3", "-c", "import sys; print(sys.prefix)"], user="alice", check=True)
    assert probe.stdout.strip() == "/home/alice", probe.stdout  # site.venv: the directory above the executable's
    assert set(int(x) for x in root.read(SPY).split()) == {alice}
    root.write(SPY, "", mode=0o666)
    os.chmod(root.host_path(SPY), 0o666)

    res = wizard.run(root, "verify", "--json", "--timeout", "20", "--python", "/home/alice/x/python3")
    uids = [int(x) for x in root.read(SPY).split()]
    assert uids, (res.returncode, res.stdout[-2000:], res.stderr[-2000:])  # the interpreter was started
    assert 0 not in uids, f"alice's .pth ran as root {uids.count(0)} times: {res.stderr[-2000:]}"
    assert set(uids) == {alice}


def test_verify_python_judges_the_site_packages_python_imports_beside_a_pyvenv_cfg(wroot):
    """The same layout made by root in ``/opt/tools`` (root's, 0755): ``x/python3`` and
    ``x/pyvenv.cfg`` are root's, but ``/opt/tools/lib`` -- where ``sys.prefix`` = ``/opt/tools``
    takes site-packages from -- is alice's.  The rule judged ``x/lib`` (nothing there) and said
    root, and her ``.pth`` ran as root; now the site-packages Python imports are judged: refused,
    naming it."""
    root = wroot
    root.add_user("alice")
    root.write(SPY, "", mode=0o666)
    os.chmod(root.host_path(SPY), 0o666)
    root.run(["sh", "-c", 'set -e; mkdir -p /opt/tools/x /opt/tools/lib; ln -s /usr/bin/python3.11 /opt/tools/x/python3; '
              'printf "home = /usr/bin\\ninclude-system-site-packages = false\\nversion = 3.11\\n" >/opt/tools/x/pyvenv.cfg; '
              'chown alice: /opt/tools/lib'], check=True)
    line = f"import os; open({SPY!r}, 'a').write('%d\\n' % os.getuid())\n"
    root.run(["sh", "-c", 'mkdir -p /opt/tools/lib/python3.11/site-packages && '
              'printf "%s" "$1" >/opt/tools/lib/python3.11/site-packages/zz-spy.pth', "sh", line], user="alice", check=True)
    res = wizard.run(root, "verify", "--json", "--timeout", "20", "--python", "/opt/tools/x/python3")
    uids = [int(x) for x in root.read(SPY).split()]
    assert 0 not in uids, f"alice's .pth ran as root {uids.count(0)} times: {res.stderr[-2000:]}"
    assert res.returncode == 1 and "/opt/tools/lib" in res.stdout + res.stderr, (res.stdout[-2000:], res.stderr[-2000:])
