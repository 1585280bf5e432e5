#!/usr/bin/env bash
# Proves that `scripts/setup.sh` then `scripts/test.sh` pass on a fresh machine: a minimal Debian
# root made by mmdebstrap (default bookworm = Debian 12, PEP 668; only apt, dpkg and bash in it),
# this checkout (tracked and untracked-but-not-ignored files, no venv) and ../shared copied in,
# entered with unshare + chroot as real root (the integration tier inside builds its own roots),
# then, inside:
#     CI=true bash scripts/setup.sh
#     CI=true bash scripts/test.sh -p no:cacheprovider -rfEs [PYTEST ARGS]
# test.sh runs setup.sh again, so a second run over an existing venv is part of the check.
#
# Needs root, mmdebstrap and network to the Debian archive and PyPI.  Not part of CI: on a loaded
# 2-core machine it takes about an hour.  The root is removed afterwards (KEEP=1 keeps it).
#
#   SUITE=bookworm   the Debian suite (an Ubuntu suite needs an Ubuntu mirror: MIRROR=...)
#   MIRROR=URL       the archive to build from (default http://deb.debian.org/debian)
#   WHEELS=DIR       wheels offered to pip inside (PIP_FIND_LINKS), e.g. a local CPU torch wheel
#                    where PyTorch's CPU index cannot be reached (default /opt/wheels when present)
#   SHARED=DIR       the shared field data (default ../shared)
#   CA_BUNDLE=FILE   the CA certificates pip and Python trust inside, for a network whose TLS goes
#                    through an inspecting proxy (default: this machine's
#                    /etc/ssl/certs/ca-certificates.crt when present)
set -Eeuo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
SUITE=${SUITE:-bookworm}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
SHARED=${SHARED:-$REPO/../shared}
if [ -z "${WHEELS+x}" ] && [ -d /opt/wheels ]; then WHEELS=/opt/wheels; fi
WHEELS=${WHEELS:-}

if [ -z "${CA_BUNDLE+x}" ] && [ -f /etc/ssl/certs/ca-certificates.crt ]; then
  CA_BUNDLE=/etc/ssl/certs/ca-certificates.crt
fi
CA_BUNDLE=${CA_BUNDLE:-}

[ "$(id -u)" = 0 ] || { echo "check-fresh-machine: needs root" >&2; exit 64; }
WORK=$(mktemp -d /var/tmp/rw-fresh.XXXXXX)
ROOT=$WORK/root
# shellcheck disable=SC2317  # called by the trap
cleanup() {
  if [ "${KEEP:-0}" = 1 ]; then echo "check-fresh-machine: kept $ROOT" >&2; else rm -rf --one-file-system "$WORK"; fi
}
trap cleanup EXIT

echo "check-fresh-machine: building a fresh $SUITE root in $ROOT" >&2
mmdebstrap --quiet --variant=minbase --mode=root "$SUITE" "$ROOT" "$MIRROR"
cp /etc/resolv.conf "$ROOT/etc/resolv.conf"

mkdir -p "$ROOT/src/rocm-wizard"
git -C "$REPO" ls-files -z -co --exclude-standard | tar -C "$REPO" --null -T - -cf - | tar -C "$ROOT/src/rocm-wizard" -xf -
if [ -d "$SHARED" ]; then cp -a "$SHARED/." "$ROOT/src/shared"; fi

inner='cd /src/rocm-wizard && bash scripts/setup.sh && bash scripts/test.sh -p no:cacheprovider -rfEs "$@"'
env_args=(HOME=/root LANG=C.UTF-8 LC_ALL=C.UTF-8 TERM=xterm CI=true
          PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin)
# the root bound onto itself is a mount point, so bwrap (the tests' read-only root) works inside
mounts="mount --bind '$ROOT' '$ROOT' && mount -t proc proc '$ROOT/proc' && mount --rbind /sys '$ROOT/sys' && mount --rbind /dev '$ROOT/dev' && mount -t tmpfs tmpfs '$ROOT/tmp'"
if [ -n "$WHEELS" ]; then
  mkdir -p "$ROOT/opt/wheels"
  mounts="$mounts && mount --bind '$WHEELS' '$ROOT/opt/wheels' && mount -o remount,bind,ro '$ROOT/opt/wheels'"
  env_args+=(PIP_FIND_LINKS=/opt/wheels)
fi
if [ -n "$CA_BUNDLE" ]; then
  cp "$CA_BUNDLE" "$ROOT/etc/check-fresh-machine-ca.crt"
  for v in PIP_CERT SSL_CERT_FILE REQUESTS_CA_BUNDLE CURL_CA_BUNDLE; do
    env_args+=("$v=/etc/check-fresh-machine-ca.crt")
  done
fi
echo "check-fresh-machine: setup.sh then test.sh inside (CI=true)" >&2
set +e
unshare --mount --propagation private -- /bin/sh -c "$mounts && exec chroot '$ROOT' /usr/bin/env -i ${env_args[*]} /bin/bash -c '$inner' fresh \"\$@\"" sh "$@"
rc=$?
set -e
echo "check-fresh-machine: exit status $rc" >&2
exit $rc
