"""Inside a real Debian root (mmdebstrap), detection's reading of dpkg's database from its files
(``detect/dpkg_db.py``) gives exactly what ``dpkg-query -W`` prints and says the audit is clean
when ``dpkg --audit`` prints nothing; after a package is left half configured, the files give way
and the audit's own text is what detection reports."""
from __future__ import annotations

import json

from harness import wizard

_COMPARE = (
    "import json; from rocm_wizard.detect.sources import LiveSource, KIND_COMMANDS; "
    "src = LiveSource(environ={'PATH': '/usr/sbin:/usr/bin:/sbin:/bin'}); "
    "q = src._dpkg_from_files('dpkg'); a = src._dpkg_from_files('dpkg-audit'); "
    "tq = src.run(KIND_COMMANDS['dpkg'][0]); ta = src.run(KIND_COMMANDS['dpkg-audit'][0]); "
    "print(json.dumps([q and q.text, a and a.text, tq.text, ta.text or '']))"
)


def _compare(root):
    res = root.run(["python3", "-c", _COMPARE], cwd="/", env=wizard.env())
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout)


def test_the_files_say_what_dpkg_says_in_a_debian_root(wroot):
    files_list, files_audit, tool_list, tool_audit = _compare(wroot)
    assert tool_list.count("\n") > 50  # a real installed system's list
    assert files_list == tool_list
    assert tool_audit == "" and files_audit == ""
    # a package left half configured: the list still comes from the files, exactly as the tool's;
    # the audit is dpkg's own
    status = wroot.run(["sh", "-c", "sed -i '0,/^Status: install ok installed$/s//Status: install ok half-configured/' "
                                    "/var/lib/dpkg/status"], check=True)
    assert status.returncode == 0
    files_list, files_audit, tool_list, tool_audit = _compare(wroot)
    assert "half configured" in tool_audit
    assert files_audit is None
    assert files_list == tool_list and "\tiF \n" in tool_list
    res = wizard.run(wroot, "detect", "--json")
    rocm = json.loads(res.stdout)["rocm"]
    assert rocm["dpkg_audit_clean"] is False and "half configured" in rocm["dpkg_audit"]
