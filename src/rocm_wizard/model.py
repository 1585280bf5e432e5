"""Plain typed data that flows through detect -> diagnose -> plan -> execute -> verify.

Every record carries ``sources`` (field name -> where the value came from: ``file:/path``,
``cmd:rocminfo``, ``paste:name.txt#rocminfo``, ``env:NAME``, ``catalog:gpus.csv``...) and ``notes``
(plain-language remarks such as "rocminfo timed out after 10s").  A value that could not be
determined is ``None`` and, where the reason is known, a note says why.

This module imports nothing outside the standard library: it is loaded by every headless command.
"""
from __future__ import annotations

import _thread
import sys
from typing import Any, Dict, List, Optional, Set, Tuple, Type, TypeVar

SCHEMA_VERSION = 1

_T = TypeVar("_T")


# -- lean dataclasses -------------------------------------------------------------------------------
# ``@dataclass`` compiles a fresh ``__init__``, ``__repr__`` and ``__eq__`` for every class when the
# module is imported; with some sixty record classes on the way to ``detect --json`` that is a good
# part of its start-up time, and importing :mod:`dataclasses` itself (with :mod:`inspect`, ``ast``
# and ``dis``) is more.  :func:`lean_dataclass` makes the record classes without that module: only
# ``__init__`` is compiled (on first use) and every class gets the same two shared functions below,
# which behave exactly like the generated ones.  :func:`field` stands for ``dataclasses.field`` in
# those classes; the ``dataclasses.Field`` objects (``__dataclass_fields__``,
# ``__dataclass_params__``) are made on first use, so that ``dataclasses.fields`` / ``asdict`` /
# ``replace`` / ``is_dataclass`` work unchanged.

_FIELD_NAMES: Dict[Tuple[type, str], Tuple[str, ...]] = {}
_REPR_RUNNING: Set[Tuple[int, int]] = set()


class _MissingType:
    __slots__ = ()

    def __repr__(self) -> str:
        return "MISSING"


class _FactoryType:
    __slots__ = ()

    def __repr__(self) -> str:
        return "<factory>"  # as dataclasses' _HAS_DEFAULT_FACTORY shows in __init__'s signature


_MISSING: Any = _MissingType()  # (converted to dataclasses.MISSING where real Field objects are made)
_HAS_FACTORY: Any = _FactoryType()


def _dc() -> Any:
    import dataclasses

    return dataclasses


class LeanField:
    """What ``dataclasses.field()`` records, made without importing :mod:`dataclasses`.  Unhashable:
    a class given to ``@dataclass`` itself that holds one refuses it as a mutable default
    (``ValueError``) rather than take it for a default value."""

    __slots__ = ("default", "default_factory", "init", "repr", "hash", "compare", "metadata", "kw_only",
                 "name", "type")
    __hash__ = None  # type: ignore[assignment]

    def __init__(self, default: Any = _MISSING, default_factory: Any = _MISSING, init: bool = True,
                 repr: bool = True, hash: Optional[bool] = None, compare: bool = True, metadata: Any = None,
                 kw_only: Any = _MISSING) -> None:
        self.default = default
        self.default_factory = default_factory
        self.init = init
        self.repr = repr
        self.hash = hash
        self.compare = compare
        self.metadata = metadata
        self.kw_only = kw_only
        self.name: Optional[str] = None
        self.type: Any = None

    def real(self) -> Any:
        """The ``dataclasses.Field`` that ``@dataclass`` makes of this field."""
        dc = _dc()

        def conv(v: Any) -> Any:
            return dc.MISSING if v is _MISSING else v

        f = dc.field(default=conv(self.default), default_factory=conv(self.default_factory), init=self.init,
                     repr=self.repr, hash=self.hash, compare=self.compare, metadata=self.metadata,
                     kw_only=conv(self.kw_only))
        if self.name is not None:
            f.name = self.name
            f.type = self.type
            f._field_type = dc._FIELD  # type: ignore[attr-defined]
        return f


def field(*, default: Any = _MISSING, default_factory: Any = _MISSING, init: bool = True, repr: bool = True,
          hash: Optional[bool] = None, compare: bool = True, metadata: Any = None, kw_only: Any = _MISSING) -> Any:
    """``dataclasses.field`` for the classes :func:`lean_dataclass` makes (same arguments)."""
    if default is not _MISSING and default_factory is not _MISSING:
        raise ValueError("cannot specify both default and default_factory")
    return LeanField(default, default_factory, init, repr, hash, compare, metadata, kw_only)


def _lean_fields_of(cls: type) -> Optional[Dict[str, LeanField]]:
    """The fields of a class :func:`lean_dataclass` made without ``@dataclass`` (inherited by an
    undecorated subclass, as ``__dataclass_fields__`` is), else None."""
    for klass in cls.__mro__:
        d = klass.__dict__
        if "__dataclass_fields__" in d:
            return d.get("__lean_fields__")
    return None


def _field_names(cls: type, flag: str) -> Tuple[str, ...]:
    """Names of the fields of ``cls`` whose ``flag`` (``repr`` or ``compare``) is set, in order."""
    key = (cls, flag)
    names = _FIELD_NAMES.get(key)
    if names is None:
        lean = _lean_fields_of(cls)
        fields = lean.values() if lean is not None else _dc().fields(cls)
        if flag == "hash":  # the fields @dataclass's __hash__ takes
            names = tuple(f.name for f in fields if (f.compare if f.hash is None else f.hash))
        else:
            names = tuple(f.name for f in fields if getattr(f, flag))
        _FIELD_NAMES[key] = names
    return names


def _lean_repr(self: Any) -> str:
    """``Name(field=value, ...)``, ``...`` for a record met again while it is being shown."""
    key = (id(self), _thread.get_ident())
    if key in _REPR_RUNNING:
        return "..."
    _REPR_RUNNING.add(key)
    try:
        return self.__class__.__qualname__ + "(" + ", ".join(
            f"{name}={getattr(self, name)!r}" for name in _field_names(self.__class__, "repr")) + ")"
    finally:
        _REPR_RUNNING.discard(key)


def _lean_eq(self: Any, other: Any) -> Any:
    """Equal when of the same class and every compared field is equal (as a dataclass)."""
    if other.__class__ is self.__class__:
        names = _field_names(self.__class__, "compare")
        return tuple(getattr(self, n) for n in names) == tuple(getattr(other, n) for n in names)
    return NotImplemented


def _frozen_hash(self: Any) -> int:
    """The hash ``@dataclass(frozen=True)`` gives: that of the tuple of the compared fields."""
    return hash(tuple(getattr(self, n) for n in _field_names(self.__class__, "hash")))


def _frozen_methods(cls: type, names: Tuple[str, ...]) -> Tuple[Any, Any]:
    """``__setattr__`` and ``__delattr__`` as ``@dataclass(frozen=True)`` writes them for ``cls``."""
    def __setattr__(self: Any, name: str, value: Any) -> None:
        if type(self) is cls or name in names:
            raise _dc().FrozenInstanceError(f"cannot assign to field {name!r}")
        super(cls, self).__setattr__(name, value)

    def __delattr__(self: Any, name: str) -> None:
        if type(self) is cls or name in names:
            raise _dc().FrozenInstanceError(f"cannot delete field {name!r}")
        super(cls, self).__delattr__(name)

    __setattr__.__qualname__ = "%s.__setattr__" % cls.__qualname__
    __delattr__.__qualname__ = "%s.__delattr__" % cls.__qualname__
    return __setattr__, __delattr__


# What ``@dataclass(repr=False, eq=False)`` does to a plain class whose fields are all ordinary
# (string annotations under ``from __future__ import annotations``, no ClassVar / InitVar / KW_ONLY,
# no ``__post_init__``, every field in ``__init__``), done directly: the same fields, class
# attributes, ``__match_args__`` and ``__init__`` (source, signature and annotations), without the
# per-annotation checks and the several ``exec`` calls that make ``@dataclass`` slow to apply, and
# the ``dataclasses.Field`` objects made only when asked for (:class:`_Lazy`).  Any other class is
# handed to ``@dataclass`` itself (tests/detect/test_lean_records.py compares both on every record
# class of the package).
_ODD_ANNOTATION = ("ClassVar", "InitVar", "KW_ONLY")
_PARAMS: Dict[bool, Any] = {}  # frozen -> the __dataclass_params__ of the lean records, made on first use


class _Slotted:
    __slots__ = ("slot",)


_SLOT = type(_Slotted.__dict__["slot"])  # a __slots__ member in a class body is no default


def _is_real_field(value: Any) -> bool:
    dc = sys.modules.get("dataclasses")
    return dc is not None and isinstance(value, dc.Field)


def _fast_dataclass(cls: type, frozen: bool = False) -> bool:
    """Make ``cls`` what ``@dataclass(repr=False, eq=False, frozen=frozen)`` would; False (``cls``
    untouched) where that decorator must decide (an unusual field, a base that is not a lean record
    of the same frozenness, a frozen class with a base record or its own ``__setattr__``...)."""
    if type(cls) is not type or cls.__doc__ is None or hasattr(cls, "__post_init__"):
        return False
    body = cls.__dict__
    if frozen and ("__setattr__" in body or "__delattr__" in body):
        return False
    fields: Dict[str, LeanField] = {}
    for base in cls.__mro__[-1:0:-1]:
        if any("__dataclass_fields__" in b.__dict__ for b in base.__mro__):
            base_fields = _lean_fields_of(base)
            if base_fields is None or frozen or getattr(base, "__lean_frozen__", False):
                return False  # a base made by @dataclass, or frozenness to check
            fields.update(base_fields)
    annotations = body.get("__annotations__", {})
    own = []
    for name, kind in annotations.items():
        if not isinstance(kind, str) or any(word in kind for word in _ODD_ANNOTATION) or name == "self":
            return False
        value = body.get(name, _MISSING)
        if isinstance(value, LeanField):
            f = value
        elif _is_real_field(value):
            dc = _dc()
            f = LeanField(*(_MISSING if v is dc.MISSING else v for v in (
                value.default, value.default_factory, value.init, value.repr, value.hash, value.compare,
                value.metadata, value.kw_only)))
        elif isinstance(value, _SLOT):
            return False
        else:
            f = LeanField(default=value)
        if f.init is not True or f.kw_only not in (_MISSING, False):
            return False
        if f.default is not _MISSING and f.default.__class__.__hash__ is None:
            return False  # a mutable default: @dataclass refuses it
        own.append((name, kind, f))
    if any((isinstance(v, LeanField) or _is_real_field(v)) and k not in annotations for k, v in body.items()):
        return False
    order_check = dict(fields)
    for name, _kind, f in own:
        order_check[name] = f
    seen_default = False
    for f in order_check.values():
        has_default = f.default is not _MISSING or f.default_factory is not _MISSING
        if seen_default and not has_default:
            return False  # @dataclass raises "non-default argument follows default argument"
        seen_default = seen_default or has_default
    for name, kind, f in own:
        f.name = name
        f.type = kind
        if f.kw_only is _MISSING:
            f.kw_only = False
        fields[name] = f
    for name, _kind, f in own:
        value = body.get(name)
        if isinstance(value, LeanField) or _is_real_field(value):
            if f.default is _MISSING:
                delattr(cls, name)
            else:
                setattr(cls, name, f.default)
    order = list(fields.values())
    cls.__lean_fields__ = fields  # type: ignore[attr-defined]
    cls.__lean_own__ = tuple(name for name, _kind, _f in own)  # type: ignore[attr-defined]
    cls.__lean_frozen__ = frozen  # type: ignore[attr-defined]
    if frozen:
        cls.__setattr__, cls.__delattr__ = _frozen_methods(cls, tuple(fields))  # type: ignore[assignment]
    cls.__dataclass_fields__ = _Lazy(cls, "__dataclass_fields__")  # type: ignore[attr-defined]
    cls.__dataclass_params__ = _Lazy(cls, "__dataclass_params__")  # type: ignore[attr-defined]
    if "__init__" not in body:
        cls.__init__ = _first_init(cls, order)  # type: ignore[misc]
    if "__match_args__" not in body:
        cls.__match_args__ = tuple(f.name for f in order)  # type: ignore[attr-defined]
    return True


class _Lazy:
    """``__dataclass_fields__`` / ``__dataclass_params__`` of a lean record: the real ones (the
    ``dataclasses.Field`` objects ``@dataclass`` would have made) are made when first asked for,
    and then replace this on the class."""

    __slots__ = ("cls", "name")

    def __init__(self, cls: type, name: str) -> None:
        self.cls = cls
        self.name = name

    def __get__(self, obj: Any, owner: Any = None) -> Any:
        _materialize(self.cls)
        return self.cls.__dict__[self.name]


def _materialize(cls: type) -> None:
    if not isinstance(cls.__dict__.get("__dataclass_fields__"), _Lazy):
        return
    real: Dict[str, Any] = {}
    for base in cls.__mro__[-1:0:-1]:
        base_fields = getattr(base, "__dataclass_fields__", None)  # (the bases' own Field objects)
        if base_fields is not None:
            real.update(base_fields)
    own = cls.__dict__["__lean_fields__"]
    for name in cls.__dict__["__lean_own__"]:
        real[name] = own[name].real()
    frozen = bool(cls.__dict__.get("__lean_frozen__"))
    if frozen not in _PARAMS:
        @_dc().dataclass(repr=False, eq=False, frozen=frozen)
        class _ParamsOf:
            """(only its ``__dataclass_params__``: those of the lean records)"""

        _PARAMS[frozen] = _ParamsOf.__dataclass_params__  # type: ignore[attr-defined]
    type.__setattr__(cls, "__dataclass_fields__", real)
    type.__setattr__(cls, "__dataclass_params__", _PARAMS[frozen])


def _first_init(cls: type, order: List[Any]) -> Any:
    """An ``__init__`` that writes the real one (:func:`_make_init`) on the class when the class is
    first instantiated, then calls it: a record class no run instantiates costs no compiling."""
    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        real = cls.__dict__.get("__init__")
        if real is first:
            real = _make_init(cls, order)
            type.__setattr__(cls, "__init__", real)
        real(self, *args, **kwargs)

    first = __init__
    __init__.__qualname__ = "%s.__init__" % cls.__qualname__
    return __init__


def _make_init(cls: type, order: List[Any]) -> Any:
    """``__init__`` as ``@dataclass`` writes it (defaults and factories bound as locals)."""
    names: Dict[str, Any] = {"_HAS_DEFAULT_FACTORY": _HAS_FACTORY}
    frozen = bool(cls.__dict__.get("__lean_frozen__"))
    if frozen:
        names["__dataclass_builtins_object__"] = object
    # (the fields of a lean record, or real dataclasses.Field objects: each kind has its MISSING)
    missing = _dc().MISSING if order and not isinstance(order[0], LeanField) else _MISSING
    params, lines = [], []
    for f in order:
        n = f.name
        if f.default_factory is not missing:
            names["_dflt_" + n] = f.default_factory
            params.append("%s=_HAS_DEFAULT_FACTORY" % n)
            lines.append(_assign(frozen, n, "_dflt_%s() if %s is _HAS_DEFAULT_FACTORY else %s" % (n, n, n)))
        else:
            if f.default is not missing:
                names["_dflt_" + n] = f.default
                params.append("%s=_dflt_%s" % (n, n))
            else:
                params.append(n)
            lines.append(_assign(frozen, n, n))
    text = "def __create_fn__(%s):\n def __init__(self%s):\n%s\n return __init__" % (
        ", ".join(names), "".join(", " + p for p in params), "\n".join(" " + l for l in lines) or "  pass")
    scope: Dict[str, Any] = {}
    exec(text, {}, scope)
    fn = scope["__create_fn__"](**names)
    fn.__qualname__ = "%s.__init__" % cls.__qualname__
    fn.__annotations__ = dict({f.name: f.type for f in order}, **{"return": None})
    return fn


def _assign(frozen: bool, name: str, value: str) -> str:
    if frozen:  # as @dataclass(frozen=True) writes it
        return "  __dataclass_builtins_object__.__setattr__(self,%r,%s)" % (name, value)
    return "  self.%s = %s" % (name, value)


def _to_real_fields(cls: type) -> None:
    """Before ``@dataclass`` takes a class: its :func:`field` values become ``dataclasses.Field``."""
    for name, value in list(cls.__dict__.items()):
        if isinstance(value, LeanField):
            setattr(cls, name, value.real())


def lean_dataclass(cls: Any = None, *, frozen: bool = False) -> Any:
    """``@dataclass`` (default options) with a cheaper start-up: same fields, ``__init__``, ``repr``,
    ``==`` and unhashability; ``dataclasses.fields`` / ``asdict`` / ``replace`` work unchanged.
    ``@lean_dataclass(frozen=True)`` stands for ``@dataclass(frozen=True)``: the same, with
    assignment refused (``FrozenInstanceError``) and the hash of the compared fields.
    Give the class a docstring: without one, ``@dataclass`` builds it from the signature."""
    if cls is None:
        return lambda c: lean_dataclass(c, frozen=frozen)
    if not _fast_dataclass(cls, frozen):
        _to_real_fields(cls)
        cls = _dc().dataclass(cls, repr=False, eq=False, frozen=frozen)
        cls.__lean_fields__ = None  # type: ignore[attr-defined]  # (made by @dataclass: not lean)
    cls.__repr__ = _lean_repr  # type: ignore[assignment]
    cls.__eq__ = _lean_eq  # type: ignore[assignment]
    cls.__hash__ = _frozen_hash if frozen else None  # type: ignore[assignment]
    return cls


@lean_dataclass
class Record:
    """Base for every detected record: values plus their provenance."""

    sources: Dict[str, str] = field(default_factory=dict)
    notes: List[str] = field(default_factory=list)

    def put(self, name: str, value: Any, source: str, *, overwrite: bool = True) -> None:
        """Set ``name`` to ``value`` and remember ``source``; ``None`` values are ignored.

        With ``overwrite=False`` an already known value is kept (first, best source wins).
        """
        if value is None or value == "":
            return
        if not overwrite and getattr(self, name, None) not in (None, "", [], {}):
            return
        setattr(self, name, value)
        self.sources[name] = source

    def note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)


@lean_dataclass
class OSInfo(Record):
    """The operating system, kernel and CPU."""

    id: Optional[str] = None  # os-release ID: ubuntu, debian, arch, rocky...
    version_id: Optional[str] = None  # 22.04, 24.04, 9.0, rolling
    codename: Optional[str] = None  # jammy, noble
    pretty_name: Optional[str] = None
    kernel: Optional[str] = None  # uname -r
    kernel_flavour: Optional[str] = None  # generic, oem, lowlatency, microsoft-standard-WSL2
    hwe: Optional[bool] = None  # Ubuntu HWE kernel (not the release's GA series)
    wsl: Optional[bool] = None
    container: Optional[str] = None  # docker, podman, lxc, systemd-nspawn... None when bare metal
    arch: Optional[str] = None  # x86_64, aarch64
    cpu: Optional[str] = None  # CPU model name
    python: Optional[str] = None  # system python3 version
    secure_boot: Optional[bool] = None  # UEFI Secure Boot on (efivars SecureBoot, mokutil --sb-state)
    id_like: Optional[str] = None  # os-release ID_LIKE: "ubuntu debian" on Pop!_OS, Linux Mint...
    ubuntu_codename: Optional[str] = None  # os-release UBUNTU_CODENAME: a derivative's Ubuntu base (noble)
    wsl_userspace: Optional[str] = None  # ROCm-on-WSL user space seen: "rocr4wsl" (6.x-7.1) or "librocdxg" (7.2+)
    wsl_version: Optional[str] = None  # WSL's own version (wsl --version, WSL_VERSION files) when shown; "2" from the kernel
    wsl_dxg: Optional[bool] = None  # /dev/dxg, the paravirtual GPU node, present (WSL 2 with a GPU driver)
    wsl_libs: List[str] = field(default_factory=list)  # DXCore / D3D12 libraries in /usr/lib/wsl/lib
    wsl_dxg_switch: Optional[str] = None  # HSA_ENABLE_DXG_DETECTION as set ("1"), None when not shown
    windows_release: Optional[str] = None  # the Windows host under WSL: "10" or "11"
    windows_build: Optional[str] = None  # its build ("19045", "26100")
    windows_driver: Optional[str] = None  # Adrenalin version of the Windows AMD driver, where an output shows it
    wsl_rocm_named: Optional[str] = None  # under WSL, the ROCm release pasted apt/installer lines name (no other release known)
    windows_native: Optional[bool] = None  # a native Windows host (not WSL): from a paste's output-shaped signs
    linux_firmware: Optional[str] = None  # the GPU firmware package's version (linux-firmware, amd-gpu-firmware, firmware-amd-graphics...)
    gpu_firmware: Dict[str, str] = field(default_factory=dict)  # firmware file -> its version as amdgpu reports it (MES: 0x00000080)


@lean_dataclass
class GPU(Record):
    """One graphics device (AMD or not) with its gfx target and PCI identity."""

    vendor_id: Optional[str] = None  # "1002" (AMD), "10de" (NVIDIA), "8086" (Intel)
    device_id: Optional[str] = None  # "744c"
    revision: Optional[str] = None  # "c8"
    pci_id: Optional[str] = None  # "1002:744c"
    bdf: Optional[str] = None  # "0000:03:00.0"
    is_amd: bool = True
    gfx_target: Optional[str] = None  # "gfx1100"
    name: Optional[str] = None  # marketing name
    chip_family: Optional[str] = None  # NAVI31
    segment: Optional[str] = None  # radeon, radeon-pro, instinct, apu
    kind: Optional[str] = None  # "dgpu" | "igpu"
    vram_bytes: Optional[int] = None
    kfd_node: Optional[int] = None
    driver: Optional[str] = None  # kernel driver bound: amdgpu, i915, nvidia...
    isa: Optional[str] = None  # amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-


@lean_dataclass
class RocmInstall(Record):
    """One ROCm tree on disk (``/opt/rocm-6.2.4``) and the release it holds."""

    path: Optional[str] = None  # /opt/rocm-6.2.4, /opt/rocm/core-10.0, /usr (a distribution's ROCm)
    version: Optional[str] = None  # 6.2.4
    build: Optional[str] = None  # build id from .info/version, e.g. "76"
    stream: Optional[str] = None  # legacy | core-sdk | distro (see catalog/streams.py)
    hip_version: Optional[str] = None  # share/hip/version: HIP is versioned apart (10.0 ships HIP 7.15)
    active: Optional[bool] = None  # /opt/rocm (legacy) or /opt/rocm/core (Core SDK) points here


@lean_dataclass
class AptSource(Record):
    """One apt source entry that concerns ROCm or amdgpu."""

    file: Optional[str] = None
    line: Optional[str] = None
    uri: Optional[str] = None
    suite: Optional[str] = None
    components: List[str] = field(default_factory=list)
    signed_by: Optional[str] = None
    enabled: bool = True
    radeon: bool = False  # points at repo.radeon.com (or a configured mirror of it)
    repo_kind: Optional[str] = None  # rocm | amdgpu | graphics | amdgpu-install | other
    release: Optional[str] = None  # version directory in the URL (6.2.4, 7.0, latest)


@lean_dataclass
class AptPin(Record):
    """One apt preferences (pin) stanza that concerns ROCm or amdgpu."""

    file: Optional[str] = None
    package: Optional[str] = None
    pin: Optional[str] = None  # "release o=repo.radeon.com"
    priority: Optional[int] = None


@lean_dataclass
class RocmInfo(Record):
    """The host's ROCm: release, installs, packages, apt setup and the amdgpu driver."""

    version: Optional[str] = None  # the host's ROCm release (never a torch wheel's, never HIP's)
    stream: Optional[str] = None  # stream of that release: legacy | core-sdk | distro
    streams: List[str] = field(default_factory=list)  # every stream installed (several: side by side)
    hip_version: Optional[str] = None  # HIP of the host's ROCm (hipconfig), apart from the release
    installs: List[RocmInstall] = field(default_factory=list)
    opt_rocm_target: Optional[str] = None  # where /opt/rocm points
    core_target: Optional[str] = None  # where /opt/rocm/core points (Core SDK)
    package_gfx: List[str] = field(default_factory=list)  # gfx suffixes of installed amdrocm*-gfxNNNN packages
    packages: Dict[str, str] = field(default_factory=dict)  # package -> version (dpkg/apt/dnf)
    apt_sources: List[AptSource] = field(default_factory=list)
    apt_pins: List[AptPin] = field(default_factory=list)
    distro_offers_rocm: Optional[bool] = None  # the distribution archive also carries ROCm packages
    amdgpu_loaded: Optional[bool] = None
    amdgpu_version: Optional[str] = None  # /sys/module/amdgpu/version (dkms) or None for in-tree
    amdgpu_dkms: Optional[str] = None  # dkms status line / package version
    kfd_version: Optional[str] = None  # "KFD driver version" as reported by tools
    hsa_runtime_version: Optional[str] = None  # rocminfo "Runtime Version"
    smi_version: Optional[str] = None
    dpkg_audit_clean: Optional[bool] = None
    dpkg_audit: Optional[str] = None  # the output when unclean


# the guard's file in a venv (plan/steps/python.py PipGuard writes it, the venv's pip.conf names it;
# detection, doctor and verify read it)
GUARD_FILE = "rocm-wizard-guard.txt"


@lean_dataclass
class TorchEnv(Record):
    """One Python environment with PyTorch (a venv, or site-packages)."""

    path: Optional[str] = None  # venv root, or site-packages when no venv
    site_packages: Optional[str] = None
    python: Optional[str] = None  # interpreter version of the env
    active: bool = False  # the active venv (VIRTUAL_ENV)
    version: Optional[str] = None  # 2.5.1+rocm6.2
    build: Optional[str] = None  # rocm | cuda | cpu
    hip: Optional[str] = None
    cuda: Optional[str] = None
    torchvision: Optional[str] = None
    torchaudio: Optional[str] = None
    triton: Dict[str, str] = field(default_factory=dict)  # distribution -> version
    triton_required: Optional[str] = None  # requirement from torch's metadata: "pytorch-triton-rocm==3.1.0"
    triton_shadow: Optional[str] = None  # a stray triton directory that shadows the distribution
    arch_list: List[str] = field(default_factory=list)  # gfx targets compiled in, when known
    packages: Dict[str, str] = field(default_factory=dict)  # other notable distributions
    rocm: Optional[str] = None  # ROCm release the torch build is for (torch.version.rocm or +rocmX.Y.Z)
    stream: Optional[str] = None  # where its ROCm user space comes from: legacy (bundled) | pip (rocm wheels)
    channel: Optional[str] = None  # release | preview | nightly | source (a git build, e.g. 2.6.0a0+git...)
    rocm_wheels: Dict[str, str] = field(default_factory=dict)  # rocm, rocm-sdk-*, amd-torch-device-* -> version
    device_gfx: List[str] = field(default_factory=list)  # targets of its device wheels (gfx1201, gfx11, all)
    guard: Dict[str, str] = field(default_factory=dict)  # GUARD_FILE in the venv: distribution -> pinned version
    guard_wired: Optional[bool] = None  # the venv's pip.conf still names the guard file
    torch_installer: Optional[str] = None  # torch's dist-info INSTALLER (pip, uv...) and when, as evidence
    bundled_hsa: List[str] = field(default_factory=list)  # torch/lib/libhsa-runtime64.so* the wheel still carries


@lean_dataclass
class DockerInfo(Record):
    """Docker client, daemon and the ROCm images present."""

    client: Optional[str] = None  # docker client version
    daemon: Optional[bool] = None  # daemon reachable
    user_allowed: Optional[bool] = None
    images: List[str] = field(default_factory=list)  # rocm/* images present


@lean_dataclass
class DeviceNode(Record):
    """A device file (``/dev/kfd``, ``/dev/dri/renderD128``) and who may use it."""

    path: Optional[str] = None
    exists: bool = False
    mode: Optional[str] = None  # "crw-rw----"
    group: Optional[str] = None
    accessible: Optional[bool] = None  # read+write for the current user


@lean_dataclass
class AccessInfo(Record):
    """The user, groups, GPU device nodes and GPU-related environment."""

    user: Optional[str] = None
    groups: List[str] = field(default_factory=list)
    in_render: Optional[bool] = None
    in_video: Optional[bool] = None
    kfd: Optional[DeviceNode] = None
    render_nodes: List[DeviceNode] = field(default_factory=list)
    env: Dict[str, str] = field(default_factory=dict)  # GPU-related environment only
    path_has_rocm_bin: Optional[bool] = None


@lean_dataclass
class ErrorSighting(Record):
    """A known error text found in a log or paste (the doctor matches these)."""

    signature: Optional[str] = None  # short id: hipblas_status, triton_language, no_binary_for_gpu...
    text: Optional[str] = None  # the matching line
    layer: Optional[str] = None  # firmware, kernel, runtime, hip, libraries, framework or packaging


@lean_dataclass
class WorkloadSighting(Record):
    """A program the outputs come from (llama.cpp, ollama, vllm, comfyui), by a line it printed."""

    id: Optional[str] = None
    line: Optional[str] = None


@lean_dataclass
class ReleaseChange(Record):
    """A change of a release of the stack that the user's prose names ("after updating linux-firmware",
    "works on 6.17, broken on 6.18", "downgrading the firmware fixed it")."""

    component: Optional[str] = None  # kernel | linux-firmware | amdgpu-dkms | rocm | torch
    direction: Optional[str] = None  # updated (failing since) | good-bad (worked on good, fails on bad) | rolled-back (going back fixed it) | moved-fixed (a newer one fixed it)
    good: Optional[str] = None  # the release that worked (or was rolled back to), when named
    bad: Optional[str] = None  # the release that fails (or was updated to; for moved-fixed the one that fixed it), when named
    line: Optional[str] = None  # the sentence


@lean_dataclass
class System(Record):
    """Everything detection found: the root record that ``detect --json`` prints."""

    schema_version: int = SCHEMA_VERSION
    origin: str = "live"  # live | snapshot
    os: OSInfo = field(default_factory=OSInfo)
    gpus: List[GPU] = field(default_factory=list)
    rocm: RocmInfo = field(default_factory=RocmInfo)
    torch: List[TorchEnv] = field(default_factory=list)
    docker: DockerInfo = field(default_factory=DockerInfo)
    access: AccessInfo = field(default_factory=AccessInfo)
    errors: List[ErrorSighting] = field(default_factory=list)
    workloads: List[WorkloadSighting] = field(default_factory=list)
    changes: List[ReleaseChange] = field(default_factory=list)  # release changes the user's prose names

    @property
    def amd_gpus(self) -> List[GPU]:
        return [g for g in self.gpus if g.is_amd]


def to_dict(obj: Any) -> Any:
    """JSON-ready dict of a record tree (dataclasses, lists, dicts, scalars)."""
    names = _record_names(obj.__class__)
    if names is not None:
        return {name: to_dict(getattr(obj, name)) for name in names}
    if isinstance(obj, (list, tuple)):
        return [to_dict(v) for v in obj]
    if isinstance(obj, dict):
        return {str(k): to_dict(v) for k, v in obj.items()}
    return obj


_NAMES: Dict[type, Optional[Tuple[str, ...]]] = {}


def _record_names(cls: type) -> Optional[Tuple[str, ...]]:
    """The field names of a record class (a lean record, or any dataclass), None for other classes."""
    try:
        return _NAMES[cls]
    except KeyError:
        pass
    except TypeError:  # an unhashable class object: never a record
        return None
    lean = _lean_fields_of(cls)
    if lean is not None:
        names: Optional[Tuple[str, ...]] = tuple(lean)
    else:
        dc = sys.modules.get("dataclasses")  # (no dataclass exists before that module is imported)
        names = tuple(f.name for f in dc.fields(cls)) if dc is not None and dc.is_dataclass(cls) else None
    _NAMES[cls] = names
    return names


def from_dict(cls: Any, data: Any) -> Any:
    """Inverse of :func:`to_dict` for the record classes above (unknown keys are ignored)."""
    import dataclasses
    import typing

    if not dataclasses.is_dataclass(cls) or not isinstance(data, dict):
        return data
    hints = typing.get_type_hints(cls)
    kwargs = {}
    for f in dataclasses.fields(cls):
        if f.name not in data:
            continue
        value = data[f.name]
        kwargs[f.name] = _convert(hints.get(f.name), value)
    return cls(**kwargs)


def _convert(tp: Any, value: Any) -> Any:
    import dataclasses
    import typing

    if value is None:
        return None
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin is typing.Union:  # Optional[X]
        inner = [a for a in args if a is not type(None)]
        return _convert(inner[0], value) if inner else value
    if origin in (list, List):
        return [_convert(args[0] if args else None, v) for v in value]
    if dataclasses.is_dataclass(tp):
        return from_dict(tp, value)
    return value
