#!/usr/bin/env bash
# The GPU smoke test on a machine with a real GPU, reports written under $OUT:
#   env.txt              machine, driver, torch/triton versions
#   smoke-cold.json      smoke.py --json, first run on the machine (cold Triton/inductor caches)
#   smoke-warm.json      smoke.py --json, second run
#   verify.json/.txt     the wizard's runner (rocm-wizard verify --json) and its rendering
#   smoke-isolation.json a hang and a segfault planted in two checks (test hooks) on the real GPU
#   smoke-hidden.json    the same machine with every GPU hidden by *_VISIBLE_DEVICES=""
#   run.log              progress lines and wall-clock times (the "< 30 s" figure)
# Usage: OUT=/some/dir PYTHON=python3 benchmarks/verify_device.sh
set -u
OUT=${OUT:-/tmp/rocm-wizard-verify}
PY=${PYTHON:-python3}
mkdir -p "$OUT"
cd "$(dirname "$0")/.." || exit 1
SMOKE=src/rocm_wizard/verify/smoke.py
LOG="$OUT/run.log"
PYEXE=$(command -v "$PY")

wall() { # wall-clock seconds of a command, appended to the log
  local name=$1; shift
  local t0 t1 rc
  t0=$(date +%s%N)
  "$@"; rc=$?
  t1=$(date +%s%N)
  ms=$(( (t1 - t0) / 1000000 ))
  printf '%s: exit %s, wall %d.%03d s\n' "$name" "$rc" $((ms / 1000)) $((ms % 1000)) | tee -a "$LOG"
}

{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "uname: $(uname -a)"
  echo "cpus: $(nproc)"
  command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.sm,power.limit --format=csv
  command -v rocm-smi >/dev/null && rocm-smi --showproductname
  "$PY" - <<'PYEOF'
import sys, platform
print("python", sys.version.split()[0], sys.executable)
import torch
print("torch", torch.__version__, "cuda", torch.version.cuda, "hip", getattr(torch.version, "hip", None))
print("arch_list", torch.cuda.get_arch_list() if torch.cuda.is_available() else [])
try:
    import triton
    print("triton", triton.__version__)
except Exception as exc:
    print("triton import failed:", exc)
for mod in ("rich", "tomllib", "tomli"):
    try:
        __import__(mod)
        print(mod, "ok")
    except Exception as exc:
        print(mod, "missing:", exc)
PYEOF
} >"$OUT/env.txt" 2>&1

export PYTHONUNBUFFERED=1
wall "smoke cold" sh -c "'$PY' $SMOKE --json --progress >'$OUT/smoke-cold.json' 2>>'$LOG'"
wall "smoke warm" sh -c "'$PY' $SMOKE --json --progress >'$OUT/smoke-warm.json' 2>>'$LOG'"
wall "runner (rocm-wizard verify --json)" sh -c \
  "PYTHONPATH=src ROCM_WIZARD_PROGRESS=1 '$PY' -m rocm_wizard.commands.verify --python '$PYEXE' --json >'$OUT/verify.json' 2>>'$LOG'"
PYTHONPATH=src "$PY" -m rocm_wizard.commands.verify --from-file "$OUT/verify.json" >"$OUT/verify.txt" 2>>"$LOG"
echo "render exit: $?" >>"$LOG"
wall "isolation (hang in matmul, SIGSEGV in linear)" sh -c \
  "ROCM_WIZARD_SMOKE_HOOK=hang:matmul,segv:linear '$PY' $SMOKE --json --progress --timeout 10 \
   --only alloc,matmul,linear,throughput >'$OUT/smoke-isolation.json' 2>>'$LOG'"
wall "no visible GPU (CUDA_VISIBLE_DEVICES=)" sh -c \
  "CUDA_VISIBLE_DEVICES= '$PY' $SMOKE --json --progress --only device,alloc >'$OUT/smoke-hidden.json' 2>>'$LOG'"
echo "--- verify.txt"; cat "$OUT/verify.txt"
echo "--- run.log"; cat "$LOG"
