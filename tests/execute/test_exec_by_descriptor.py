"""Issue 27, round two, item 4: why root does not start a venv's interpreter through the checked
descriptor (``fexecve``/``execveat`` of a held fd, or ``/proc/self/fd/D/bin/python``), and the
property the owner rule relies on instead.  The argument is in docs/ARCHITECTURE.md ("Exec through
the checked descriptor"); each test pins one premise of it on a real CPython and real venvs made
here (``python -m venv --without-pip`` under tmp_path):

1. CPython decides the venv -- ``pyvenv.cfg``, ``sys.prefix``, site-packages -- from the path
   string it was started as (``argv[0]``), not from the file the kernel ran: executing venv A's
   checked interpreter fd with argv[0] naming venv B runs B's site-packages, by path.  Executing the
   fd itself (argv[0] ``/proc/self/fd/N``) is no venv at all.
2. Naming the venv through a held directory fd (argv[0] ``/proc/self/fd/D/bin/python``) does make
   Python read the held directory, but ``sys.executable`` becomes that string: a subprocess started
   the usual way (``close_fds``) cannot run it, and it is what pip writes into console scripts.
3. So the rule itself closes the window: a root verdict means every object judged is root's and
   writable by root alone, and making any of them writable by another user changes the verdict."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from rocm_wizard import ownerrule

SPY = "import sys; print('prefix=' + sys.prefix)\n"


def make_venv(path):
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(path)], check=True, capture_output=True)
    site = next(path.glob("lib/python3*/site-packages"))
    (site / "zz_spy.pth").write_text(f"import os; os.environ['RW_SPY'] = {str(path)!r}\n")
    return path


@pytest.fixture(scope="module")
def venvs(tmp_path_factory):
    base = tmp_path_factory.mktemp("exec-fd")
    return make_venv(base / "A"), make_venv(base / "B")


def run_fd(fd, argv, **kw):
    """Execute the file behind ``fd`` (as fexecve does, through /proc/self/fd) with ``argv``."""
    return subprocess.run(argv, executable=f"/proc/self/fd/{fd}", pass_fds=(fd,), capture_output=True, text=True, **kw)


# prefix, whose .pth ran (each venv's names itself), sys.executable, the site-packages on sys.path
CODE = ("import os, sys; print(sys.prefix); print(os.environ.get('RW_SPY', 'none')); print(sys.executable); "
        "print([p for p in sys.path if p.endswith('site-packages')])")


def test_the_venv_is_the_path_python_was_started_as_not_the_file_run(venvs):
    a, b = venvs
    fd = os.open(a / "bin" / "python", os.O_RDONLY | os.O_CLOEXEC)
    try:
        named_b = run_fd(fd, [str(b / "bin" / "python"), "-c", CODE])
        itself = run_fd(fd, [f"/proc/self/fd/{fd}", "-c", CODE])
    finally:
        os.close(fd)
    prefix, spy, _ = named_b.stdout.split("\n")[:3]
    assert named_b.returncode == 0, named_b.stderr
    assert prefix == str(b) and spy == str(b)  # A's checked file ran B's .pth, found by path
    prefix, spy, _ = itself.stdout.split("\n")[:3]
    assert prefix not in (str(a), str(b)) and spy == "none"  # through the fd: no venv at all


def test_a_held_directory_fd_prefix_leaks_into_sys_executable_and_breaks_subprocesses(venvs, tmp_path):
    a, _ = venvs
    d = os.open(a, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        argv0 = f"/proc/self/fd/{d}/bin/python"
        code = CODE + ("\nimport subprocess\n"
                       "r = subprocess.run([sys.executable, '-c', 'pass'], capture_output=True)\n"
                       "print('child', r.returncode)")
        res = subprocess.run([argv0, "-c", code], executable=str(a / "bin" / "python"), pass_fds=(d,),
                             capture_output=True, text=True)
    finally:
        os.close(d)
    lines = res.stdout.split("\n")
    assert lines[0] == f"/proc/self/fd/{d}" and lines[1] == str(a), res  # the held directory's venv, its .pth
    assert f"'/proc/self/fd/{d}/lib/" in lines[3], res  # site-packages read through the held fd
    assert lines[2] == argv0  # what pip would write into bin/ scripts' #! lines
    assert res.returncode != 0 or "child 0" not in res.stdout, res  # its own children cannot start it


@pytest.mark.skipif(os.geteuid() != 0, reason="chown needs root")
def test_a_root_verdict_means_everything_judged_is_roots_alone(venvs, tmp_path):
    """The property the rule's race argument stands on: when it says root, nothing it judged can be
    changed by anyone else; and any judged object made another user's moves the verdict off root."""
    import shutil

    venv = tmp_path / "root-venv"
    shutil.copytree(venvs[0], venv, symlinks=True)
    cfg = venv / "pyvenv.cfg"
    cfg.write_text(cfg.read_text())
    names = {4242: "alice"}
    try:
        verdict = ownerrule.judge_venv(str(venv), names.get)
    except ownerrule.RuleError as exc:
        verdict = str(exc)
    if verdict != "root":  # the venvs are made from the interpreter running the tests: its install decides
        pytest.skip(f"this test's interpreter is not root's alone, so no venv made from it is: {verdict}")
    w, _ = ownerrule.collect_venv(str(venv))
    try:
        items = [it for it in w.items if not os.path.islink(it.path)]
    finally:
        w.close()
    judged_here = [it.path for it in items if it.path.startswith(str(venv))]
    assert any(p.endswith("zz_spy.pth") for p in judged_here) and any(p.endswith("pyvenv.cfg") for p in judged_here)
    for it in items:
        assert it.st.st_uid == 0 or it.role != "venv", it.path
        assert not it.writers(), (it.path, it.writers())
    for path in judged_here:
        st = os.lstat(path)
        os.chmod(path, st.st_mode | 0o002)
        try:
            with pytest.raises(ownerrule.RuleError):
                ownerrule.judge_venv(str(venv), names.get)
        finally:
            os.chmod(path, st.st_mode)


ROOT_ONLY = pytest.mark.skipif(os.geteuid() != 0, reason="the held start is what a root run does")
# what each venv's .pth records at every start: its name, the uid, and the identity of sys.prefix
MARK = ("import os, sys; st = os.stat(sys.prefix); open({spy!r}, 'a').write('%s %d %d:%d %s\\n' % "
        "({name!r}, os.getuid(), st.st_dev, st.st_ino, sys.prefix != sys.base_prefix))\n")


def root_venv(path, spy):
    """A venv made by the system's own interpreter (root's), with a .pth that says who started."""
    subprocess.run(["/usr/bin/python3", "-m", "venv", "--without-pip", str(path)], check=True, capture_output=True)
    site = next(path.glob("lib/python3*/site-packages"))
    (site / "zz_mark.pth").write_text(MARK.format(spy=str(spy), name=path.name))
    return path


@ROOT_ONLY
@pytest.mark.parametrize("how", ["venv", "python"])
def test_verify_starts_the_checked_venv_not_what_is_at_its_path_now(tmp_path, monkeypatch, how):
    """Issue 27, finding 2 (run what was checked): root's ``verify`` judges root's venv, then -- in
    the window between the judgement and the start -- another venv is put at the same path (the
    swap a race would make).  What starts is the venv that was judged: its own .pth runs, with
    ``sys.prefix`` that very directory (a venv: CPython found its pyvenv.cfg through the held
    descriptor); the swapped-in venv's .pth never runs.  The report names the venv's path, not the
    descriptor.  (On the code before, which started ``<venv>/bin/python`` by path, B's .pth ran.)"""
    from rocm_wizard.verify import runner

    if subprocess.run(["/usr/bin/python3", "-c", "pass"], capture_output=True).returncode != 0:
        pytest.skip("no /usr/bin/python3")
    base = tmp_path / "srv"
    base.mkdir()
    os.chmod(tmp_path, 0o755)
    spy = tmp_path / "spy"
    spy.write_text("")
    venv = root_venv(base / "venv", spy)
    other = root_venv(base / "other", spy)
    checked = os.stat(venv)
    try:
        verdict = ownerrule.judge_venv(str(venv), lambda uid: "root" if uid == 0 else None)
    except ownerrule.RuleError as exc:
        pytest.skip(f"the system's Python is not root's alone here: {exc}")
    assert verdict == "root"
    started = []
    real_run = runner._run

    def swap_then_run(target, argv, *a, **kw):  # the window after the check: the venv is replaced
        os.rename(venv, base / "checked")
        os.rename(other, venv)
        started.append(argv[0])
        return real_run(target, argv, *a, **kw)

    monkeypatch.setattr(runner, "_run", swap_then_run)
    if how == "venv":
        report = runner.run_verify(venv=str(venv), timeout=20, annotate=False)
    else:
        report = runner.run_verify(python=str(venv / "bin" / "python"), timeout=20, annotate=False)
    seen = [line.split() for line in spy.read_text().splitlines()]
    assert seen, (report.error, report.stderr_tail)
    assert {name for name, *_ in seen} == {"venv"}, seen  # the judged venv's .pth, never the other's
    assert all(ident == f"{checked.st_dev}:{checked.st_ino}" and is_venv == "True"
               for _name, _uid, ident, is_venv in seen), seen  # sys.prefix: the judged directory, a venv
    assert started and started[0].startswith("/proc/"), started  # through the held descriptor
    assert report.raw and str(venv) in str(report.raw), (report.error, report.stderr_tail)
    assert "/proc/" not in str(report.raw) + report.stderr_tail  # named as the user gave it
