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
