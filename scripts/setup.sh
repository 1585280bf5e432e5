#!/usr/bin/env bash
# Install everything the test suite needs on a fresh Debian/Ubuntu machine (idempotent).
# System packages need root (apt-get); without root they are skipped with a message, and the
# tests that need them skip themselves.
set -Eeuo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(
  mmdebstrap      # Debian roots for the real apt/dpkg integration tier
  apt-utils       # apt-ftparchive: builds the local repo.radeon.com look-alike
  dpkg-dev        # dpkg-deb, dpkg-scanpackages for the stand-in packages
  gnupg           # the test signing key
  bubblewrap      # optional sandbox for entering the Debian root
  shellcheck      # generated plan scripts must pass it
  tmux            # the TUI tested in a real terminal
  openssh-server  # sshd on loopback: the TUI tested over a real SSH session
  openssh-client  # ssh, ssh-keygen for that test
)

if command -v apt-get >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then
    missing=()
    for p in "${APT_PACKAGES[@]}"; do
      dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
    done
    if [ ${#missing[@]} -gt 0 ]; then
      echo "setup: installing ${missing[*]}" >&2
      apt-get update -qq
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    fi
  else
    echo "setup: not root; skipping apt packages (${APT_PACKAGES[*]})" >&2
  fi
fi

PIP=(python3 -m pip install -q --disable-pip-version-check)
"${PIP[@]}" -e '.[test]'
# Heavier tools used by a few tests: Ansible for the playbook checks, the CPU torch wheel for
# the smoke test's "no GPU" path and the collect_env benchmark.
"${PIP[@]}" 'ansible-core>=2.16' 'ansible-lint>=24' 'torch==2.13.0'
