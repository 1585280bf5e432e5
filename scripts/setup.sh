#!/usr/bin/env bash
# Install everything the test suite needs on a fresh Debian 12, Ubuntu 22.04 or 24.04 machine
# (idempotent: run it again any time).
#
# * as root: the apt packages below (without root they are listed, and scripts/test.sh's
#   test_prerequisites.py names each one that is still missing);
# * a project venv (.venv, or $ROCM_WIZARD_VENV) with the package, its test extras, Ansible and
#   torch.  Nothing is pip-installed into the system Python (PEP 668 refuses that on Debian 12 and
#   Ubuntu 24.04, and it would change the machine's own tools).
#
# torch: the CPU build from PyTorch's CPU index when that index is reachable
# ($ROCM_WIZARD_TORCH_CPU_INDEX); otherwise whatever `pip install torch==VERSION` gives from the
# configured index -- on a machine with no GPU the smoke-test tests accept a CPU or a CUDA build.
set -Eeuo pipefail
cd "$(dirname "$0")/.."

VENV="${ROCM_WIZARD_VENV:-$PWD/.venv}"
PYTHON="${PYTHON:-python3}"
TORCH_VERSION=2.13.0
TORCH_CPU_INDEX="${ROCM_WIZARD_TORCH_CPU_INDEX:-https://download.pytorch.org/whl/cpu}"

APT_PACKAGES=(
  python3 python3-venv python3-pip  # the interpreter and the project venv
  g++ python3-dev # torch.compile's CPU backend (the smoke test's compile check) builds C++ against Python.h
  ca-certificates git
  mmdebstrap debian-archive-keyring # Debian roots for the real apt/dpkg integration tier
  apt-utils       # apt-ftparchive: builds the local repo.radeon.com look-alike
  dpkg-dev        # dpkg-deb, dpkg-scanpackages for the stand-in packages
  gnupg           # the test signing key
  bubblewrap      # the read-only root of the fast tiers; optional entry into the Debian root
  shellcheck      # generated plan scripts must pass it
  tmux            # the TUI tested in a real terminal
  openssh-server  # sshd on loopback: the TUI tested over a real SSH session
  openssh-client  # ssh, ssh-keygen for that test
  dnf             # issue 26: plans for dnf hosts run for real (rpm, rpmbuild, rpmsign come with rpm)
  zypper rpm createrepo-c # the zypper and dnf labs (issue 26): real zypper, rpm, rpmbuild, rpmsign and createrepo_c
)

say() { echo "setup: $*" >&2; }

if command -v apt-get >/dev/null 2>&1; then
  missing=()
  for p in "${APT_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" = 0 ]; then
      say "installing ${missing[*]}"
      apt-get update -qq
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    else
      say "not root: these apt packages are missing: ${missing[*]} (sudo apt-get install them)"
    fi
  fi
fi

# ROCM_WIZARD_SETUP_APT_ONLY=1: the apt packages only (scripts/check-fresh-machine.sh, as root,
# before a user makes the venv)
if [ "${ROCM_WIZARD_SETUP_APT_ONLY:-0}" = 1 ]; then exit 0; fi

# The project venv: made once, reused after (a broken one is made again).
if ! "$VENV/bin/python" -c 'import sys' >/dev/null 2>&1; then
  say "creating the project venv $VENV"
  "$PYTHON" -m venv --clear "$VENV"
fi
PY="$VENV/bin/python"
PIP=("$PY" -m pip install -q --disable-pip-version-check)

"${PIP[@]}" -e '.[test]' 'ansible-core>=2.16' 'ansible-lint>=24'

if "$PY" -c "import importlib.metadata as m, sys; sys.exit(m.version('torch').split('+')[0] != '$TORCH_VERSION')" \
    >/dev/null 2>&1; then
  :  # already there (CPU or CUDA build, whichever this machine got)
elif "$PY" -c "import sys, urllib.request; urllib.request.urlopen(sys.argv[1].rstrip('/') + '/torch/', timeout=15)" \
    "$TORCH_CPU_INDEX" >/dev/null 2>&1; then
  say "torch $TORCH_VERSION: the CPU build from $TORCH_CPU_INDEX"
  "${PIP[@]}" --index-url "$TORCH_CPU_INDEX" --extra-index-url https://pypi.org/simple "torch==$TORCH_VERSION+cpu"
else
  say "torch $TORCH_VERSION: $TORCH_CPU_INDEX is not reachable; using the configured package index"
  "${PIP[@]}" "torch==$TORCH_VERSION"
fi
