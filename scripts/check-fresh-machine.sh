#!/usr/bin/env bash
# Proves that `scripts/setup.sh` then `scripts/test.sh` pass on a fresh machine:
#
#     sudo scripts/check-fresh-machine.sh debian12 [PYTEST ARGS]     # or debian13
#
# A minimal Debian root made by mmdebstrap (debian12 = bookworm, Python 3.11; debian13 = trixie,
# Python 3.13; only apt, dpkg and bash in it), this checkout (tracked and untracked-but-not-ignored
# files, no venv) copied to /tmp/rocm-wizard inside it -- a clone under /tmp, which the tests'
# sandbox must handle -- entered with unshare + chroot as real root (the integration tier inside
# builds its own roots; with AS=user, pivot_root instead of chroot, see below).  Inside, as AS (root: the default; user: setup.sh's apt part as root, then
# setup.sh and test.sh as the account "tester", which owns the clone):
#     CI=$CI bash scripts/setup.sh
#     CI=$CI bash scripts/test.sh -p no:cacheprovider -rfEs [PYTEST ARGS]
# RUNS times (default 2) in the same root: the second run shows setup.sh is idempotent (it finds
# everything in place).  Nothing of this machine is read by the tests: there is no ../shared.
#
# Needs root, mmdebstrap and network to the Debian archive and PyPI.  Not part of CI: the whole
# suite inside takes about an hour on a loaded 2-core machine (pass pytest arguments for a subset).
# The root is removed afterwards (KEEP=1 keeps it).
#
#   AS=root|user     who runs the suite inside (default root; as a user the integration tier and
#                    the root-only tests cannot run: under CI=true they fail naming why)
#   CI=true|false    CI's way (default true: a missing prerequisite or an unnamed skip fails)
#   RUNS=N           how many times setup.sh + test.sh run in the same root (default 2)
#   AGAIN="ARGS"     pytest arguments for the runs after the first (split on spaces), e.g.
#                    AGAIN="tests/test_prerequisites.py tests/plan" for a whole first run and a
#                    short second one that still shows setup.sh is idempotent (default: the same
#                    arguments as the first run)
#   SUITE=NAME       another Debian suite than the argument's (MIRROR=... for an Ubuntu suite)
#   MIRROR=URL       the archive to build from (default http://deb.debian.org/debian)
#   WHEELS=DIR       wheels offered to pip inside (PIP_FIND_LINKS), e.g. a local CPU torch wheel
#                    where PyTorch's CPU index cannot be reached (default /opt/wheels when present).
#                    The wheel must match the root's Python: cp311 for debian12, cp313 for debian13.
#                    Without one, setup.sh takes `torch==VERSION` from PyPI: for Linux x86_64 that
#                    is the CUDA build (about 0.5 GB, plus about 3 GB of CUDA libraries), which
#                    also runs on a machine without a GPU.
#   PLANT=1|0        plant a catalog overlay in the root's /var/lib/rocm-wizard (as a `catalog refresh`
#                    run as root leaves one) that the tests must never read (default 1)
#   CLONE=DIR        where the checkout goes inside the root (default /tmp/rocm-wizard; e.g.
#                    /var/tmp/rocm-wizard for a clone under /var/tmp, or a path with spaces)
#   RW_TEST_WORKERS  passed to scripts/test.sh (pytest-xdist workers; 0: one process)
#   CA_BUNDLE=FILE   the CA certificates pip and Python trust inside, for a network whose TLS goes
#                    through an inspecting proxy (default: this machine's
#                    /etc/ssl/certs/ca-certificates.crt when present)
set -Eeuo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
case "${1:-}" in
  debian12) DEFAULT_SUITE=bookworm; shift ;;
  debian13) DEFAULT_SUITE=trixie; shift ;;
  *) echo "usage: check-fresh-machine.sh debian12|debian13 [PYTEST ARGS]" >&2; exit 64 ;;
esac
SUITE=${SUITE:-$DEFAULT_SUITE}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
AS=${AS:-root}
CI=${CI:-true}
RUNS=${RUNS:-2}
case "$AS" in root|user) ;; *) echo "check-fresh-machine: AS is root or user" >&2; exit 64 ;; esac
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

if [ "${PLANT:-1}" = 1 ]; then
  # the machine's own overlay, dated in the future: a test that read it would see another catalog
  mkdir -p "$ROOT/var/lib/rocm-wizard"
  schema=$(sed -n 's/^SCHEMA = "\([^"]*\)".*/\1/p' "$REPO/src/rocm_wizard/catalog/overlay.py")
  printf '{"schema": "%s", "created": "2027-11-02T10:00:00Z"}\n' "$schema" > "$ROOT/var/lib/rocm-wizard/catalog-overlay.json"
  echo "check-fresh-machine: planted $ROOT/var/lib/rocm-wizard/catalog-overlay.json" >&2
fi

CLONE=${CLONE:-/tmp/rocm-wizard}  # inside the root
case "$CLONE" in /*) ;; *) echo "check-fresh-machine: CLONE is an absolute path" >&2; exit 64 ;; esac
mkdir -p "$ROOT$CLONE"
git -C "$REPO" ls-files -z -co --exclude-standard | tar -C "$REPO" --null -T - -cf - | tar -C "$ROOT$CLONE" -xf -

# the commands run inside: as root, setup.sh then test.sh; as a user, setup.sh's apt part as root,
# then setup.sh and test.sh as tester (who owns the clone)
if [ "$AS" = user ]; then
  chroot "$ROOT" /usr/sbin/useradd --create-home --shell /bin/bash tester
  chroot "$ROOT" /bin/chown -R tester: "$CLONE"
  cat > "$ROOT/check-fresh-machine-inner.sh" <<EOF
set -e
cd '$CLONE'
ROCM_WIZARD_SETUP_APT_ONLY=1 bash scripts/setup.sh
exec setpriv --reuid=tester --regid=tester --init-groups env HOME=/home/tester USER=tester \\
  bash -c 'bash scripts/setup.sh && exec bash scripts/test.sh -p no:cacheprovider -rfEs "\$@"' tester "\$@"
EOF
else
  cat > "$ROOT/check-fresh-machine-inner.sh" <<EOF
set -e
cd '$CLONE'
bash scripts/setup.sh
exec bash scripts/test.sh -p no:cacheprovider -rfEs "\$@"
EOF
fi
env_args=(HOME=/root LANG=C.UTF-8 LC_ALL=C.UTF-8 TERM=xterm "CI=$CI"
          PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin)
if [ -n "${RW_TEST_WORKERS:-}" ]; then env_args+=("RW_TEST_WORKERS=$RW_TEST_WORKERS"); fi
# the root bound onto itself is a mount point, so bwrap (the tests' read-only root) works inside;
# the root's /tmp stays its own directory (the clone is there)
mounts="mount --bind '$ROOT' '$ROOT' && mount -t proc proc '$ROOT/proc' && mount --rbind /sys '$ROOT/sys' && mount --rbind /dev '$ROOT/dev'"
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
rc=0
for run in $(seq 1 "$RUNS"); do
  if [ "$run" -gt 1 ] && [ -n "${AGAIN:-}" ]; then
    # shellcheck disable=SC2086  # the later runs' arguments, split on spaces on purpose
    set -- $AGAIN
  fi
  echo "check-fresh-machine: $SUITE, run $run of $RUNS: setup.sh then test.sh in $CLONE as $AS (CI=$CI) ${*:-(whole suite)}" >&2
  set +e
  if [ "$AS" = user ]; then
    # pivot_root instead of chroot: the kernel refuses an unprivileged user namespace -- the tests'
    # own bwrap, run as tester -- inside a chroot; a fresh /proc (own PID namespace) is fully
    # visible, so bwrap may mount its own
    unshare --mount --pid --fork --propagation private -- /bin/sh -c "$mounts && mkdir -p '$ROOT/.oldroot' && cd '$ROOT' && pivot_root . .oldroot && umount -l /.oldroot && cd / && exec /usr/bin/env -i ${env_args[*]} /bin/bash /check-fresh-machine-inner.sh \"\$@\"" sh "$@"
  else
    unshare --mount --propagation private -- /bin/sh -c "$mounts && exec chroot '$ROOT' /usr/bin/env -i ${env_args[*]} /bin/bash /check-fresh-machine-inner.sh \"\$@\"" sh "$@"
  fi
  rc=$?
  set -e
  echo "check-fresh-machine: $SUITE, run $run: exit status $rc" >&2
  [ "$rc" = 0 ] || break
done
exit $rc
