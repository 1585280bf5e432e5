"""rwtest/realrun.py, the one memo of ``detect_snapshot`` + ``diagnose`` the fixture-wide test files
share: what it gives is what a fresh computation gives, each caller gets its own copy, and a folder
whose files changed is worked out again."""
from __future__ import annotations

import shutil

from rwtest import ci, realrun

from rocm_wizard.detect import detect_snapshot
from rocm_wizard.doctor import diagnose

REAL = ci.REAL


def _tree(obj, seen=()):
    """Every attribute of ``obj``, recursively, with the type of each object (``==`` of a dataclass
    leaves out fields marked ``compare=False``; this does not)."""
    if isinstance(obj, (str, bytes, int, float, bool, type(None))):
        return obj
    if id(obj) in seen:
        return ("<cycle>", type(obj).__name__)
    seen = seen + (id(obj),)
    if isinstance(obj, dict):
        return ("dict", sorted(((repr(k), _tree(v, seen)) for k, v in obj.items()), key=repr))
    if isinstance(obj, (list, tuple)):
        return (type(obj).__name__, [_tree(v, seen) for v in obj])
    if isinstance(obj, (set, frozenset)):
        return (type(obj).__name__, sorted(repr(_tree(v, seen)) for v in obj))
    names = set(getattr(obj, "__dict__", {}))
    for klass in type(obj).__mro__:
        names.update(n for n in getattr(klass, "__slots__", ()) if hasattr(obj, n))
    if not names:
        return (type(obj).__name__, repr(obj))
    return (type(obj).__qualname__, [(n, _tree(getattr(obj, n), seen)) for n in sorted(names)])


def _folders():
    return sorted(p for p in REAL.iterdir() if p.is_dir())


def test_the_memo_gives_what_a_fresh_computation_gives():
    folders = _folders()
    assert len(folders) > 400
    # every seventh fixture (and the last), after whatever this process worked out before
    for folder in folders[::7] + folders[-1:]:
        realrun.run(folder)  # in the memo from here on
        system, diag = realrun.run(folder)
        fresh_system = detect_snapshot(str(folder))
        fresh = diagnose(fresh_system)
        assert system == fresh_system, folder.name
        assert diag == fresh, folder.name
        assert diag.to_dict() == fresh.to_dict(), folder.name
        assert _tree(system) == _tree(fresh_system) and _tree(diag) == _tree(fresh), folder.name
        assert realrun.snapshot(folder) == fresh_system and realrun.diagnosis(folder) == fresh, folder.name


def test_each_call_gets_its_own_copy():
    folder = next(REAL.glob("001-*"))
    system, diag = realrun.run(folder)
    assert diag.findings and system.amd_gpus
    before = diag.to_dict()
    diag.findings.clear()
    system.amd_gpus.clear()
    again_system, again = realrun.run(folder)
    assert again.to_dict() == before and again_system.amd_gpus
    assert again is not diag and again_system is not system


def test_a_changed_folder_is_worked_out_again(tmp_path):
    src = next(REAL.glob("001-*"))
    folder = tmp_path / "pastes"
    shutil.copytree(src, folder)
    first = realrun.diagnosis(folder)
    assert first == diagnose(detect_snapshot(str(folder)))
    computed = realrun.stats["computed"]
    assert realrun.diagnosis(folder) == first and realrun.stats["computed"] == computed  # the same files: reused
    # the same folder, one paste more: a kernel log with an amdgpu ring timeout
    (folder / "dmesg.txt").write_text("[  812.331] amdgpu 0000:03:00.0: amdgpu: ring gfx_0.0.0 timeout, signaled seq=4471, "
                                      "emitted seq=4473\n", encoding="utf-8")
    changed = realrun.diagnosis(folder)
    assert realrun.stats["computed"] == computed + 1
    assert changed == diagnose(detect_snapshot(str(folder)))
    assert changed.to_dict() != first.to_dict()
