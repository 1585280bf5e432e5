#!/usr/bin/env python3
"""GPU smoke test for PyTorch on ROCm (and CUDA), part of rocm-wizard.

This file is STANDALONE: it uses the standard library and torch (and triton, when present) only,
and never imports rocm_wizard.  It is run with the interpreter under test::

    python smoke.py --json                       # one JSON document on stdout
    python smoke.py                              # the same results as plain text
    docker run ... IMAGE python3 /path/smoke.py --json

Isolation: the process started by the command never imports torch.  Every check runs in a worker
process (this file again, with ``--worker``) under a timeout; a hung GPU or a library that
segfaults or aborts gives a *failed check* with the reason, the worker is replaced, and the
remaining checks go on.  In a healthy environment four workers start at once and import torch side
by side: the main one runs the import, device and most checks; one runs the Triton check and one
torch.compile (mostly CPU work: their compilers overlap with the main worker's GPU checks); one
runs the second BLAS path, which needs a different environment variable before torch starts (the
compile worker starts with the main one, the two others once torch is imported there).  The
throughput and bandwidth figures are taken last, on a GPU nothing else uses.

Test hooks (for rocm-wizard's own test suite; never set them in real use):
``ROCM_WIZARD_SMOKE_HOOK="hang:elementwise,segv:matmul,abort:linear@0,exit:import"`` makes the
named check sleep forever, raise SIGSEGV, call ``os.abort()``, exit, raise an exception
(``raise:``) or print junk on stdout (``noise:``) before it runs.

Exit status: 0 every applicable check passed, 2 a check failed, 1 the script itself could not
run, 64 bad command line, 130 interrupted.

Why one file of ~1,500 lines: it is shipped as this one file -- run in place, copied into a
root-owned temporary directory for a run as the venv's owner (``runner._run_as_user``), bind-mounted
read-only as a single file into a Docker image (``runner.CONTAINER_SCRIPT``), and started again by
itself as the worker (``--worker``).  Split into modules, every one of those would have to ship a
directory or a concatenation built at ship time.  It reads top to bottom in four sections instead:
small helpers used by both sides; the worker side (``op_import``, ``op_device`` and one
``check_*`` function per check family: alloc, elementwise, matmul, linear, triton, compile,
throughput, bandwidth, multi_gpu; ``WORKER_CHECKS`` maps the one-device checks to them); the parent side
(``Worker``: one child process under timeouts, ``Smoke``: the order of checks and the report);
the command line.
"""
import argparse
import json
import math
import os
import platform
import queue
import signal
import subprocess
import sys
import threading
import time
import traceback

SCHEMA = "rocm-wizard/smoke/1"
SCRIPT_VERSION = "1"
PROTO_PREFIX = "@@rocm-wizard-smoke@@ "
HOOK_ENV = "ROCM_WIZARD_SMOKE_HOOK"

# Environment variables that change how ROCm / CUDA / PyTorch / Triton behave; their values are
# reported with the result (nothing else from the environment is read into the report).
ENV_NAMES = (
    "CUDA_VISIBLE_DEVICES", "CUDA_LAUNCH_BLOCKING", "CUDA_MODULE_LOADING", "NVIDIA_VISIBLE_DEVICES",
    "GPU_DEVICE_ORDINAL", "GPU_MAX_HW_QUEUES", "LD_LIBRARY_PATH", "LD_PRELOAD", "NCCL_NVLS_ENABLE",
    "AMD_LOG_LEVEL", "AMD_SERIALIZE_KERNEL", "AMD_SERIALIZE_COPY", "VIRTUAL_ENV", "CONDA_PREFIX",
    HOOK_ENV,
)
ENV_PREFIXES = ("HSA_", "HIP_", "ROCR_", "ROC_", "ROCM_PATH", "TORCH_BLAS_", "PYTORCH_", "TORCHINDUCTOR_",
                "TORCH_COMPILE", "TRITON_", "MIOPEN_", "HIPBLASLT_", "ROCBLAS_", "CUBLAS_", "CUBLASLT_")
VISIBLE_DEVICE_VARS = ("HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL")

# Every check, in report order: (name, scope, what it proves).  scope "global" runs once,
# "device" once per GPU.
CHECKS = (
    ("import", "global", "import torch; versions and build of the wheel"),
    ("kfd", "global", "/dev/kfd and a render node are usable by this user (ROCm only)"),
    ("device", "global", "torch sees at least one GPU; device properties"),
    ("arch", "device", "the wheel carries kernels for this GPU's architecture"),
    ("alloc", "device", "allocate on the device; host -> device -> host round trip"),
    ("elementwise", "device", "elementwise ops and a reduction against the CPU"),
    ("matmul", "device", "fp32/fp16/bf16 matrix products against a float64 CPU reference"),
    ("linear", "device", "nn.Linear forward and backward with the default BLAS backend"),
    ("linear_alt_blas", "device", "nn.Linear again on the other BLAS path (hipBLAS vs hipBLASLt, cuBLAS vs cuBLASLt)"),
    ("triton", "device", "a Triton kernel compiled and run"),
    ("compile", "device", "torch.compile of a small function: dynamo, then inductor"),
    ("throughput", "device", "matrix-product throughput (TFLOP/s)"),
    ("bandwidth", "device", "device memory bandwidth of a large copy (GB/s, bytes read + written)"),
    ("multi_gpu", "global", "copies between every pair of neighbouring GPUs"),
)
CHECK_NAMES = tuple(c[0] for c in CHECKS)
DEVICE_CHECKS = tuple(c[0] for c in CHECKS if c[1] == "device")
BLAS_CHECKS = ("matmul", "linear", "linear_alt_blas", "throughput")  # they report the BLAS backend used
# per-check timeout = --timeout x factor (import and compile are slow on a cold cache)
TIMEOUT_FACTOR = {"import": 3.0, "compile": 3.0}

# relative Frobenius-norm tolerances against a float64 reference computed from the same
# (already rounded) inputs: only the device's accumulation and output rounding count.
MATMUL_TOL = {"float32": 1e-4, "float32_tf32": 5e-3, "float16": 5e-3, "bfloat16": 2e-2}


# --------------------------------------------------------------------------------------------
# small helpers (both sides)
# --------------------------------------------------------------------------------------------

def _now():
    return time.perf_counter()


def _clean(value):
    """JSON-safe copy: NaN/inf -> None, unknown objects -> str."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, (str, int, bool)) or value is None:
        return value
    if isinstance(value, dict):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    return str(value)


def _short(text, limit=400):
    text = str(text).strip()
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _exc_reason(exc):
    msg = str(exc).strip().splitlines()
    first = msg[0] if msg else ""
    # a CUDA/HIP error is often on the 2nd line after a generic first line; keep up to 3 lines
    text = " | ".join(line.strip() for line in msg[:3] if line.strip()) if msg else ""
    return _short("%s: %s" % (type(exc).__name__, text or first), 600)


def _tb_tail(limit=2500):
    text = traceback.format_exc()
    return text[-limit:]


def gpu_env():
    out = {}
    for name, value in os.environ.items():
        if name in ENV_NAMES or name.startswith(ENV_PREFIXES):
            out[name] = value
    return dict(sorted(out.items()))


def _node_info(path):
    info = {"path": path, "exists": os.path.exists(path)}
    if not info["exists"]:
        return info
    try:
        st = os.stat(path)
        import stat as _stat
        info["mode"] = _stat.filemode(st.st_mode)
        info["gid"] = st.st_gid
        try:
            import grp
            info["group"] = grp.getgrgid(st.st_gid).gr_name
        except (KeyError, ImportError):
            info["group"] = None
    except OSError as exc:
        info["error"] = str(exc)
    info["accessible"] = os.access(path, os.R_OK | os.W_OK)
    return info


def wsl_node_result(dxg, host):
    """The device-node check under WSL 2: ROCm reaches the GPU through the paravirtual /dev/dxg and the
    Windows driver (librocdxg README), never /dev/kfd, so /dev/dxg is what must exist and be usable."""
    details = {"wsl": True, "dxg": dxg, "user": host.get("user"), "groups": host.get("groups")}
    if not dxg.get("exists"):
        where = "inside a container started without --device=/dev/dxg" if host.get("container") else \
            "WSL 2 exposes no GPU (update WSL and the Windows AMD driver)"
        return {"status": "fail", "reason": "WSL: /dev/dxg does not exist: %s" % where, "details": details}
    if not dxg.get("accessible"):
        return {"status": "fail", "reason": "WSL: /dev/dxg not accessible for user %s (%s, group %s)" % (
            host.get("user"), dxg.get("mode"), dxg.get("group")), "details": details}
    return {"status": "pass", "reason": "WSL: /dev/dxg usable (no /dev/kfd under WSL 2; the Windows driver serves the GPU)",
            "details": details}


def host_info():
    """What the parent can see without torch: OS, user, device nodes, driver versions."""
    info = {
        "platform": platform.platform(),
        "kernel": platform.release(),
        "machine": platform.machine(),
        "python": sys.version.split()[0],
        "executable": sys.executable,
        "container": os.path.exists("/.dockerenv") or os.path.exists("/run/.containerenv"),
        # WSL 2: the GPU is the Windows driver's, reached through /dev/dxg (no /dev/kfd there)
        "wsl": "microsoft" in platform.release().lower() or any(
            os.path.exists(p) for p in ("/proc/sys/fs/binfmt_misc/WSLInterop", "/proc/sys/fs/binfmt_misc/WSLInterop-late")),
    }
    try:
        import pwd
        info["user"] = pwd.getpwuid(os.geteuid()).pw_name
    except (KeyError, ImportError, AttributeError):
        info["user"] = None
    try:
        import grp
        names = []
        for gid in [os.getgid()] + list(os.getgroups()):
            try:
                names.append(grp.getgrgid(gid).gr_name)
            except KeyError:
                names.append(str(gid))
        info["groups"] = sorted(set(names))
    except (ImportError, AttributeError, OSError):
        info["groups"] = []
    nodes = [_node_info("/dev/kfd")]
    try:
        renders = sorted(n for n in os.listdir("/dev/dri") if n.startswith("renderD"))
    except OSError:
        renders = []
    nodes.extend(_node_info("/dev/dri/" + n) for n in renders)
    nodes.append(_node_info("/dev/nvidiactl"))
    nodes.append(_node_info("/dev/dxg"))
    info["device_nodes"] = nodes
    for key, path in (("amdgpu_version", "/sys/module/amdgpu/version"),
                      ("nvidia_driver", "/proc/driver/nvidia/version")):
        try:
            with open(path, "r", errors="replace") as fh:
                text = fh.read().strip()
            info[key] = _short(text.splitlines()[0] if text else "", 200)
        except OSError:
            info[key] = None
    info["amdgpu_loaded"] = os.path.isdir("/sys/module/amdgpu")
    return info


# --------------------------------------------------------------------------------------------
# worker side: runs inside the child process, imports torch
# --------------------------------------------------------------------------------------------

class CheckFailed(Exception):
    """A check's own verdict: fail with a reason (and details)."""

    def __init__(self, reason, **details):
        Exception.__init__(self, reason)
        self.reason = reason
        self.details = details


class CheckSkipped(Exception):
    def __init__(self, reason, **details):
        Exception.__init__(self, reason)
        self.reason = reason
        self.details = details


_torch = None
tl = None  # triton.language, bound as a module global for the Triton kernel (see _triton_kernel)


def _fire_hook(check, device):
    spec = os.environ.get(HOOK_ENV, "")
    for item in spec.split(","):
        item = item.strip()
        if ":" not in item:
            continue
        action, target = item.split(":", 1)
        name, _, dev = target.partition("@")
        if name != check or (dev and str(device) != dev):
            continue
        sys.stderr.write("smoke test hook: %s in %s\n" % (action, check))
        sys.stderr.flush()
        if action == "hang":
            while True:
                time.sleep(3600)
        elif action == "segv":
            os.kill(os.getpid(), signal.SIGSEGV)
            time.sleep(10)
        elif action == "abort":
            os.abort()
        elif action == "exit":
            os._exit(3)
        elif action == "raise":
            raise RuntimeError("test hook: %s raised" % check)
        elif action == "noise":  # a library writing to stdout, from Python and from C
            print("noise from a library {not json")
            sys.stdout.flush()
            os.write(1, b"@@ raw noise on fd 1\n")


def _build(torch):
    if getattr(torch.version, "hip", None):
        return "rocm"
    if getattr(torch.version, "cuda", None):
        return "cuda"
    return "cpu"


def _dist_version(name):
    try:
        from importlib import metadata
    except ImportError:  # Python < 3.8
        return None
    try:
        return metadata.version(name)
    except Exception:
        return None


def _triton_requirement():
    """The triton distribution torch's metadata requires (without an extra), or None."""
    try:
        from importlib import metadata
        reqs = metadata.requires("torch") or []
    except Exception:
        return None
    import re
    for req in reqs:
        m = re.match(r"\s*((?:pytorch-)?triton(?:-rocm)?)\b", req, re.I)
        if m and "extra ==" not in req and "extra==" not in req:
            return req.split(";")[0].strip()
    return None


def _blas_name(torch):
    try:
        backend = str(torch.backends.cuda.preferred_blas_library())
    except Exception:
        return "unknown"
    key = backend.rsplit(".", 1)[-1].lower()
    if _build(torch) == "rocm":
        return {"cublaslt": "hipblaslt", "cublas": "hipblas"}.get(key, key)
    return key


def _prefetch_dynamo():
    # a failure shows up again, and is reported, in the compile check
    for name in ("torch._dynamo", "torch._inductor.compile_fx"):
        try:
            __import__(name)
        except BaseException:
            return


def op_import(prefetch=False):
    global _torch
    t0 = _now()
    import torch  # noqa: the point of this check
    _torch = torch
    took = _now() - t0
    if prefetch:
        # torch._dynamo takes seconds to import: load it while the GPU checks run (compile needs it)
        threading.Thread(target=_prefetch_dynamo, daemon=True).start()
    build = _build(torch)
    info = {
        "version": torch.__version__,
        "build": build,
        "hip": getattr(torch.version, "hip", None),
        "cuda": getattr(torch.version, "cuda", None),
        "git_version": getattr(torch.version, "git_version", None),
        "debug": getattr(torch.version, "debug", None),
        "file": getattr(torch, "__file__", None),
        "import_seconds": round(took, 3),
        "triton_required": _triton_requirement(),
        "triton_distributions": {},
    }
    for dist in ("triton", "pytorch-triton-rocm", "triton-rocm", "pytorch-triton"):
        v = _dist_version(dist)
        if v:
            info["triton_distributions"][dist] = v
    for key, getter in (("cudnn", lambda: torch.backends.cudnn.version()),
                        ("nccl", lambda: ".".join(str(x) for x in torch.cuda.nccl.version()))):
        try:
            info[key] = getter() if build != "cpu" else None
        except Exception:
            info[key] = None
    if build == "rocm":
        info["miopen"] = info.pop("cudnn")  # torch reports MIOpen through the cuDNN API on ROCm
        info["rccl"] = info.pop("nccl")
    return {"torch": info}


def _visible_hiding(build):
    hiding = {}
    names = ("CUDA_VISIBLE_DEVICES",) if build == "cuda" else VISIBLE_DEVICE_VARS  # HIP honours all four
    for name in names:
        value = os.environ.get(name)
        if value is not None and value.strip() in ("", "-1"):
            hiding[name] = value
    return hiding


def op_device(cpu_fallback):
    torch = _torch
    build = _build(torch)
    details = {"build": build}
    warnings_seen = []
    import warnings
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        available = bool(torch.cuda.is_available()) if build != "cpu" else False
        count = int(torch.cuda.device_count()) if available else 0
        init_error = None
        if build != "cpu" and not count:
            try:
                torch.cuda.init()
            except Exception as exc:
                init_error = _exc_reason(exc)
    for w in caught:
        warnings_seen.append(_short(w.message, 300))
    details["device_count"] = count
    details["init_error"] = init_error
    devices = []
    if count:
        try:
            details["arch_list"] = list(torch.cuda.get_arch_list())
        except Exception as exc:
            details["arch_list"] = []
            details["arch_list_error"] = _exc_reason(exc)
        if build == "cuda":
            try:
                details["driver_api_version"] = int(torch._C._cuda_getDriverVersion())
            except Exception:
                pass
        for i in range(count):
            props = torch.cuda.get_device_properties(i)
            dev = {
                "index": i,
                "name": getattr(props, "name", None),
                "total_memory_bytes": int(getattr(props, "total_memory", 0) or 0) or None,
                "multi_processor_count": getattr(props, "multi_processor_count", None),
                "capability": "%s.%s" % (props.major, props.minor),
            }
            gcn = getattr(props, "gcnArchName", None)
            if build == "rocm" and gcn:
                dev["gcn_arch_name"] = gcn
                dev["arch"] = gcn.split(":")[0]
            elif build == "cuda":
                dev["arch"] = "sm_%d%d" % (props.major, props.minor)
            for attr in ("pci_bus_id", "pci_device_id", "pci_domain_id", "L2_cache_size"):
                val = getattr(props, attr, None)
                if isinstance(val, int):
                    dev[attr.lower()] = val
            devices.append(dev)
    details["devices"] = devices
    if warnings_seen:
        details["warnings"] = warnings_seen
    if count:
        return details
    if build == "cpu":
        reason = "no GPU: torch %s is a CPU-only build (neither ROCm/HIP nor CUDA)" % torch.__version__
    else:
        what = "ROCm %s" % torch.version.hip if build == "rocm" else "CUDA %s" % torch.version.cuda
        reason = "no GPU: torch %s (%s build) sees no device" % (torch.__version__, what)
        hiding = _visible_hiding(build)
        if hiding:
            details["hiding_env"] = hiding
            reason += "; %s hides every GPU" % ", ".join("%s=%r" % kv for kv in sorted(hiding.items()))
        if init_error:
            reason += " (%s)" % init_error
    details["kfd_exists"] = os.path.exists("/dev/kfd")
    details["nvidia_exists"] = os.path.exists("/dev/nvidiactl")
    if cpu_fallback:
        details["cpu_fallback"] = True
    raise CheckFailed(reason, **details)


def _dev(device):
    return "cpu" if device == "cpu" else "cuda:%d" % device


def _sync(device):
    if device != "cpu":
        _torch.cuda.synchronize(device)


def _rel_err(out, ref):
    torch = _torch
    out = out.detach().to("cpu", torch.float64)
    ref = ref.detach().to("cpu", torch.float64)
    if out.shape != ref.shape:
        return float("inf")
    if not bool(torch.isfinite(out).all()):
        return float("inf")
    denom = float(torch.linalg.vector_norm(ref))
    num = float(torch.linalg.vector_norm(out - ref))
    return num / denom if denom else num


def _gen(seed):
    g = _torch.Generator()
    g.manual_seed(seed)
    return g


def check_alloc(device):
    torch = _torch
    dev = _dev(device)
    n = 16 << 20  # 16 Mi float32 = 64 MiB
    host = torch.randn(n, generator=_gen(1))
    d = host.to(dev)
    back = d.to("cpu")
    _sync(device)
    if not torch.equal(host, back):
        bad = int((host != back).sum())
        raise CheckFailed("host -> device -> host round trip changed %d of %d values" % (bad, n))
    big = torch.empty(n, device=dev)
    big.fill_(3.0)
    total = float(big.sum())
    if total != 3.0 * n:
        raise CheckFailed("a fresh device buffer summed to %r, expected %r" % (total, 3.0 * n))
    return {"bytes": n * 4, "_reason": "%d MiB round trip exact" % (n * 4 >> 20)}


def check_elementwise(device):
    torch = _torch
    dev = _dev(device)
    g = _gen(2)
    a = torch.randn(1 << 20, generator=g)
    b = torch.rand(1 << 20, generator=g) + 0.5
    ops = {
        "add_mul": lambda x, y: (x + y) * 2.0 - y,
        "div": lambda x, y: x / y,
        "exp": lambda x, y: torch.exp(x / 4),
        "sin": lambda x, y: torch.sin(x),
        "sqrt": lambda x, y: torch.sqrt(y),
        "where": lambda x, y: torch.where(x > 0, x, y),
        "sum": lambda x, y: y.sum().reshape(1),  # positive terms: a well-conditioned sum
        "cumsum": lambda x, y: torch.cumsum(y[:4096], 0),
    }
    da, db = a.to(dev), b.to(dev)
    errs = {}
    worst = 0.0
    for name, fn in ops.items():
        out = fn(da, db)
        ref = fn(a.double(), b.double())
        err = _rel_err(out, ref)
        errs[name] = err
        worst = max(worst, err)
    if worst > 1e-5:
        bad = sorted((k for k, v in errs.items() if v > 1e-5))
        raise CheckFailed("elementwise results differ from the CPU: %s (relative error %.2g)" % (", ".join(bad), worst),
                          rel_err=errs)
    return {"rel_err": errs, "_reason": "%d ops match the CPU (worst relative error %.1e)" % (len(errs), worst)}


def _tf32_allowed():
    matmul = _torch.backends.cuda.matmul
    try:
        precision = getattr(matmul, "fp32_precision", None)  # torch >= 2.9
        if isinstance(precision, str) and precision.lower() == "tf32":
            return True
    except Exception:
        pass
    try:
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return bool(matmul.allow_tf32)
    except Exception:
        return False


def _tol(dtype_name):
    if dtype_name == "float32" and _tf32_allowed():
        return MATMUL_TOL["float32_tf32"]
    return MATMUL_TOL[dtype_name]


def check_matmul(device):
    torch = _torch
    dev = _dev(device)
    g = _gen(3)
    m, k, n = 384, 512, 256
    results = {}
    failures = []
    for name in ("float32", "float16", "bfloat16"):
        dtype = getattr(torch, name)
        a = torch.randn(m, k, generator=g).to(dtype)
        b = torch.randn(k, n, generator=g).to(dtype)
        ref = a.double() @ b.double()
        out = torch.full((m, n), float("nan"), dtype=dtype, device=dev)  # poisoned: every element must be written
        try:
            torch.matmul(a.to(dev), b.to(dev), out=out)
            _sync(device)
        except Exception as exc:
            failures.append("%s: %s" % (name, _exc_reason(exc)))
            results[name] = {"error": _exc_reason(exc)}
            continue
        err = _rel_err(out, ref)
        tol = _tol(name)
        results[name] = {"rel_err": err, "tol": tol}
        if not err <= tol:
            failures.append("%s relative error %.3g > %.0e" % (name, err, tol))
    if failures:
        raise CheckFailed("matmul: " + "; ".join(failures), dtypes=results, shape=[m, k, n])
    text = ", ".join("%s %.1e" % (k.replace("float", "fp").replace("bfp", "bf"), v["rel_err"]) for k, v in results.items())
    return {"dtypes": results, "shape": [m, k, n], "_reason": "relative error " + text}


def check_linear(device):
    torch = _torch
    dev = _dev(device)
    g = _gen(4)
    batch, fin, fout = 64, 512, 256
    blas = _blas_name(torch) if device != "cpu" else "cpu"
    results = {}
    failures = []
    import warnings
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for name in ("float32", "float16", "bfloat16"):
            dtype = getattr(torch, name)
            x = torch.randn(batch, fin, generator=g).to(dtype)
            w = (torch.randn(fout, fin, generator=g) / fin ** 0.5).to(dtype)
            bias = torch.randn(fout, generator=g).to(dtype)
            grad = torch.randn(batch, fout, generator=g).to(dtype)
            # float64 reference on the CPU from the same rounded values
            x64, w64, b64, g64 = (t.double() for t in (x, w, bias, grad))
            y64 = x64 @ w64.t() + b64
            ref = {"y": y64, "dx": g64 @ w64, "dw": g64.t() @ x64, "db": g64.sum(0)}
            try:
                lin = torch.nn.Linear(fin, fout, device=dev, dtype=dtype)
                with torch.no_grad():
                    lin.weight.copy_(w.to(dev))
                    lin.bias.copy_(bias.to(dev))
                xd = x.to(dev).requires_grad_(True)
                y = lin(xd)
                y.backward(grad.to(dev))
                _sync(device)
                got = {"y": y, "dx": xd.grad, "dw": lin.weight.grad, "db": lin.bias.grad}
            except Exception as exc:
                failures.append("%s: %s" % (name, _exc_reason(exc)))
                results[name] = {"error": _exc_reason(exc)}
                continue
            tol = _tol(name) * 2
            errs = {key: _rel_err(got[key], ref[key]) for key in ref}
            results[name] = {"rel_err": errs, "tol": tol}
            bad = [key for key, e in errs.items() if not e <= tol]
            if bad:
                failures.append("%s %s relative error %.3g > %.0e" % (name, "/".join(bad), max(errs[b] for b in bad), tol))
    details = {"blas": blas, "dtypes": results}
    warns = sorted(set(_short(w.message, 300) for w in caught))
    if warns:
        details["warnings"] = warns
    for var in ("TORCH_BLAS_PREFER_HIPBLASLT", "TORCH_BLAS_PREFER_CUBLASLT"):
        if var in os.environ:
            details[var] = os.environ[var]
    if failures:
        raise CheckFailed("nn.Linear (%s): %s" % (blas, "; ".join(failures)), **details)
    details["_reason"] = "forward + backward fp32/fp16/bf16 match (BLAS: %s)" % blas
    return details


def _triton_kernel():
    """Build the Triton vector-add kernel (``tl`` must be a module global for Triton's parser)."""
    global tl
    import triton
    import triton.language
    tl = triton.language

    @triton.jit
    def _smoke_add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
        pid = tl.program_id(0)
        offs = pid * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        x = tl.load(x_ptr + offs, mask=mask)
        y = tl.load(y_ptr + offs, mask=mask)
        tl.store(out_ptr + offs, x * 2.0 + y, mask=mask)

    return triton, _smoke_add


def _triton_origin():
    import importlib.util
    spec = importlib.util.find_spec("triton")
    if spec is None:
        return None, {}
    info = {"origin": spec.origin, "locations": list(spec.submodule_search_locations or [])}
    try:
        from importlib import metadata
        lister = getattr(metadata, "packages_distributions", None)  # Python 3.10+
        owners = lister().get("triton") if lister else None
        if owners:
            info["distributions"] = sorted(set(owners))
    except Exception:
        pass
    return spec, info


def check_triton(device):
    torch = _torch
    spec, info = _triton_origin()
    required = _triton_requirement()
    if spec is None:
        if required:
            raise CheckFailed("triton is not installed, but torch requires %s" % required, required=required)
        raise CheckSkipped("triton is not installed and this torch does not require it")
    if spec.origin is None:
        where = ", ".join(info.get("locations") or []) or "?"
        raise CheckFailed("module 'triton' has no attribute 'language': a 'triton' directory without "
                          "__init__.py (%s) shadows the triton package" % where, shadowed=True, **info)
    import triton as _tr
    info["version"] = getattr(_tr, "__version__", None)
    info["file"] = getattr(_tr, "__file__", None)
    if not hasattr(_tr, "language"):
        try:
            __import__("triton.language")
        except Exception as exc:
            raise CheckFailed("module 'triton' has no attribute 'language' (%s)" % _exc_reason(exc), **info)
    if device == "cpu":
        raise CheckSkipped("Triton kernels need a GPU (the triton package imports fine)", **info)
    triton, kernel = _triton_kernel()
    dev = _dev(device)
    n = 98_765  # not a multiple of the block: the mask matters
    g = _gen(5)
    x = torch.randn(n, generator=g)
    y = torch.randn(n, generator=g)
    xd, yd = x.to(dev), y.to(dev)
    out = torch.full_like(xd, float("nan"))
    t0 = _now()
    with torch.cuda.device(device):
        kernel[(triton.cdiv(n, 1024),)](xd, yd, out, n, BLOCK=1024)
    _sync(device)
    info["compile_and_run_seconds"] = round(_now() - t0, 3)
    err = _rel_err(out, x.double() * 2 + y.double())
    info["rel_err"] = err
    if not err <= 1e-6:
        raise CheckFailed("the Triton kernel computed wrong values (relative error %.3g)" % err, **info)
    info["_reason"] = "triton %s kernel compiled and ran (%.1fs)" % (info.get("version"), info["compile_and_run_seconds"])
    return info


def _compiled_result(torch, fn, x, y, device, **kwargs):
    torch._dynamo.reset()
    out = torch.compile(fn, fullgraph=True, **kwargs)(x, y)
    _sync(device)
    return out


def check_compile(device):
    """torch.compile with inductor (which runs dynamo first); only when it fails, dynamo alone with
    the eager backend tells which of the two broke -- a pass through inductor proves dynamo too."""
    torch = _torch
    dev = _dev(device)
    stage = "dynamo"
    details = {}
    try:
        t0 = _now()
        import torch._dynamo  # importing dynamo touches triton.language when triton is importable
        try:
            import torch._inductor.config as inductor_config
            inductor_config.compile_threads = 1  # one tiny kernel: no compile worker pool
            # one Triton config for the pointwise kernel, not two benchmarked against each other: one
            # compile fewer on a cold cache (about 0.7 s on an H100), the same layers proven
            inductor_config.triton.autotune_pointwise = False
        except Exception:
            pass
        details["dynamo_seconds"] = round(_now() - t0, 3)  # importing dynamo: most of its cost

        def fn(x, y):
            return torch.sin(x) * y + torch.cos(y) * 2.0

        g = _gen(6)
        x = torch.randn(4096, generator=g).to(dev)
        y = torch.randn(4096, generator=g).to(dev)
        ref = fn(x.double(), y.double())
        t1 = _now()
        try:
            out = _compiled_result(torch, fn, x, y, device)
            err = _rel_err(out, ref)
            failure = None if err <= 1e-5 else "compiled result differs (relative error %.3g)" % err
        except Exception as exc:
            err, failure = None, _exc_reason(exc)
            details["traceback"] = _tb_tail()
        details["inductor_seconds"] = round(_now() - t1, 3)
        if failure is None:
            details["rel_err"] = err
            details["_reason"] = "dynamo + inductor compiled and ran (import %.1fs, compile %.1fs)" % (
                details["dynamo_seconds"], details["inductor_seconds"])
            return details
        # which layer: dynamo alone, with the eager backend
        try:
            out = _compiled_result(torch, fn, x, y, device, backend="eager")
            eager_err = _rel_err(out, ref)
        except Exception as exc:
            details["traceback"] = _tb_tail()
            raise CheckFailed("dynamo: %s" % _exc_reason(exc), stage="dynamo", **details)
        if not eager_err <= 1e-5:
            raise CheckFailed("dynamo: compiled (eager backend) result differs (relative error %.3g)" % eager_err,
                              stage="dynamo")
        stage = "inductor"
        raise CheckFailed("inductor: %s" % failure, stage=stage, **details)
    except (CheckFailed, CheckSkipped):
        raise
    except Exception as exc:
        details["stage"] = stage
        raise CheckFailed("%s: %s" % (stage, _exc_reason(exc)), traceback=_tb_tail(), **details)
    finally:
        try:
            torch._dynamo.reset()
        except Exception:
            pass


def _timed(fn, device, reps):
    """Median seconds of ``reps`` calls of fn (after it has been warmed up)."""
    torch = _torch
    times = []
    if device == "cpu":
        for _ in range(reps):
            t0 = _now()
            fn()
            times.append(_now() - t0)
    else:
        with torch.cuda.device(device):
            for _ in range(reps):
                start = torch.cuda.Event(enable_timing=True)
                end = torch.cuda.Event(enable_timing=True)
                start.record()
                fn()
                end.record()
                end.synchronize()
                times.append(start.elapsed_time(end) / 1000.0)
    times.sort()
    return times[len(times) // 2]


def _matmul_op(a, b, c):
    return lambda: _torch.matmul(a, b, out=c)


def check_throughput(device):
    torch = _torch
    dev = _dev(device)
    reps = 3 if device == "cpu" else 10
    figures = {}
    # on a GPU the 16-bit matrix units; the CPU fallback (tests only) times float32, small
    for name in (("float32",) if device == "cpu" else ("bfloat16", "float16")):
        dtype = getattr(torch, name)
        n = 256 if device == "cpu" else 1024
        while True:
            mats = [torch.randn(n, n, device=dev, dtype=dtype) for _ in range(2)]
            mats.append(torch.empty(n, n, device=dev, dtype=dtype))
            mm = _matmul_op(*mats)
            mm()  # warm-up: handles, kernel selection
            _sync(device)
            t = _timed(mm, device, 1)
            if t < 0.01 and n < 8192:
                n *= 2
                continue
            break
        t = _timed(mm, device, reps)
        figures[name] = {"n": n, "seconds": t, "tflops": 2.0 * n ** 3 / t / 1e12}
        mm = mats = None
    text = ", ".join("%s %.1f TFLOP/s (n=%d)" % (k, v["tflops"], v["n"]) for k, v in figures.items())
    return {"matmul": figures, "reps": reps, "_reason": text}


def _copy_op(dst, src):
    return lambda: dst.copy_(src)


def check_bandwidth(device):
    torch = _torch
    dev = _dev(device)
    total = None
    if device != "cpu":
        total = int(torch.cuda.get_device_properties(device).total_memory)
    limit = 2 << 30
    if total:
        limit = min(limit, total // 8)
    nbytes = 64 << 20
    reps = 3 if device == "cpu" else 10
    while True:
        src = torch.randint(0, 255, (nbytes,), dtype=torch.uint8, device=dev)
        dst = torch.empty_like(src)
        copy = _copy_op(dst, src)
        copy()
        _sync(device)
        t = _timed(copy, device, 1)
        if t < 0.002 and nbytes * 2 <= limit:
            nbytes *= 2
            src = dst = copy = None
            continue
        break
    t = _timed(copy, device, reps)
    if not bool(torch.equal(dst, src)):
        raise CheckFailed("a device-to-device copy changed the data")
    gbs = 2.0 * nbytes / t / 1e9
    return {"bytes": nbytes, "seconds": t, "gbs": gbs, "reps": reps, "counting": "bytes read + bytes written",
            "_reason": "%.0f GB/s copying %d MiB (read + write)" % (gbs, nbytes >> 20)}


def check_multi_gpu(devices):
    torch = _torch
    if len(devices) < 2:
        raise CheckSkipped("only one device")
    pairs = []
    for i in devices:
        j = devices[(devices.index(i) + 1) % len(devices)]
        x = torch.arange(1 << 20, dtype=torch.float32, device="cuda:%d" % i)
        y = x.to("cuda:%d" % j)
        torch.cuda.synchronize(j)
        ok = bool(torch.equal(y.cpu(), x.cpu()))
        try:
            peer = bool(torch.cuda.can_device_access_peer(i, j))
        except Exception:
            peer = None
        pairs.append({"from": i, "to": j, "ok": ok, "peer_access": peer})
        if not ok:
            raise CheckFailed("a copy from device %d to device %d changed the data" % (i, j), pairs=pairs)
    return {"pairs": pairs, "_reason": "%d device-to-device copies exact" % len(pairs)}


WORKER_CHECKS = {
    "alloc": check_alloc,
    "elementwise": check_elementwise,
    "matmul": check_matmul,
    "linear": check_linear,
    "linear_alt_blas": check_linear,
    "triton": check_triton,
    "compile": check_compile,
    "throughput": check_throughput,
    "bandwidth": check_bandwidth,
}


def _run_request(req):
    op = req.get("op")
    check = req.get("check") or op
    device = req.get("device")
    _fire_hook(check, device)
    t0 = _now()
    import warnings
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            if op == "import":
                details = op_import(bool(req.get("prefetch")))
            elif _torch is None:
                raise CheckFailed("torch is not imported in this worker")
            elif op == "device":
                details = op_device(bool(req.get("cpu_fallback")))
            elif op == "multi_gpu":
                details = check_multi_gpu(list(req.get("devices") or []))
            elif op == "check":
                details = WORKER_CHECKS[check](device)
            else:
                raise CheckFailed("unknown request %r" % op)
        status = "pass"
        reason = details.pop("_reason", "") if isinstance(details, dict) else ""
    except CheckFailed as exc:
        status, reason, details = "fail", exc.reason, exc.details
        caught = []
    except CheckSkipped as exc:
        status, reason, details = "skip", exc.reason, exc.details
        caught = []
    except Exception as exc:  # an error raised by torch / triton: a failed check with its text
        status, reason, details = "fail", _exc_reason(exc), {"traceback": _tb_tail()}
        caught = []
    except BaseException as exc:  # SystemExit from a library, KeyboardInterrupt
        status, reason, details = "fail", _exc_reason(exc), {}
        caught = []
    seconds = _now() - t0
    if check in BLAS_CHECKS and isinstance(details, dict) and "blas" not in details:
        details["blas"] = "cpu" if device == "cpu" else _blas_name(_torch) if _torch is not None else "unknown"
    warns = sorted(set(_short(w.message, 300) for w in caught))
    if warns and isinstance(details, dict) and "warnings" not in details:
        details["warnings"] = warns
    return {"status": status, "reason": reason, "seconds": seconds, "details": details or {}}


def worker_main():
    # the protocol travels on a private copy of stdout; anything a library prints to stdout
    # (C code included) goes to stderr instead, so it can never corrupt the protocol
    proto = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        try:
            req = json.loads(line)
        except ValueError:
            continue
        res = _run_request(req)
        proto.write(PROTO_PREFIX + json.dumps(_clean(res)) + "\n")
        proto.flush()
    return 0


# --------------------------------------------------------------------------------------------
# parent side: no torch here
# --------------------------------------------------------------------------------------------

def _signal_name(rc):
    try:
        sig = signal.Signals(-rc)
        desc = {signal.SIGSEGV: "segmentation fault", signal.SIGABRT: "aborted",
                signal.SIGKILL: "killed", signal.SIGBUS: "bus error", signal.SIGFPE: "floating-point exception",
                signal.SIGILL: "illegal instruction"}.get(sig)
        return sig.name, desc
    except (ValueError, AttributeError):
        return "signal %d" % -rc, None


class Worker(object):
    """One child process running checks; a reader thread for each of its pipes."""

    def __init__(self, env, label):
        self.label = label
        self.proc = subprocess.Popen(
            [sys.executable, os.path.abspath(__file__), "--worker"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            env=env, start_new_session=True, close_fds=True,
        )
        self.lines = queue.Queue()
        self.err = []
        self.err_lock = threading.Lock()
        self.err_size = 0
        threading.Thread(target=self._read_out, daemon=True).start()
        threading.Thread(target=self._read_err, daemon=True).start()

    def _read_out(self):
        for raw in iter(self.proc.stdout.readline, b""):
            line = raw.decode("utf-8", "replace")
            if line.startswith(PROTO_PREFIX):
                self.lines.put(line[len(PROTO_PREFIX):])
        self.lines.put(None)

    def _read_err(self):
        for raw in iter(self.proc.stderr.readline, b""):
            with self.err_lock:
                self.err.append(raw.decode("utf-8", "replace"))
                self.err_size += 1
                if len(self.err) > 400:
                    del self.err[:200]

    def err_mark(self):
        with self.err_lock:
            return self.err_size

    def err_since(self, mark, limit=2000):
        time.sleep(0.05)  # let the reader drain what the dying process wrote
        with self.err_lock:
            n = self.err_size - mark
            lines = self.err[-n:] if n > 0 else []
        text = "".join(lines)
        return text[-limit:]

    def send(self, req):
        """Hand the worker a request without waiting for the answer (see receive)."""
        self._mark = self.err_mark()
        self._t0 = _now()
        try:
            self.proc.stdin.write((json.dumps(req) + "\n").encode())
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            pass  # the worker is gone: receive() reports it

    def request(self, req, timeout):
        """(result dict, None) or (None, failure dict) when the worker hung or died."""
        self.send(req)
        return self.receive(timeout)

    def receive(self, timeout):
        mark, t0 = self._mark, self._t0
        try:
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            self.kill()
            return None, {"status": "fail", "seconds": _now() - t0,
                          "reason": "timed out after %gs: no answer (a hung GPU or library); the check's "
                                    "process was killed" % timeout,
                          "details": {"timed_out": True, "timeout": timeout},
                          "stderr_tail": self.err_since(mark)}
        if line is None:
            rc = self.proc.wait()
            if rc is not None and rc < 0:
                name, desc = _signal_name(rc)
                reason = "the check's process was killed by %s%s" % (name, " (%s)" % desc if desc else "")
                details = {"signal": name}
            else:
                reason = "the check's process exited with status %s without answering" % rc
                details = {"exit_status": rc}
            return None, {"status": "fail", "seconds": _now() - t0, "reason": reason, "details": details,
                          "stderr_tail": self.err_since(mark)}
        try:
            res = json.loads(line)
        except ValueError:
            return None, {"status": "fail", "seconds": _now() - t0, "reason": "garbled answer from the check's process",
                          "details": {}, "stderr_tail": self.err_since(mark)}
        if res.get("status") == "fail":
            tail = self.err_since(mark)
            if tail:
                res["stderr_tail"] = tail
        return res, None

    def kill(self):
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError, OSError):
            try:
                self.proc.kill()
            except OSError:
                pass
        try:
            self.proc.wait(timeout=10)
        except Exception:
            pass

    def close(self):
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=10)
        except Exception:
            self.kill()
            return
        # children of the worker (compile helpers) must not outlive it
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except OSError:
            pass


class Lane(object):
    """Requests run one at a time in one worker process; a fresh worker (and torch import) after a
    hang or a crash.  The main lane runs the import, the device query and most checks; side lanes
    run the slow checks that need no quiet GPU (Triton, torch.compile: mostly CPU work) and the
    second BLAS path (a different environment before torch starts) at the same time, each in its
    own process, so their torch imports and compilations overlap with the main lane's checks."""

    def __init__(self, smoke, label, env=None, prefetch=False):
        self.smoke = smoke
        self.label = label
        self.env = env
        self.prefetch = prefetch
        self.worker = None
        self.importing = False

    def start(self):
        """Start the worker and its torch import now; the answer is taken by the next ask()."""
        if self.worker is None:
            self.worker = Worker(self.env or self.smoke.worker_env, self.label)
            self.worker.send({"op": "import", "prefetch": self.prefetch})
            self.importing = True

    def take_import(self):
        """(result, failure) of the import started by start()."""
        self.importing = False
        return self.worker.receive(self.smoke.timeout_for("import"))

    def ask(self, name, device, req):
        """Run one request in this lane's worker (started, and torch imported, first if needed)."""
        self.start()
        if self.importing:
            res, failure = self.take_import()
            if failure or res.get("status") != "pass":
                bad = failure or res
                self.drop()
                return {"status": "fail", "seconds": bad.get("seconds", 0.0),
                        "reason": "a fresh worker could not import torch: %s" % bad.get("reason"),
                        "details": bad.get("details") or {}, "stderr_tail": bad.get("stderr_tail")}
        res, failure = self.worker.request(req, self.smoke.timeout_for(name))
        if failure:
            self.drop()
            return failure
        return res

    def drop(self):
        if self.worker is not None:
            self.worker.kill()
            self.worker = None
        self.importing = False


class Smoke(object):
    # checks run in side lanes, at the same time as the main lane's (mostly CPU-bound compilers)
    SIDE_CHECKS = ("triton", "compile")
    # checks run last, on a GPU nothing else uses, so that their figures are not shared
    QUIET_CHECKS = ("throughput", "bandwidth")

    def __init__(self, opts):
        self.opts = opts
        self.checks = []
        self.torch = None
        self.devices = []
        self.host = host_info()
        self.env = gpu_env()
        self.build = None
        self.worker_env = dict(os.environ)
        self.progress = opts.progress
        self.lock = threading.Lock()
        self.main = Lane(self, "main")
        self.side = {}  # name -> Lane
        self.alt = None  # the lane of the other BLAS path
        self.alloc_done = {}  # device -> threading.Event, set once its alloc check has a result

    # -- bookkeeping --------------------------------------------------------------------------
    def timeout_for(self, check):
        if check in self.opts.check_timeout:
            return self.opts.check_timeout[check]
        return self.opts.timeout * TIMEOUT_FACTOR.get(check, 1.0)

    def add(self, name, device, res):
        entry = {"name": name, "device": device, "status": res.get("status", "fail"),
                 "reason": res.get("reason") or "", "seconds": round(float(res.get("seconds") or 0.0), 3),
                 "details": res.get("details") or {}}
        if res.get("stderr_tail"):
            entry["stderr_tail"] = res["stderr_tail"]
        with self.lock:
            self.checks.append(entry)
            if self.progress:
                where = "" if device is None else "[%s]" % device
                sys.stderr.write("smoke: %-16s %-4s %6.2fs  %s\n" % (name + where, entry["status"], entry["seconds"],
                                                                    _short(entry["reason"], 160)))
                sys.stderr.flush()
        return entry

    def skip(self, name, device, reason):
        return self.add(name, device, {"status": "skip", "reason": reason, "seconds": 0.0})

    def wanted(self, name):
        return not self.opts.only or name in self.opts.only

    def failed(self, name, device):
        with self.lock:
            return any(c["name"] == name and c["device"] == device and c["status"] == "fail" for c in self.checks)

    # -- workers ------------------------------------------------------------------------------
    def ask(self, name, device, req):
        """Run one request in the main lane."""
        return self.main.ask(name, device, req)

    def lanes(self):
        return [self.main, self.alt] + list(self.side.values())

    def drop_workers(self):
        for lane in self.lanes():
            if lane is not None:
                lane.drop()

    # -- the run ------------------------------------------------------------------------------
    def run(self):
        t_start = _now()
        started = time.strftime("%Y-%m-%dT%H:%M:%S%z")
        try:
            self._run_all()
        except KeyboardInterrupt:
            self.interrupted = True
        finally:
            self.drop_workers()
        order = {name: i for i, name in enumerate(CHECK_NAMES)}
        self.checks.sort(key=lambda c: (order.get(c["name"], 99), -1 if c["device"] is None else
                                        (c["device"] if isinstance(c["device"], int) else 0)))
        summary = {s: sum(1 for c in self.checks if c["status"] == s) for s in ("pass", "fail", "skip")}
        summary["ok"] = summary["fail"] == 0 and not getattr(self, "interrupted", False)
        figures = []
        for c in self.checks:
            if c["status"] != "pass":
                continue
            if c["name"] == "throughput":
                for dtype, f in sorted((c["details"].get("matmul") or {}).items()):
                    figures.append({"name": "matmul", "device": c["device"], "dtype": dtype,
                                    "value": f.get("tflops"), "unit": "TFLOP/s", "size": f.get("n")})
            elif c["name"] == "bandwidth":
                figures.append({"name": "bandwidth", "device": c["device"], "value": c["details"].get("gbs"),
                                "unit": "GB/s", "size": c["details"].get("bytes")})
        doc = {
            "schema": SCHEMA,
            "script_version": SCRIPT_VERSION,
            "started": started,
            "duration_s": round(_now() - t_start, 3),
            "options": {"timeout": self.opts.timeout, "only": sorted(self.opts.only) if self.opts.only else None,
                        "cpu_fallback": self.opts.cpu_fallback},
            "host": self.host,
            "env": self.env,
            "torch": self.torch,
            "devices": self.devices,
            "checks": self.checks,
            "figures": figures,
            "summary": summary,
        }
        if getattr(self, "interrupted", False):
            doc["interrupted"] = True
        return _clean(doc)

    def _start_alt(self, build):
        var, value = self.alt_blas_setting(build)
        env = dict(self.worker_env)
        env[var] = value
        self.alt = Lane(self, "alt-blas", env=env)
        self.alt.var, self.alt.value = var, value
        self.alt.start()

    def _run_all(self):
        opts = self.opts
        # 1. torch is imported in every lane that will be needed: the main one, one per slow
        #    compiler check, and the second BLAS path's (its variable depends on the build).
        #    torch.compile's chain (torch, then dynamo, then inductor imported, then a compile) is
        #    the longest, so its worker starts with the main one; the others once the main import
        #    is done (four imports at once slow each other down)
        self.main.start()
        for name in self.SIDE_CHECKS:
            if self.wanted(name):
                self.side[name] = Lane(self, name, prefetch=(name == "compile"))
        if "compile" in self.side:
            self.side["compile"].start()
        res, failure = self.main.take_import()
        if failure:
            self.main.drop()
            res = failure
        if res.get("status") == "pass":
            self.torch = (res.get("details") or {}).get("torch") or {}
            res["reason"] = "torch %s (%s build)" % (self.torch.get("version"), self.torch.get("build"))
        entry = self.add("import", None, res)
        if entry["status"] != "pass":
            reason = "torch did not import"
            for name in CHECK_NAMES[1:]:
                if self.wanted(name) or name in ("kfd", "device"):
                    self.skip(name, None, reason)
            return
        self.build = self.torch.get("build")
        for lane in self.side.values():
            lane.start()
        if self.wanted("linear_alt_blas"):
            self._start_alt(self.build)

        # 2. kfd (ROCm only; no torch needed)
        self.check_kfd()

        # 3. device
        res = self.ask("device", None, {"op": "device", "cpu_fallback": opts.cpu_fallback})
        details = res.get("details") or {}
        self.devices = details.get("devices") or []
        if res.get("status") == "pass":
            res["reason"] = "%d device(s): %s" % (len(self.devices), "; ".join(
                "%s (%s)" % (d.get("name"), d.get("arch")) for d in self.devices))
        entry = self.add("device", None, res)
        if self.torch is not None:
            self.torch["arch_list"] = details.get("arch_list") or []
            if details.get("driver_api_version"):
                self.torch["driver_api_version"] = details["driver_api_version"]
        if entry["status"] == "pass":
            targets = [d["index"] for d in self.devices]
        elif opts.cpu_fallback and details.get("device_count") == 0:
            targets = ["cpu"]
        else:
            targets = []
            reason = "no GPU visible to torch" if details.get("device_count") == 0 else "the device check failed"
            for name in DEVICE_CHECKS:
                if self.wanted(name):
                    self.skip(name, None, reason)
            if self.wanted("multi_gpu"):
                self.skip("multi_gpu", None, reason)
            return
        for dev in targets:
            self.alloc_done[dev] = threading.Event()

        # 4. the side lanes and the second BLAS path run beside the main lane's checks
        threads = []
        for name, lane in sorted(self.side.items()):
            threads.append(threading.Thread(target=self.run_side, args=(lane, name, targets), daemon=True))
        if self.alt is not None:
            threads.append(threading.Thread(target=self.run_alt_blas, args=(targets,), daemon=True))
        for t in threads:
            t.start()
        try:
            stopped = {}
            for dev in targets:
                stopped[dev] = self.run_device(dev)
            for t in threads:
                while t.is_alive():
                    t.join(0.2)
            # 5. figures on a GPU nothing else uses now
            for dev in targets:
                self.run_quiet(dev, stopped.get(dev))
        finally:
            for ev in self.alloc_done.values():
                ev.set()

        # 6. multi-GPU
        if self.wanted("multi_gpu"):
            if targets == ["cpu"]:
                self.skip("multi_gpu", None, "no GPU (CPU fallback)")
            elif len(targets) < 2:
                self.skip("multi_gpu", None, "only one device")
            else:
                self.add("multi_gpu", None, self.ask("multi_gpu", None, {"op": "multi_gpu", "devices": targets}))

    def run_device(self, dev):
        """The main lane's checks on one device, figures excepted; the reason its remaining checks
        are skipped, or None."""
        hangs = 0
        stop_reason = None
        try:
            for name in DEVICE_CHECKS:
                if name == "linear_alt_blas" or name in self.SIDE_CHECKS or name in self.QUIET_CHECKS \
                        or not self.wanted(name):
                    continue
                if stop_reason:
                    self.skip(name, dev, stop_reason)
                    continue
                if name == "arch":
                    self.check_arch(dev)
                    continue
                entry = self.add(name, dev, self.ask(name, dev, {"op": "check", "check": name, "device": dev}))
                if name == "alloc":
                    self.alloc_done[dev].set()
                if entry["details"].get("timed_out"):
                    hangs += 1
                if name == "alloc" and entry["status"] == "fail":
                    stop_reason = "skipped: allocation on this device failed"
                elif hangs >= 2:
                    stop_reason = "skipped: this device hung twice"
        finally:
            self.alloc_done[dev].set()
        return stop_reason

    def run_quiet(self, dev, stop_reason):
        for name in self.QUIET_CHECKS:
            if not self.wanted(name):
                continue
            if stop_reason:
                self.skip(name, dev, stop_reason)
                continue
            self.add(name, dev, self.ask(name, dev, {"op": "check", "check": name, "device": dev}))

    def _wait_alloc(self, dev):
        """Whether the device can take more checks: waits for its alloc check's result."""
        ev = self.alloc_done.get(dev)
        if ev is not None:
            while not ev.wait(0.2):
                pass
        return not self.failed("alloc", dev)

    def run_side(self, lane, name, targets):
        try:
            for dev in targets:
                if not self._wait_alloc(dev):
                    self.skip(name, dev, "skipped: allocation on this device failed")
                    continue
                self.add(name, dev, lane.ask(name, dev, {"op": "check", "check": name, "device": dev}))
        finally:
            lane.drop()

    def run_alt_blas(self, targets):
        lane = self.alt
        var, value = lane.var, lane.value
        try:
            for dev in targets:
                if not self._wait_alloc(dev):
                    self.skip("linear_alt_blas", dev, "skipped: allocation on this device failed")
                    continue
                res = lane.ask("linear_alt_blas", dev, {"op": "check", "check": "linear_alt_blas", "device": dev})
                res = dict(res)
                res["details"] = dict(res.get("details") or {})
                res["details"]["env"] = {var: value}
                reason = res.get("reason") or ""
                if res.get("status") == "fail" and ("could not import torch" in reason or "fresh worker" in reason):
                    res["reason"] = "with %s=%s torch could not be imported: %s" % (var, value, reason)
                self.add("linear_alt_blas", dev, res)
        finally:
            lane.drop()

    def alt_blas_setting(self, build=None):
        """(variable, value) that selects the BLAS path the user's environment does not use."""
        if (build or self.build) == "rocm":
            var = "TORCH_BLAS_PREFER_HIPBLASLT"
            cur = os.environ.get(var)
            value = "1" if cur is not None and cur.strip().lower() in ("0", "false", "no", "off") else "0"
        else:
            var = "TORCH_BLAS_PREFER_CUBLASLT"
            cur = os.environ.get(var)
            value = "0" if cur is not None and cur.strip().lower() in ("1", "true", "yes", "on") else "1"
        return var, value

    def check_kfd(self):
        if not self.wanted("kfd"):
            return
        if self.build != "rocm":
            what = "a CUDA build" if self.build == "cuda" else "a CPU-only build" if self.build == "cpu" else \
                "not a ROCm build"
            self.skip("kfd", None, "ROCm only: /dev/kfd is AMD's compute device node; this torch is %s" % what)
            return
        nodes = self.host.get("device_nodes") or []
        dxg = next((n for n in nodes if n["path"] == "/dev/dxg"), {"exists": False})
        if self.host.get("wsl") or (dxg.get("exists") and not any(n["path"] == "/dev/kfd" and n.get("exists")
                                                                  for n in nodes)):
            self.add("kfd", None, wsl_node_result(dxg, self.host))
            return
        kfd = next((n for n in nodes if n["path"] == "/dev/kfd"), {"exists": False})
        renders = [n for n in nodes if n["path"].startswith("/dev/dri/renderD")]
        details = {"kfd": kfd, "render_nodes": renders, "user": self.host.get("user"),
                   "groups": self.host.get("groups")}
        if not kfd.get("exists"):
            where = "inside a container started without --device=/dev/kfd" if self.host.get("container") else \
                "the amdgpu kernel driver is not loaded" if not self.host.get("amdgpu_loaded") else \
                "amdgpu is loaded but exposes no KFD"
            reason = "/dev/kfd does not exist: %s" % where
            status = "fail"
        elif not kfd.get("accessible"):
            reason = "/dev/kfd not accessible for user %s (%s, group %s; the user's groups: %s)" % (
                self.host.get("user"), kfd.get("mode"), kfd.get("group"), ", ".join(self.host.get("groups") or []) or "none")
            status = "fail"
        elif renders and not any(n.get("accessible") for n in renders):
            r = renders[0]
            reason = "no /dev/dri/renderD* node accessible for user %s (%s, group %s)" % (
                self.host.get("user"), r.get("mode"), r.get("group"))
            status = "fail"
        elif not renders:
            reason = "no /dev/dri/renderD* node exists"
            status = "fail"
        else:
            reason = "/dev/kfd and %d render node(s) usable" % sum(1 for n in renders if n.get("accessible"))
            status = "pass"
        self.add("kfd", None, {"status": status, "reason": reason, "seconds": 0.0, "details": details})

    def check_arch(self, dev):
        arch_list = (self.torch or {}).get("arch_list") or []
        if dev == "cpu":
            self.skip("arch", dev, "no GPU (CPU fallback)")
            return
        info = next((d for d in self.devices if d.get("index") == dev), {})
        arch = info.get("arch")
        details = {"arch": arch, "arch_list": arch_list}
        override = os.environ.get("HSA_OVERRIDE_GFX_VERSION")
        if override:
            details["HSA_OVERRIDE_GFX_VERSION"] = override
        if not arch:
            self.add("arch", dev, {"status": "skip", "reason": "the device did not report its architecture",
                                   "details": details})
            return
        if not arch_list:
            self.add("arch", dev, {"status": "skip", "reason": "the wheel did not report its architectures",
                                   "details": details})
            return
        covered, how = arch_covered(arch, arch_list)
        details["covered_by"] = how
        info["covered_by_wheel"] = covered
        if covered:
            reason = "the wheel has kernels for %s (%s)" % (arch, how)
            status = "pass"
        else:
            reason = "no kernels for %s in this wheel (it has: %s)" % (arch, ", ".join(arch_list))
            if override:
                reason += "; HSA_OVERRIDE_GFX_VERSION=%s is set" % override
            status = "fail"
        self.add("arch", dev, {"status": status, "reason": reason, "seconds": 0.0, "details": details})


def arch_covered(arch, arch_list):
    """(covered, how) for a device arch ("gfx90a", "sm_90") against torch.cuda.get_arch_list()."""
    base = arch.split(":")[0]
    listed = [a.split(":")[0] for a in arch_list]
    if base in listed:
        return True, base
    if base.startswith("sm_"):
        try:
            cap = int(base[3:].rstrip("af"))
        except ValueError:
            return False, None
        major = cap // 10
        for a in listed:
            digits = a[3:] if a.startswith(("sm_",)) else a[8:] if a.startswith("compute_") else None
            if not digits:
                continue
            suffix = digits[-1] if digits[-1] in "af" else ""
            try:
                num = int(digits.rstrip("af"))
            except ValueError:
                continue
            if a.startswith("sm_") and not suffix and num // 10 == major and num <= cap:
                return True, a  # same major, lower minor: binary compatible
            if a.startswith("compute_") and not suffix and num <= cap:
                return True, a  # PTX, compiled for this GPU when loaded
    return False, None


# --------------------------------------------------------------------------------------------
# command line
# --------------------------------------------------------------------------------------------

def _text_report(doc):
    lines = []
    t = doc.get("torch") or {}
    lines.append("torch %s (%s)  python %s" % (t.get("version", "?"), t.get("build", "?"), doc["host"].get("python")))
    for d in doc.get("devices") or []:
        lines.append("device %s: %s %s" % (d.get("index"), d.get("name"), d.get("arch") or ""))
    for c in doc["checks"]:
        where = "" if c["device"] is None else "[%s]" % c["device"]
        lines.append("%-4s  %-18s %7.2fs  %s" % (c["status"].upper(), c["name"] + where, c["seconds"], c["reason"]))
    for f in doc.get("figures") or []:
        lines.append("figure: %s %s [%s] %.1f %s" % (f["name"], f.get("dtype") or "", f["device"], f["value"] or 0, f["unit"]))
    s = doc["summary"]
    lines.append("%s: %d passed, %d failed, %d skipped in %.1fs" % (
        "OK" if s["ok"] else "FAILED", s["pass"], s["fail"], s["skip"], doc["duration_s"]))
    return "\n".join(lines) + "\n"


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        self.print_usage(sys.stderr)
        self.exit(64, "%s: error: %s\n" % (self.prog, message))


def main(argv=None):
    parser = _Parser(prog="smoke.py", description="GPU smoke test for PyTorch (rocm-wizard)")
    parser.add_argument("--json", action="store_true", help="print one JSON document (the default for pipes too)")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per check (import and compile: x3)")
    parser.add_argument("--check-timeout", action="append", default=[], metavar="CHECK=S",
                        help="seconds for one check instead of --timeout (repeatable)")
    parser.add_argument("--only", default="", help="comma-separated checks to run (import/device always run)")
    parser.add_argument("--cpu-fallback", action="store_true",
                        help="with no GPU, run the device checks on the CPU (to test this script)")
    parser.add_argument("--progress", action="store_true", help="one line per finished check on stderr")
    parser.add_argument("--list", action="store_true", help="list the checks and exit")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    opts = parser.parse_args(argv)
    if opts.worker:
        return worker_main()
    if opts.list:
        for name, scope, what in CHECKS:
            sys.stdout.write("%-16s %-7s %s\n" % (name, scope, what))
        return 0
    if not (opts.timeout > 0 and math.isfinite(opts.timeout)):
        parser.error("--timeout must be a positive number of seconds")
    per_check = {}
    for item in opts.check_timeout:
        name, _, value = item.partition("=")
        try:
            seconds = float(value)
        except ValueError:
            seconds = float("nan")
        if name.strip() not in CHECK_NAMES or not (seconds > 0 and math.isfinite(seconds)):
            parser.error("--check-timeout wants CHECK=SECONDS with a known check and a positive number: %r" % item)
        per_check[name.strip()] = seconds
    opts.check_timeout = per_check
    only = [x.strip() for x in opts.only.split(",") if x.strip()]
    unknown = [x for x in only if x not in CHECK_NAMES]
    if unknown:
        parser.error("unknown check(s): %s (known: %s)" % (", ".join(unknown), ", ".join(CHECK_NAMES)))
    opts.only = set(only) | {"import", "device"} if only else None

    if opts.progress:  # the runner times the start of the script from here (limits.VERIFY_START_S)
        sys.stderr.write("smoke: start\n")
        sys.stderr.flush()

    def _term(signum, frame):
        raise KeyboardInterrupt()
    try:
        signal.signal(signal.SIGTERM, _term)
    except (ValueError, OSError):
        pass
    doc = Smoke(opts).run()
    if opts.json:
        sys.stdout.write(json.dumps(doc, indent=1, sort_keys=False) + "\n")
    else:
        sys.stdout.write(_text_report(doc))
    sys.stdout.flush()
    if doc.get("interrupted"):
        return 130
    return 0 if doc["summary"]["ok"] else 2


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(130)
