"""Finding 2 of issue 27: check, then run by path.  A root venv made with ``sudo python3 -m venv
~/venv`` lives in a directory its user can write: alice swaps it for her own venv (a rename dance
in her home, in a tight loop) while root runs the executor's owner step 100 times and ``verify``
100 times (only its import check: the window raced is the judgement and the start, which every
run has whole).  Her ``.pth`` (it records the user id of every interpreter start) must never run as
root.  The rule that makes this hold: a directory above the venv that another user can change
makes that user the one who runs it (rocm_wizard.ownerrule), judged on what was opened
(``O_PATH|O_NOFOLLOW`` from ``/``), so there is no window between the check and the start in which
a swap changes whose code root runs."""
from __future__ import annotations

import os
import subprocess
import textwrap

from harness import wizard

SPY = "/tmp/venv-uids"
# How many rounds it takes: on the code before the rule (b135684b's parent) alice's .pth ran as root in 107
# of 240 rounds, about one in two, so a check-then-start window that a swap can enter is missed by 100 rounds
# with odds of about 0.55**100 (1e-26); 200 rounds each (the fifteenth session's figure) took twice the CPU for
# no odds worth having.
ROUNDS = 100  # the executor's owner step (rule, then start)
VERIFY_ROUNDS = 100  # verify (rule, then the smoke test's start; only its import check, to keep it short)

# the names venv and evil swapped atomically (renameat2 RENAME_EXCHANGE): /home/alice/venv always
# exists and is, at any moment, root's venv or hers
SWAP = textwrap.dedent("""\
    import ctypes, os
    libc = ctypes.CDLL(None, use_errno=True)
    AT_FDCWD, RENAME_EXCHANGE = -100, 2
    os.chdir("/home/alice")
    open("/home/alice/swapping", "w").close()
    n = 0
    while not os.path.exists("/home/alice/stop"):
        for _ in range(200):
            if libc.renameat2(AT_FDCWD, b"venv", AT_FDCWD, b"evil", RENAME_EXCHANGE) != 0:
                raise SystemExit("renameat2: errno %d" % ctypes.get_errno())
            n += 1
    """)

# root's side, inside the root: the executor's owner step (Context.venv_user, then ctx.run) ROUNDS
# times, the verify launcher (run_verify: owner rule, then start) in the first VERIFY_ROUNDS of them
ROOT_SIDE = textwrap.dedent("""\
    import os, sys, time
    from rocm_wizard.plan.context import Context, StepError
    from rocm_wizard.verify.runner import run_verify
    venv, rounds, verify_rounds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    while not os.path.exists("/home/alice/swapping"):
        time.sleep(0.01)
    refused = users = 0
    why = report_error = ""
    ctx = Context(root="/")
    for i in range(rounds):
        if i < verify_rounds:
            report = run_verify(venv=venv, timeout=5, annotate=False, only=["import"])
            if report.error:
                refused += "rocm-wizard will not run" in report.error
                report_error = report.error
        try:
            user = ctx.venv_user(venv)
        except StepError as exc:
            refused += 1
            why = str(exc)
            continue
        users += user not in (None, "root")
        ctx.run([venv + "/bin/python", "-c", "pass"], user=user, timeout=30)
    print("rounds", rounds, "as-user", users, "refused", refused)
    print("last refusal:", why, "|", report_error)
    """)


def test_alice_swapping_the_venv_never_gets_her_pth_run_as_root(wroot):
    root = wroot
    root.add_user("alice")
    alice = int(root.run("id -u alice").stdout)
    # root's venv in alice's home (sudo python3 -m venv ~/venv), her own venv beside it
    root.run(["python3", "-m", "venv", "--without-pip", "/home/alice/venv"], check=True)
    root.run(["python3", "-m", "venv", "--without-pip", "/home/alice/evil"], user="alice", check=True)
    root.write(SPY, "", mode=0o666)
    os.chmod(root.host_path(SPY), 0o666)
    line = f"import os; open({SPY!r}, 'a').write('%d\\n' % os.getuid())\n"
    root.run(["sh", "-c", 'printf "%s" "$1" >"$(echo /home/alice/evil/lib/python3*/site-packages)/zz-spy.pth"',
              "sh", line], user="alice", check=True)
    root.write("/tmp/root-side.py", ROOT_SIDE)
    root.write("/tmp/swap.py", SWAP, mode=0o644)
    # before the race: root's venv in her home is run as her (she can swap it for hers at any time)
    judged = root.run(["python3", "-m", "rocm_wizard.ownerrule", "venv", "/home/alice/venv"], env=wizard.env())
    assert (judged.returncode, judged.stdout) == (0, "alice\n"), judged.stderr
    swapper = root.popen(["python3", "/tmp/swap.py"], user="alice", stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        res = root.run(["python3", "/tmp/root-side.py", "/home/alice/venv", str(ROUNDS), str(VERIFY_ROUNDS)], env=wizard.env(),
                       timeout=600)
    finally:
        root.run(["touch", "/home/alice/stop"], user="alice")
        try:
            swapper.wait(timeout=30)
        except Exception:
            root.kill_group(swapper)
    assert res.returncode == 0, res.stderr[-3000:]
    uids = [int(x) for x in root.read(SPY).split()]
    # the swap really raced the runs (her venv was started), and never as root
    assert uids, (res.stdout, res.stderr[-2000:])
    assert 0 not in uids, f"alice's .pth ran as root {uids.count(0)} times of {len(uids)}: {res.stdout}"
    assert set(uids) == {alice}


# the same swap by a process of alice's that holds a group no account lists (a setgid program's,
# a service's SupplementaryGroups=): the rule cannot see it, so it counts Debian's staff (gid 50, no
# members) as root's, judges root's venv in a root:staff 2775 directory root's, and root runs it.
GROUP_SWAP = SWAP.replace('"/home/alice', '"/srv/grp').replace("/home/alice/", "/srv/grp/")
AS_ALICE_WITH_STAFF = ["setpriv", "--reuid=alice", "--regid=alice", "--groups=staff", "--"]

VERIFY_ONLY = textwrap.dedent("""\
    import os, sys, time
    from rocm_wizard.verify.runner import run_verify
    venv, rounds = sys.argv[1], int(sys.argv[2])
    while not os.path.exists("/srv/grp/swapping"):
        time.sleep(0.01)
    errors = 0
    for i in range(rounds):
        errors += run_verify(venv=venv, timeout=5, annotate=False, only=["import"]).error is not None
    print("rounds", rounds, "errors", errors)
    """)


def test_a_swap_the_rule_cannot_see_never_runs_in_verify_the_held_venv_runs(wroot):
    """Where the rule's premise fails -- a process holds a group that no account lists, so a
    directory it can write looks root's -- ``verify`` still runs only what it judged: it starts
    the venv through the directory it walked, held (/proc/<pid>/fd/D/bin/python), so alice's
    swap (RENAME_EXCHANGE in a tight loop, VERIFY_ROUNDS verify runs) never gets her .pth run as root.  (The
    code that started the venv by path lost this race.)"""
    root = wroot
    root.add_user("alice")
    root.run(["sh", "-c", "mkdir -p /srv/grp && chown root:staff /srv/grp && chmod 2775 /srv/grp"], check=True)
    root.run(["python3", "-m", "venv", "--without-pip", "/srv/grp/venv"], check=True)
    root.run(AS_ALICE_WITH_STAFF + ["python3", "-m", "venv", "--without-pip", "/srv/grp/evil"], check=True)
    root.write(SPY, "", mode=0o666)
    os.chmod(root.host_path(SPY), 0o666)
    line = f"import os; open({SPY!r}, 'a').write('%d\\n' % os.getuid())\n"
    root.run(AS_ALICE_WITH_STAFF + ["sh", "-c", 'printf "%s" "$1" >"$(echo /srv/grp/evil/lib/python3*/site-packages)/zz-spy.pth"',
                                    "sh", line], check=True)
    judged = root.run(["python3", "-m", "rocm_wizard.ownerrule", "venv", "/srv/grp/venv"], env=wizard.env())
    assert (judged.returncode, judged.stdout) == (0, "root\n"), judged.stderr  # the premise: it looks root's
    root.write("/tmp/verify-side.py", VERIFY_ONLY)
    root.write("/tmp/group-swap.py", GROUP_SWAP, mode=0o644)
    swapper = root.popen(AS_ALICE_WITH_STAFF + ["python3", "/tmp/group-swap.py"], stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    try:
        res = root.run(["python3", "/tmp/verify-side.py", "/srv/grp/venv", str(VERIFY_ROUNDS)], env=wizard.env(), timeout=600)
    finally:
        root.run(AS_ALICE_WITH_STAFF + ["touch", "/srv/grp/stop"])
        try:
            swapper.wait(timeout=30)
        except Exception:
            root.kill_group(swapper)
    assert res.returncode == 0, res.stderr[-3000:]
    uids = [int(x) for x in root.read(SPY).split()]
    assert uids, (res.stdout, res.stderr[-2000:])  # her venv was started (as her, when the rule saw it there)
    assert 0 not in uids, f"alice's .pth ran as root {uids.count(0)} times of {len(uids)}: {res.stdout}"
