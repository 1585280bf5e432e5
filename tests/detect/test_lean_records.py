"""``model.lean_dataclass`` behaves like ``@dataclass``: the record classes trade generated
``__repr__`` / ``__eq__`` for shared ones (start-up time), and nothing else may change."""
from __future__ import annotations

import dataclasses
import pickle
from dataclasses import field
from typing import Dict, List, Optional

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rocm_wizard import model
from rocm_wizard.model import lean_dataclass


def _pair(hidden_repr: bool = False):
    """The same class body decorated both ways."""

    def body():
        class Thing:
            """A thing."""

            name: str
            size: Optional[int] = None
            tags: List[str] = field(default_factory=list)
            meta: Dict[str, str] = field(default_factory=dict, repr=not hidden_repr, compare=False)

        return Thing

    std = dataclasses.dataclass(body())
    lean = lean_dataclass(body())
    return std, lean


def _same_repr(std_obj, lean_obj) -> bool:
    return repr(std_obj) == repr(lean_obj)


@given(name=st.text(max_size=8), size=st.one_of(st.none(), st.integers()), tags=st.lists(st.text(max_size=4), max_size=3),
       meta=st.dictionaries(st.text(max_size=3), st.text(max_size=3), max_size=2), hidden=st.booleans())
def test_repr_and_eq_match_a_dataclass(name, size, tags, meta, hidden):
    std, lean = _pair(hidden)
    a_std, a_lean = std(name, size, list(tags), dict(meta)), lean(name, size, list(tags), dict(meta))
    assert _same_repr(a_std, a_lean)
    b_std, b_lean = std(name, size, list(tags)), lean(name, size, list(tags))
    # meta has compare=False: equal regardless of it, like the dataclass
    assert a_std == b_std and a_lean == b_lean
    c_std, c_lean = std(name + "x", size), lean(name + "x", size)
    assert not a_std == c_std and not a_lean == c_lean
    assert a_std != c_std and a_lean != c_lean


def test_eq_with_other_classes_and_hash():
    std, lean = _pair()
    other_std, other_lean = _pair()
    assert (std("a") == other_std("a")) is False and (lean("a") == other_lean("a")) is False
    assert lean("a").__eq__(1) is NotImplemented and std("a").__eq__(1) is NotImplemented
    for cls in (std, lean):
        with pytest.raises(TypeError):
            hash(cls("a"))


def test_fields_init_and_helpers_unchanged():
    std, lean = _pair()
    assert [(f.name, f.default, f.repr, f.compare) for f in dataclasses.fields(std)] == \
           [(f.name, f.default, f.repr, f.compare) for f in dataclasses.fields(lean)]
    assert dataclasses.is_dataclass(lean) and lean.__match_args__ == std.__match_args__
    x = lean("n", 3)
    assert x.tags == [] and x.tags is not lean("n").tags  # default_factory per instance
    assert dataclasses.asdict(x) == dataclasses.asdict(std("n", 3))
    assert dataclasses.replace(x, size=4).size == 4
    with pytest.raises(TypeError):
        lean()  # name is required, as with @dataclass
    with pytest.raises(TypeError):
        lean("n", bogus=1)


def test_recursive_repr_and_subclass():
    std, lean = _pair()
    s, l = std("r"), lean("r")
    s.tags.append(s)
    l.tags.append(l)
    assert repr(l) == repr(s) and "tags=[...]" in repr(l)

    class Sub(lean):  # not decorated: inherits init, repr and eq
        pass

    assert repr(Sub("a")).startswith("test_recursive_repr_and_subclass.<locals>.Sub(name='a'")
    assert Sub("a") == Sub("a") and Sub("a") != lean("a")


def test_model_records_are_lean_and_picklable():
    system = model.System()
    system.gpus.append(model.GPU(name="Radeon", gfx_target="gfx1100"))
    clone = pickle.loads(pickle.dumps(system))
    assert clone == system and repr(clone) == repr(system)
    assert repr(model.GPU()).startswith("GPU(sources={}, notes=[], vendor_id=None,")
    for cls in (model.System, model.GPU, model.RocmInfo, model.OSInfo):
        assert cls.__repr__ is model._lean_repr and cls.__hash__ is None
        assert not cls.__doc__.startswith(cls.__name__ + "(")  # docstrings given: no signature built


# -- the lean records made without @dataclass (model._fast_dataclass) ----------------------------------

DESCRIBE = r"""
import dataclasses, importlib, inspect, json, pkgutil, sys
if sys.argv[1] == "dataclass":  # the model module as it would be with @dataclass doing all the work
    import importlib.util
    spec = importlib.util.find_spec("rocm_wizard.model")
    text = open(spec.origin).read()
    assert text.count("if not _fast_dataclass(cls, frozen):") == 1
    module = importlib.util.module_from_spec(spec)
    sys.modules["rocm_wizard.model"] = module
    exec(compile(text.replace("if not _fast_dataclass(cls, frozen):", "if True:"), spec.origin, "exec"), module.__dict__)
import rocm_wizard
from rocm_wizard import model
for info in pkgutil.walk_packages(rocm_wizard.__path__, "rocm_wizard."):
    if not info.name.startswith(("rocm_wizard.tui", "rocm_wizard.demo", "rocm_wizard.verify.")) and not info.name.endswith("__main__"):
        importlib.import_module(info.name)
def r(x):
    return "MISSING" if x is dataclasses.MISSING else ("<%s>" % x.__qualname__ if callable(x) else repr(x))
out = {}
fast = 0
for name, mod in sorted(sys.modules.items()):
    if not name.startswith("rocm_wizard"):
        continue
    for cls in list(vars(mod).values()):
        if not isinstance(cls, type) or cls.__module__ != name or cls.__dict__.get("__repr__") is not model._lean_repr:
            continue
        fields = list(cls.__dataclass_fields__.values())
        init = cls.__dict__["__init__"]
        if init.__code__.co_varnames[:3] == ("self", "args", "kwargs"):  # not instantiated yet
            init = model._make_init(cls, fields)
        row = {
            "fields": [[f.name, f.type, r(f.default), r(f.default_factory), f.init, f.repr, f.compare, f.hash,
                        f.kw_only, dict(f.metadata), repr(f._field_type)] for f in fields],
            "params": repr(cls.__dataclass_params__),
            "match_args": list(cls.__match_args__),
            "class_attrs": {f.name: r(cls.__dict__.get(f.name, "<absent>")) for f in fields},
            "init": [str(inspect.signature(init)), init.__qualname__, repr(init.__annotations__)],
            "doc": cls.__doc__,
        }
        if all(f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING for f in fields):
            obj = cls()
            row["instance"] = [repr(obj), repr(vars(obj))]
        out[name + "." + cls.__qualname__] = row
        fast += model._lean_fields_of(cls) is not None
print(json.dumps({"classes": out, "fast": fast}, sort_keys=True))
"""


def test_every_lean_record_is_what_dataclass_makes():
    """Every record class of the package (those made by the fast path and those handed to
    @dataclass alike): the same fields, class attributes, ``__match_args__``, ``__init__`` signature
    and default instance as with ``@dataclass(repr=False, eq=False)`` doing all the work."""
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    env = dict(os.environ, PYTHONPATH=str(Path(model.__file__).resolve().parents[1]))
    got = {}
    for way in ("fast", "dataclass"):
        r = subprocess.run([sys.executable, "-c", DESCRIBE, way], capture_output=True, text=True, env=env, timeout=300)
        assert r.returncode == 0, r.stderr[-2000:]
        res = json.loads(r.stdout)
        got[way] = res["classes"]
        if way == "fast":  # most records take the fast path (the check can fail)
            assert res["fast"] > 40, res["fast"]
    assert len(got["fast"]) > 40 and "rocm_wizard.model.GPU" in got["fast"]
    assert got["fast"].keys() == got["dataclass"].keys()
    for name in got["fast"]:
        assert got["fast"][name] == got["dataclass"][name], name


def test_fast_records_build_their_init_once_on_first_use():
    @lean_dataclass
    class Late:
        """Late."""

        a: int
        b: List[int] = field(default_factory=list)

    first = Late.__dict__["__init__"]
    x = Late(1)
    assert Late.__dict__["__init__"] is not first and x.a == 1 and x.b == [] and Late(2, [3]).b == [3]
    assert Late.__init__.__qualname__.endswith("Late.__init__")
    with pytest.raises(TypeError):
        Late()
    with pytest.raises(TypeError):
        Late(1, [], 3)


def test_unusual_classes_are_left_to_dataclass():
    for make in (
        lambda: type("NoDoc", (), {"__annotations__": {"a": "int"}, "a": 1}),
        lambda: type("Post", (), {"__doc__": "d", "__annotations__": {"a": "int"}, "a": 1, "__post_init__": lambda self: None}),
        lambda: type("Cv", (), {"__doc__": "d", "__annotations__": {"a": "ClassVar[int]"}, "a": 1}),
        lambda: type("NoInit", (), {"__doc__": "d", "__annotations__": {"a": "int"}, "a": field(default=1, init=False)}),
    ):
        assert model._fast_dataclass(make()) is False
    with pytest.raises(ValueError):  # a mutable default: refused, as @dataclass refuses it
        lean_dataclass(type("Bad", (), {"__doc__": "d", "__annotations__": {"a": "list"}, "a": []}))
    with pytest.raises(TypeError):
        lean_dataclass(type("Order", (), {"__doc__": "d", "__annotations__": {"a": "int", "b": "int"}, "a": 1}))


# -- frozen records (@lean_dataclass(frozen=True) for @dataclass(frozen=True)) -------------------------

def _frozen_pair():
    def body():
        class Row:
            """A row."""

            key: str
            size: Optional[int] = None
            tags: tuple = ()
            note: str = field(default="", compare=False)

        return Row

    return dataclasses.dataclass(frozen=True)(body()), lean_dataclass(frozen=True)(body())


@given(key=st.text(max_size=6), size=st.one_of(st.none(), st.integers()), tags=st.lists(st.text(max_size=3), max_size=3),
       note=st.text(max_size=3))
def test_frozen_records_behave_like_frozen_dataclasses(key, size, tags, note):
    std, lean = _frozen_pair()
    a_std, a_lean = std(key, size, tuple(tags), note), lean(key, size, tuple(tags), note)
    assert repr(a_std) == repr(a_lean)
    assert hash(a_std) == hash(a_lean)  # the hash of the compared fields, as @dataclass(frozen=True)
    b_std, b_lean = std(key, size, tuple(tags), note + "x"), lean(key, size, tuple(tags), note + "x")
    assert (a_std == b_std) is (a_lean == b_lean) is True and hash(a_lean) == hash(b_lean)
    c_std, c_lean = std(key + "x", size), lean(key + "x", size)
    assert (a_std == c_std) is (a_lean == c_lean) is False
    assert {a_lean, b_lean, c_lean} == {a_lean, c_lean}


def test_frozen_records_refuse_assignment_and_keep_the_helpers():
    std, lean = _frozen_pair()
    x = lean("k", 1)
    for obj in (std("k", 1), x):
        with pytest.raises(dataclasses.FrozenInstanceError, match="cannot assign to field 'size'"):
            obj.size = 2
        with pytest.raises(dataclasses.FrozenInstanceError, match="cannot assign to field 'other'"):
            obj.other = 2
        with pytest.raises(dataclasses.FrozenInstanceError, match="cannot delete field 'key'"):
            del obj.key
    assert dataclasses.replace(x, size=2) == lean("k", 2) and dataclasses.asdict(x) == dataclasses.asdict(std("k", 1))
    import copy

    assert copy.deepcopy(x) == x and copy.copy(x) == x
    assert lean.__dataclass_params__.frozen and dataclasses.is_dataclass(lean)
    assert [(f.name, f.default, f.compare) for f in dataclasses.fields(lean)] == \
           [(f.name, f.default, f.compare) for f in dataclasses.fields(std)]
    assert lean.__match_args__ == std.__match_args__

    class Sub(lean):  # not decorated: only the fields are frozen
        pass

    s = Sub("k")
    s.extra = 1
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.key = "j"


def test_the_catalog_rows_live_detect_builds_are_frozen_lean_records():
    from rocm_wizard.catalog import gpus, streams, ubuntu
    from rocm_wizard.detect.parsers import wsl
    from rocm_wizard import invoker

    for cls in (gpus.GpuEntry, streams.StreamOf, ubuntu.DistroPython, wsl.WslUserspace, wsl.WindowsHost,
                invoker.Invoker):
        assert model._lean_fields_of(cls) is not None, cls  # made without @dataclass
        assert cls.__dataclass_params__.frozen and cls.__hash__ is model._frozen_hash
    row = gpus.GpuEntry("744c", None, "NAVI31", "gfx1100", ("Radeon RX 7900 XTX",), "radeon", "x")
    with pytest.raises(dataclasses.FrozenInstanceError):
        row.gfx_target = "gfx1030"
    assert row == gpus.GpuEntry("744c", None, "NAVI31", "gfx1100", ("Radeon RX 7900 XTX",), "radeon", "x")
    assert len({row, gpus.GpuEntry("744c", None, "NAVI31", "gfx1100", ("Radeon RX 7900 XTX",), "radeon", "x")}) == 1


def test_model_field_refused_by_a_plain_dataclass():
    """``model.field`` in a class given to ``@dataclass`` itself is refused loudly (never taken for a
    default value)."""
    with pytest.raises(ValueError):
        dataclasses.dataclass(type("Mixed", (), {"__annotations__": {"a": "list"}, "a": model.field(default_factory=list)}))
