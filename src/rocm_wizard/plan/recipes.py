"""Recipes: the declarative description of each path (``plans/<path>.toml``): which steps, in which
order, with which parameters, written as templates over the values :mod:`rocm_wizard.plan.build`
derives from the catalog, the detected system and the user's choices.

Template rules (deliberately tiny, nothing is evaluated):

* a string that is exactly ``"{a.b}"`` becomes the value at ``a.b`` (a list, a dict, a number...);
* ``{a.b}`` inside a longer string is replaced by the value's text;
* ``{{`` and ``}}`` are literal braces;
* a step with ``when = "a.b"`` is kept only when that value is true (``when = "!a.b"``: when false).

Every step has a ``why``: one sentence, templated like its title, saying why the path has that
step; it reaches the JSON plan (``"why"``), the script (a ``# why:`` line at the step) and the
playbook's header, and stays out of the plan id.

The loader finds ``plans/`` in the source tree (``<repo>/plans``) or, in an installed wheel, as
``rocm_wizard/plans``.
"""
from __future__ import annotations

import functools
import os
import re
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

from ..catalog._data import _PKG_ROOT, _toml, parse_toml_file  # _toml: tomllib/tomli, imported lazily

RECIPE_SCHEMA = 1
_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)\}")


class RecipeError(Exception):
    """A recipe file is missing or malformed (a packaging bug, not the user's input)."""


def plans_dir() -> str:
    here = os.path.dirname(os.path.abspath(__file__))
    candidates = [
        os.environ.get("ROCM_WIZARD_PLANS_DIR", ""),
        os.path.join(os.path.dirname(here), "plans"),  # wheel: rocm_wizard/plans
        os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(here))), "plans"),  # source tree
    ]
    for c in candidates:
        if c and os.path.isfile(os.path.join(c, "rocm-upgrade.toml")):
            return c
    raise RecipeError("the plans/ directory with the path recipes was not found (broken installation)")


@dataclass
class StepSpec:
    id: str
    kind: str
    title: str
    params: Dict[str, Any] = field(default_factory=dict)
    when: Optional[str] = None
    why: Optional[str] = None  # one sentence: why the path has this step (templated like the title)


@dataclass
class Recipe:
    path: str
    title: str
    description: str
    steps: List[StepSpec]
    data: Dict[str, Any]  # the recipe's own data tables (meta packages, env rules...)
    source: str


@functools.lru_cache(maxsize=None)
def load_recipe(name: str) -> Recipe:
    if not re.match(r"^[a-z][a-z-]*$", name):
        raise RecipeError(f"bad recipe name {name!r}")
    file = os.path.join(plans_dir(), name + ".toml")
    try:
        raw = parse_toml_file(file, _PKG_ROOT)  # the parsed form is cached on disk, like bytecode
    except OSError as exc:
        raise RecipeError(f"recipe {name} cannot be read: {exc.strerror or exc}") from exc
    except _toml.TOMLDecodeError as exc:
        raise RecipeError(f"recipe {name} is not valid TOML: {exc}") from exc
    if raw.get("schema") != RECIPE_SCHEMA:
        raise RecipeError(f"recipe {name}: schema {raw.get('schema')!r} is not {RECIPE_SCHEMA}")
    steps = []
    for s in raw.get("step", []):
        try:
            steps.append(StepSpec(s["id"], s["kind"], s["title"], dict(s.get("params", {})), s.get("when"),
                                  s.get("why")))
        except KeyError as exc:
            raise RecipeError(f"recipe {name}: a step lacks {exc}") from exc
    if raw.get("path") != name:
        raise RecipeError(f"recipe {name}: path is {raw.get('path')!r}")
    return Recipe(name, raw.get("title", name), raw.get("description", ""), steps, dict(raw.get("data", {})), file)


def lookup(ns: Dict[str, Any], dotted: str) -> Any:
    cur: Any = ns
    for part in dotted.split("."):
        if isinstance(cur, dict) and part in cur:
            cur = cur[part]
        else:
            raise RecipeError(f"template value {dotted!r} is not defined")
    return cur


def render(value: Any, ns: Dict[str, Any]) -> Any:
    if isinstance(value, str):
        m = _PLACEHOLDER.fullmatch(value)
        if m:
            return lookup(ns, m.group(1))
        text = value.replace("{{", "\x00L").replace("}}", "\x00R")
        text = _PLACEHOLDER.sub(lambda mm: str(lookup(ns, mm.group(1))), text)
        return text.replace("\x00L", "{").replace("\x00R", "}")
    if isinstance(value, list):
        return [render(v, ns) for v in value]
    if isinstance(value, dict):
        return {k: render(v, ns) for k, v in value.items()}
    return value


def keep(spec: StepSpec, ns: Dict[str, Any]) -> bool:
    if not spec.when:
        return True
    neg = spec.when.startswith("!")
    value = bool(lookup(ns, spec.when.lstrip("!")))
    return not value if neg else value


def instantiate(recipe: Recipe, ns: Dict[str, Any]):
    """The recipe's steps, kept by their ``when`` and with their templates filled in."""
    from .steps import make_step

    out = []
    for spec in recipe.steps:
        if not keep(spec, ns):
            continue
        why = render(spec.why, ns) if spec.why else None
        out.append(make_step(spec.kind, spec.id, render(spec.title, ns), render(spec.params, ns), why))
    return out
