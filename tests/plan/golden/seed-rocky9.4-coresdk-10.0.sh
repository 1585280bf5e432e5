#!/usr/bin/env bash
# rocm-wizard plan: Upgrade ROCm to the Core SDK 10.0.0 from AMD's rpm repository (rhel9)
# path: rocm-upgrade   plan id: 9430c65d342d   format: 1   rocm-wizard @VERSION@
# made for: Rocky Linux 9.4 (Blue Onyx), kernel 5.14.0-427.13.1.el9_4.x86_64; AMD Radeon RX 7900 XT (gfx1100); ROCm 6.2.0; torch 2.5.1+rocm6.2 in /home/dev/train/.venv
# system fingerprint: sha256:dbe2eeeeaa15fa91e73f9e3a1dc6ac82
#   gpus: 744c
#   kernel: 5.14.0-427.13.1.el9_4.x86_64
#   os: rocky 9.4
#   rocm: 6.2.0 | none | 10.0.0
#
# Run:      sudo bash THIS-FILE        (steps that are already done are skipped)
# Dry run:  DRY_RUN=1 bash THIS-FILE   (changes nothing; exit 2 = changes pending, 0 = nothing to do)
# It refuses to run on another system, or when the system changed since the plan was made.
#
# Steps:
#    1. Fetch the Core SDK signing key, check its fingerprint, then import it into rpm
#         why: rpm must trust only the Core SDK's key, checked against its pinned fingerprint, before any AMD package is read
#    2. Register the Core SDK 10.0 repository (/etc/yum.repos.d/amdrocm-stable.repo)
#         why: dnf must read the Core SDK 10.0 packages from AMD's repository, signatures checked against the checked key (gpgcheck=1)
#    3. Ask the Core SDK repository for amdrocm-core-sdk10.0-gfx1100 (before anything is removed)
#         why: the legacy packages are removed next: the new repository must answer, signed, with the planned packages first
#    4. Remove the legacy ROCm packages first (AMD's transition guide)
#         why: AMD's transition guide removes the legacy rocm-* packages before the Core SDK's are installed
#    5. Install ROCm 10.0.0 (amdrocm-core-sdk10.0-gfx1100)
#         why: the versioned amdrocm package(s) of 10.0.0, never the unversioned pointer, so the installed release is the one chosen
#    6. Check that /opt/rocm/core leads to ROCm 10.0.0
#         why: AMD's packages register every installed release for /opt/rocm/core and the newest wins by priority, so the link is checked to lead to the release chosen
#    7. Let the GPU user use the GPU (render and video groups)
#         why: the GPU user reaches the GPU's device files only as a member of the render and video groups
# Note: the amdgpu driver repository paired with ROCm 10.0.0 is not known: the installed kernel driver is kept (as with --no-dkms)
# Note: Core SDK 10.0 rpm repository: no priority= on AMD's 10.0 page (7.14's wrote priority=50)
# Note: whether ROCm 10.0.0 supports Rocky Linux 9.4 (Blue Onyx) (point release, kernel) is not in the catalog: AMD's Core SDK page lists the rhel9 repository for it; planned, not promised
# Note: the legacy ROCm packages are removed before the Core SDK is installed (AMD's transition guide): rocm rocm-core rocminfo
# Note: a legacy /etc/yum.repos.d/rocm.repo (AMD's legacy repository) is left as it is: nothing installs from it once the legacy packages are removed; delete it by hand if you like
# Note: the unversioned pointer packages (amdrocm-<comp>) follow the newest stream in the repository; only versioned names (amdrocm-<comp><X.Y>) are installed
# Note: the key is checked against D0F004A0025A1145C7807FCD0701EAC4D5E02107 before rpm --import (AMD's page imports it unchecked: gpgkey=https://...)
# Note: Core SDK signing key fingerprint D0F004A0025A1145C7807FCD0701EAC4D5E02107 (observed: ROCm/TheRock build_tools/packaging/linux/build_repo_package.py (PR #7269)); --rocm-core-key-fingerprint overrides it
# Note: this plan changes no venv: /home/dev/train/.venv keeps torch 2.5.1+rocm6.2; the torch way next, for ROCm 10.0.0: rocm-wizard --path torch-reinstall --venv /home/dev/train/.venv --torch 2.13.0+amd-rocm10.0.0

# Values are single-quoted data, written out literally ($ and \ in them mean nothing to bash):
# shellcheck disable=SC2016,SC1003
set -Eeuo pipefail
shopt -s nullglob
umask 022
export LC_ALL=C DEBIAN_FRONTEND=noninteractive

DRY_RUN="${DRY_RUN:-0}"
RW_ROOT="${RW_ROOT:-}"
RW_ROOT="${RW_ROOT%/}"
RW_STEP='(start)'
RW_CHANGED=' '
RW_NCHANGED=0
RW_WARNINGS=0
RW_STALE=0
RW_TMP=''
RW_RUN_ID="$(date +%Y%m%d-%H%M%S)-$$"
RW_BACKUP_DIR="${RW_ROOT}/var/backups/rocm-wizard/${RW_RUN_ID}"
RW_URLS=()
RW_UNDO=()
RW_DPKG_MARK="${RW_ROOT}/var/lib/rocm-wizard/dpkg-in-progress"

# rw_say TEXT...: a message on stderr, without terminal control characters (a venv's name, a
# file's content: what the plan quotes came from outside); rw_clean does the same to a stream
rw_say() {
  local s="$*"
  s=${s//[$'\001'-$'\010'$'\013'-$'\037'$'\177']/}
  s=${s//$'\xc2'[$'\x80'-$'\x9f']/}
  printf '%s\n' "$s" >&2
}
rw_clean() { sed -e $'s/[\001-\010\013-\037\177]//g' -e $'s/\xc2[\x80-\x9f]//g'; }
rw_die() { rw_say "rocm-wizard: $*"; exit 1; }
rw_on_error() {
  rw_say "rocm-wizard: step ${RW_STEP} failed (exit status $1, line $2): $3"
  rw_say "The steps after it were not run. Fix the cause and run this script again: finished steps are skipped."
  exit "$1"
}
trap 'rw_on_error "$?" "$LINENO" "$BASH_COMMAND"' ERR
rw_cleanup() { if [[ -n $RW_TMP ]]; then rm -rf -- "$RW_TMP"; fi; }
trap rw_cleanup EXIT

rw_begin() { RW_STEP="$1 ($2)"; rw_say ""; rw_say "==> [$1] $3"; }
rw_ok() { rw_say "    ok: $*"; }
rw_would() { rw_say "    would: $*"; }
rw_warn() { rw_say "    warning: $*"; RW_WARNINGS=$((RW_WARNINGS + 1)); }
rw_mark() { RW_CHANGED+="$1 "; RW_NCHANGED=$((RW_NCHANGED + 1)); }
# rw_changed ID...: true when one of these steps changed something in this run
rw_changed() {
  local id
  for id in "$@"; do
    if [[ $RW_CHANGED == *" $id "* ]]; then return 0; fi
  done
  return 1
}
rw_need_root() {
  if [[ $DRY_RUN == 1 || $EUID -eq 0 ]]; then return 0; fi
  rw_die "step ${RW_STEP} changes the system and needs root: run this script with sudo (DRY_RUN=1 shows what it would do)"
}
# rw_run CMD...: show the command, run it unless DRY_RUN=1
rw_run() {
  printf '    +' >&2
  printf ' %q' "$@" >&2
  printf '\n' >&2
  if [[ $DRY_RUN == 1 ]]; then return 0; fi
  "$@"
}
# rw_user_run USER CMD...: run CMD now as USER (root drops to USER; anyone else runs it as itself),
# dry runs included: for what only reads, like the checks that run a venv's interpreter.  The
# user's process gets a session of its own, with no controlling terminal, and not root's terminal
# on stdin.  Of root's environment it gets only what pip, uv and the GPU stack need (RW_OWNER_ENV),
# and the index the script itself sets: root's tokens and keys stay root's
RW_OWNER_ENV=(PATH LANG LANGUAGE LC_ALL LC_CTYPE TZ TERM http_proxy https_proxy no_proxy HTTP_PROXY HTTPS_PROXY
  NO_PROXY ALL_PROXY all_proxy SSL_CERT_FILE SSL_CERT_DIR REQUESTS_CA_BUNDLE PIP_CERT UV_NATIVE_TLS
  TORCH_BLAS_PREFER_HIPBLASLT HIP_VISIBLE_DEVICES ROCR_VISIBLE_DEVICES CUDA_VISIBLE_DEVICES HSA_ENABLE_SDMA
  HSA_OVERRIDE_GFX_VERSION AMD_LOG_LEVEL ROC_ENABLE_PRE_VEGA PIP_INDEX_URL UV_INDEX_URL UV_DEFAULT_INDEX)
rw_user_run() {
  local user=$1 n
  local -a rw_env=()
  shift
  if [[ $EUID -eq 0 && -n $user && $user != root ]]; then
    for n in "${RW_OWNER_ENV[@]}"; do
      if [[ -n ${!n+x} ]]; then rw_env+=("$n=${!n}"); fi
    done
    if [[ -t 0 ]]; then
      env -i "${rw_env[@]}" setsid -w runuser -u "$user" -- "$@" </dev/null
    else
      env -i "${rw_env[@]}" setsid -w runuser -u "$user" -- "$@"
    fi
  else
    "$@"
  fi
}
# rw_as USER CMD...: show CMD and run it as USER unless DRY_RUN=1 (a root run acts for the venv's owner)
rw_as() {
  local user=$1
  shift
  printf '    +' >&2
  if [[ $EUID -eq 0 && -n $user && $user != root ]]; then printf ' %q' runuser -u "$user" -- >&2; fi
  printf ' %q' "$@" >&2
  printf '\n' >&2
  if [[ $DRY_RUN == 1 ]]; then return 0; fi
  rw_user_run "$user" "$@"
}
# rw_venv_user VENV: the account that runs VENV's interpreter and writes in it: its owner when this
# is root (else this user), by the one owner rule: RW_OWNER_RULE is rocm_wizard/ownerrule.py as it
# is, run by the system's own Python in isolated mode (-I -S: nothing of the venv's or a user's).
# It refuses (exit 1, the reason and the fix on stderr) what root must not run.
rw_venv_user() {
  if [[ $EUID -ne 0 ]]; then
    id -un
    return 0
  fi
  if [[ ! -x /usr/bin/python3 ]]; then
    rw_die "judging who may run the venv $1 needs /usr/bin/python3 (apt-get install python3-minimal)"
  fi
  /usr/bin/python3 -I -S -c "${RW_OWNER_RULE:?the owner rule is missing from this script}" venv "$RW_ROOT$1" || exit 1
}
# rw_put_as USER PATH MODE CONTENT: write PATH whole as USER (a venv's owner): root follows no link
# the owner planted and leaves no directory of its own in their venv
rw_put_as() {
  local user=$1 path=$2 mode=$3 content=$4
  if [[ $DRY_RUN == 1 ]]; then
    rw_would "write $path"
    rw_show_diff "$RW_ROOT$path" "$content"
    return 0
  fi
  printf '%s' "$content" | rw_user_run "$user" sh -c 'set -e; d=$(dirname -- "$1"); mkdir -p -- "$d"; t=$(mktemp -- "$d/.rocm-wizard.XXXXXX"); trap '"'"'rm -f -- "$t"'"'"' EXIT; cat >"$t"; chmod -- "$2" "$t"; mv -f -- "$t" "$1"; trap - EXIT' sh "$path" "$mode"
}
rw_tmp() { if [[ -z $RW_TMP ]]; then RW_TMP=$(mktemp -d); fi; }
rw_owner_of() {
  local p=$1
  while [[ ! -e $p && $p == */* ]]; do p=${p%/*}; done
  stat -c %U -- "${p:-/}" 2>/dev/null || printf 'root'
}

# ---- files: always written whole, through a temporary file in the same directory and a rename
rw_same() { [[ -f $1 && ! -L $1 ]] && cmp -s -- "$1" <(printf '%s' "$2"); }
rw_show_diff() {
  local label=${1#"$RW_ROOT"}
  if [[ -e $1 ]]; then
    { diff -u --label "$label" --label "$label (new)" -- "$1" <(printf '%s' "$2") || true; } | rw_clean >&2
  else
    { diff -u --label /dev/null --label "$label" -- /dev/null <(printf '%s' "$2") || true; } | rw_clean >&2
  fi
}
rw_install_tmp() {
  local tmp=$1 dest=$2 mode=$3 owner=$4
  chmod -- "$mode" "$tmp"
  if [[ -n $owner && $EUID -eq 0 ]]; then chown -- "$owner:" "$tmp"; fi
  mv -f -- "$tmp" "$dest"
}
# rw_put PATH MODE CONTENT [OWNER]
rw_put() {
  local path=$1 mode=$2 content=$3 owner=${4:-} dir tmp
  if [[ $DRY_RUN == 1 ]]; then
    rw_would "write ${path#"$RW_ROOT"}"
    rw_show_diff "$path" "$content"
    return 0
  fi
  dir=$(dirname -- "$path")
  mkdir -p -- "$dir"
  tmp=$(mktemp -- "$dir/.rocm-wizard.XXXXXX")
  printf '%s' "$content" >"$tmp"
  rw_install_tmp "$tmp" "$path" "$mode" "$owner"
}
# rw_put_from SOURCE PATH MODE [OWNER]: install a copy of SOURCE as PATH
rw_put_from() {
  local src=$1 path=$2 mode=$3 owner=${4:-} dir tmp
  if [[ $DRY_RUN == 1 ]]; then
    rw_would "write ${path#"$RW_ROOT"}"
    return 0
  fi
  dir=$(dirname -- "$path")
  mkdir -p -- "$dir"
  tmp=$(mktemp -- "$dir/.rocm-wizard.XXXXXX")
  cat -- "$src" >"$tmp"
  rw_install_tmp "$tmp" "$path" "$mode" "$owner"
}
rw_backup() {
  local path=$1 dest
  if [[ ! -e $path && ! -L $path ]]; then return 0; fi
  dest="${RW_BACKUP_DIR}${path#"$RW_ROOT"}"
  if [[ $DRY_RUN == 1 ]]; then
    rw_would "back up ${path#"$RW_ROOT"} to ${dest#"$RW_ROOT"}"
    return 0
  fi
  if [[ -e $dest ]]; then return 0; fi
  mkdir -p -- "$(dirname -- "$dest")"
  cp -a -- "$path" "$dest"
  rw_say "    backed up ${path#"$RW_ROOT"} to ${dest#"$RW_ROOT"}"
}
# rw_remember PATH: PATH is about to change; back it up and note how to put it back (rw_undo_files)
rw_remember() {
  local path=$1 e
  rw_backup "$path"
  if [[ $DRY_RUN == 1 ]]; then return 0; fi
  for e in "${RW_UNDO[@]}"; do
    if [[ ${e:1} == "$path" ]]; then return 0; fi
  done
  if [[ -e $path || -L $path ]]; then RW_UNDO+=("f$path"); else RW_UNDO+=("a$path"); fi
}
# rw_undo_files: put every file rw_remember noted in this run back as it was, newest change first
rw_undo_files() {
  local i e path src tmp
  for ((i = ${#RW_UNDO[@]} - 1; i >= 0; i--)); do
    e=${RW_UNDO[i]}
    path=${e:1}
    if [[ ${e:0:1} == a ]]; then
      rm -f -- "$path"
      rw_say "    removed ${path#"$RW_ROOT"} (it did not exist before)"
    else
      src="${RW_BACKUP_DIR}${path#"$RW_ROOT"}"
      tmp=$(mktemp -- "$(dirname -- "$path")/.rocm-wizard.XXXXXX")
      cp -a -- "$src" "$tmp"
      mv -f -- "$tmp" "$path"
      rw_say "    restored ${path#"$RW_ROOT"} from ${src#"$RW_ROOT"}"
    fi
  done
  RW_UNDO=()
}

# rw_with_block FILE BLOCK [USER]: sets RW_NEW to FILE without an earlier rocm-wizard block, then
# BLOCK; with USER (a venv's owner) FILE is read as USER and must be a regular file, not a link, of
# at most 1 MiB (runas.OWNER_FILE_BYTES): root never reads a user's file for them, nor a flood of it
rw_with_block() {
  local line skip=0 text
  RW_NEW=''
  if [[ -n ${3:-} ]]; then
    text=$(rw_user_run "$3" sh -c 'if [ -L "$1" ] || [ ! -f "$1" ]; then exit 3; fi
      [ "$(head -c 1048577 -- "$1" | wc -c)" -le 1048576 ] || exit 4; head -c 1048576 -- "$1" && printf x' sh "$1") ||
      rw_die "cannot read $1 as $3 (a link, not a regular file, larger than 1 MiB, or not readable by $3)"
    text=${text%x}
  else
    text=$(cat -- "$1" && printf x) || rw_die "cannot read $1"
    text=${text%x}
  fi
  while IFS= read -r line || [[ -n $line ]]; do
    if [[ $line == '# >>> rocm-wizard >>>' ]]; then skip=1; continue; fi
    if [[ $line == '# <<< rocm-wizard <<<' ]]; then skip=0; continue; fi
    if [[ $skip == 0 ]]; then RW_NEW+="${line}"$'\n'; fi
  done < <(printf '%s' "$text")
  RW_NEW+=$2
}

# rw_guard_conf FILE LINE USER: sets RW_NEW to the pip.conf FILE (read as USER; none: empty) with
# LINE right below its [global] header, or a new [global] section at the end; unchanged when LINE is
# there; refuses a file that names other constraint files (PipGuard's rule, plan/steps/python.py)
rw_guard_conf() {
  local line text='' placed=0
  local -a lines=()
  RW_NEW=''
  if [[ -e $1 || -L $1 ]]; then
    text=$(rw_user_run "$3" sh -c 'if [ -L "$1" ] || [ ! -f "$1" ]; then exit 3; fi
      [ "$(head -c 1048577 -- "$1" | wc -c)" -le 1048576 ] || exit 4; head -c 1048576 -- "$1" && printf x' sh "$1") ||
      rw_die "cannot read $1 as $3 (a link, not a regular file, larger than 1 MiB, or not readable by $3)"
    text=${text%x}
  fi
  while IFS= read -r line || [[ -n $line ]]; do lines+=("$line"); done < <(printf '%s' "$text")
  for line in "${lines[@]}"; do
    if [[ $line == "$2" ]]; then RW_NEW=$text; return 0; fi
  done
  for line in "${lines[@]}"; do
    if [[ $line =~ ^[[:space:]]*constraints?[[:space:]]*[=:] ]]; then
      rw_die "${1#"$RW_ROOT"} already names constraint files (${line}): add  $2  to it by hand, or plan with --no-guard"
    fi
  done
  for line in "${lines[@]}"; do
    RW_NEW+="${line}"$'\n'
    if [[ $placed == 0 && $line =~ ^[[:space:]]*\[global\][[:space:]]*$ ]]; then RW_NEW+="$2"$'\n'; placed=1; fi
  done
  if [[ $placed == 0 ]]; then RW_NEW+="[global]"$'\n'"$2"$'\n'; fi
}

# ---- apt sources that point at AMD's repositories (RW_URLS holds //host/path prefixes)
rw_is_radeon_line() {
  local line=$1 u
  line=${line#"${line%%[![:space:]]*}"}
  case $line in
    deb[[:space:]]* | deb-src[[:space:]]* | URIs:*) ;;
    *) return 1 ;;
  esac
  for u in "${RW_URLS[@]}"; do
    if [[ $line == *"$u"* ]]; then return 0; fi
  done
  return 1
}
# rw_radeon_files MANAGED...: sets RW_FOUND to the other source files that name an AMD repository
rw_radeon_files() {
  local f line m skip
  RW_FOUND=()
  for f in "$RW_ROOT/etc/apt/sources.list" "$RW_ROOT"/etc/apt/sources.list.d/*.list "$RW_ROOT"/etc/apt/sources.list.d/*.sources; do
    [[ -f $f ]] || continue
    skip=0
    for m in "$@"; do
      if [[ $f == "$RW_ROOT$m" ]]; then skip=1; fi
    done
    [[ $skip == 0 ]] || continue
    while IFS= read -r line || [[ -n $line ]]; do
      if rw_is_radeon_line "$line"; then
        RW_FOUND+=("$f")
        break
      fi
    done <"$f"
  done
}
# rw_disable_radeon FILE: comment out (one-line format) or remove (deb822) its AMD repositories
rw_disable_radeon() {
  local file=$1 line out='' other=0 mode
  if [[ $file == *.sources ]]; then
    while IFS= read -r line || [[ -n $line ]]; do
      case ${line#"${line%%[![:space:]]*}"} in
        URIs:*) if ! rw_is_radeon_line "$line"; then other=1; fi ;;
      esac
    done <"$file"
    if [[ $other == 1 ]]; then
      rw_die "${file#"$RW_ROOT"} names AMD's repositories and others too: edit it by hand, then run this script again"
    fi
    rw_remember "$file"
    if [[ $DRY_RUN == 1 ]]; then rw_would "remove ${file#"$RW_ROOT"}"; else rm -f -- "$file"; fi
    return 0
  fi
  while IFS= read -r line || [[ -n $line ]]; do
    if rw_is_radeon_line "$line"; then
      out+="# disabled by rocm-wizard: ${line}"$'\n'
    else
      out+="${line}"$'\n'
    fi
  done <"$file"
  mode=$(stat -c %a -- "$file")
  rw_remember "$file"
  rw_put "$file" "$mode" "$out"
}

# ---- packages
rw_apt() {
  if [[ -n $RW_ROOT ]]; then "$@" -o "Dir=$RW_ROOT/"; else "$@"; fi
}
# rw_pkg_version NAME: the installed version, empty when not installed
rw_pkg_version() {
  local st='' ver=''
  IFS='|' read -r st ver < <(dpkg-query --admindir="${RW_ROOT}/var/lib/dpkg" -W -f='${db:Status-Abbrev}|${Version}\n' "$1" 2>/dev/null || true) || true
  if [[ $st == ii* ]]; then printf '%s' "$ver"; fi
}
rw_apt_candidate() {
  local line
  while IFS= read -r line; do
    line=${line#"${line%%[![:space:]]*}"}
    if [[ $line == Candidate:* ]]; then
      line=${line#Candidate:}
      line=${line//[[:space:]]/}
      if [[ $line != '(none)' ]]; then printf '%s' "$line"; fi
      return 0
    fi
  done < <(rw_apt apt-cache policy "$1" 2>/dev/null || true)
}
# rw_apt_pick NAME PREFIX: the version apt offers that starts with PREFIX
rw_apt_pick() {
  local name ver rest
  while IFS='|' read -r name ver rest; do
    ver=${ver//[[:space:]]/}
    if [[ -n $ver && $ver == "$2"* ]]; then
      printf '%s' "$ver"
      return 0
    fi
  done < <(rw_apt apt-cache madison "$1" 2>/dev/null || true)
  return 1
}
# rw_pkg_ok NAME PREFIX: installed at PREFIX* (or, with no prefix, at apt's candidate)
rw_pkg_ok() {
  local cur cand
  cur=$(rw_pkg_version "$1")
  if [[ -z $cur ]]; then return 1; fi
  if [[ -n $2 ]]; then [[ $cur == "$2"* ]]; return; fi
  cand=$(rw_apt_candidate "$1")
  [[ -z $cand || $cur == "$cand" ]]
}
# rw_pkg_unpacked NAME: the version whose files are on disk, also when dpkg was cut off before it
# configured the package (unpacked, half-configured...); empty when not installed
rw_pkg_unpacked() {
  local st='' ver=''
  IFS='|' read -r st ver < <(dpkg-query --admindir="${RW_ROOT}/var/lib/dpkg" -W -f='${db:Status-Abbrev}|${Version}\n' "$1" 2>/dev/null || true) || true
  if [[ $st == ?[iUFWtH]* ]]; then printf '%s' "$ver"; fi
}
# rw_apt_update: apt-get update that fails when a repository could not be fetched.  apt exits 0
# after "Err:" / "Failed to fetch" unless given --error-on=any (apt 2.1.16 and later, apt's
# changelog); the output is read as well, for older apt.
RW_APT_FAILED=(Err: 'W: Failed to fetch' 'E: Failed to fetch' 'W: Some index files failed to download' 'E: Some index files failed to download')
rw_apt_update() {
  local -a opts=()
  local v line p rc=0 bad=0
  v=$(rw_pkg_version apt)
  if [[ -n $v ]] && dpkg --compare-versions "$v" ge 2.1.16; then opts=(--error-on=any); fi
  rw_tmp
  rw_run apt-get update "${opts[@]}" 2>&1 | tee -- "$RW_TMP/apt-update.log" >&2 || rc=$?
  while IFS= read -r line; do
    for p in "${RW_APT_FAILED[@]}"; do
      if [[ $line == "$p"* ]]; then bad=1; fi
    done
  done <"$RW_TMP/apt-update.log"
  [[ $rc == 0 && $bad == 0 ]]
}
# rw_dpkg_run CMD...: a package installation; a marker file says a rocm-wizard script started it,
# so that a later run may finish dpkg's work if this one is cut off in the middle
rw_dpkg_run() {
  if [[ $DRY_RUN != 1 ]]; then
    mkdir -p -- "${RW_DPKG_MARK%/*}"
    printf 'plan %s, step %s, %s\n' "$RW_PLAN_ID" "$RW_STEP" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" >"$RW_DPKG_MARK"
  fi
  rw_run "$@"
  if [[ $DRY_RUN != 1 ]]; then rm -f -- "$RW_DPKG_MARK"; fi
}
# rw_apt_install ALLOW N PATTERN*N APT-INSTALL-ARGS...: `apt-get install ARGS`, after asking apt what
# it would remove (`apt-get -s`).  A package no PATTERN (ROCm's) matches stops the script with the
# list, nothing installed or removed, unless ALLOW is 1 (the plan was made with --allow-apt-removals);
# when apt would remove nothing, the install runs with --no-remove (it then cannot remove anything).
rw_apt_install() {
  local allow=$1 n=$2 line name p ours
  shift 2
  local -a pats=("${@:1:n}") removed=() other=() guard=()
  shift "$n"
  if [[ $DRY_RUN == 1 ]]; then
    rw_would "ask apt what it would remove (apt-get -s) before installing; packages that are not ROCm's stop the script unless the plan allows removals"
  else
    while IFS= read -r line; do
      [[ $line == 'Remv '* ]] || continue
      name=${line#Remv }
      name=${name%% *}
      name=${name%%:*}
      removed+=("$name")
      ours=0
      for p in "${pats[@]}"; do
        # shellcheck disable=SC2053
        if [[ $name == $p ]]; then ours=1; fi
      done
      if [[ $ours == 0 ]]; then other+=("$name"); fi
    done < <(apt-get -s -o Debug::NoLocking=1 install "$@" 2>/dev/null || true)
    if [[ ${#other[@]} -gt 0 && $allow != 1 ]]; then
      rw_die "to install these packages apt would remove packages that are not part of ROCm: ${other[*]}. Nothing was installed or removed. See why with  apt-get -s install $*  and to let apt remove them, make the plan again with --allow-apt-removals (answers file: allow_apt_removals = true)"
    fi
    if [[ ${#removed[@]} -gt 0 ]]; then rw_say "    apt removes: ${removed[*]}"; else guard=(--no-remove); fi
  fi
  rw_dpkg_run apt-get install "${guard[@]}" "$@"
}
# rw_dpkg_pending: dpkg has unfinished work: its journal (updates/) is not empty, or a package is
# half-installed, unpacked, half-configured or awaiting triggers (what `dpkg --configure -a` finishes;
# not `dpkg --audit`, which also lists packages that merely ship no md5sums).  RW_DPKG_HALF: those.
RW_DPKG_HALF=()
rw_dpkg_pending() {
  local -a journal=("$RW_ROOT"/var/lib/dpkg/updates/*)
  local st name
  RW_DPKG_HALF=()
  while read -r st name; do
    if [[ $st == ?[HUFWt]* || $st == ??R* ]]; then RW_DPKG_HALF+=("$name"); fi
  done < <(dpkg-query --admindir="${RW_ROOT}/var/lib/dpkg" -W -f='${db:Status-Abbrev} ${binary:Package}\n' 2>/dev/null || true)
  [[ ${#journal[@]} -gt 0 || ${#RW_DPKG_HALF[@]} -gt 0 ]]
}
# rw_dpkg_finish: before the first step.  When a rocm-wizard script was cut off while dpkg worked
# (power loss, kill -9), dpkg's own repair is run: `dpkg --configure -a` finishes the packages that
# run had unpacked (and `apt-get -f install` what they still lack); apt refuses to install anything
# until that is done.  It runs only after the fingerprint matched (this is the system the plan was
# made for; rw_fp_rocm reads the unpacked rocm-core) and only when the marker of rw_dpkg_run shows
# the unfinished work is a rocm-wizard install: anything else is left to the administrator, as
# `rocm-wizard --yes` does, since finishing another tool's transaction is not ours to decide.
rw_dpkg_finish() {
  local rc=0
  RW_STEP='(dpkg)'
  if ! rw_dpkg_pending; then
    # an install that failed (rather than being cut off) leaves its marker: it is done with now
    if [[ $DRY_RUN != 1 && -e $RW_DPKG_MARK ]]; then rm -f -- "$RW_DPKG_MARK" 2>/dev/null || true; fi
    return 0
  fi
  rw_say ''
  if [[ ! -e $RW_DPKG_MARK ]]; then
    rw_die "dpkg has unfinished work (${RW_DPKG_HALF[*]:-its journal in /var/lib/dpkg/updates}) that no rocm-wizard script started, so nothing was changed. Repair it first:  sudo dpkg --configure -a  (then  sudo apt-get -f install), and run this script again."
  fi
  rw_say "==> dpkg was cut off during an earlier run ($(<"$RW_DPKG_MARK")): finishing its work first"
  if [[ $DRY_RUN == 1 ]]; then
    rw_would "dpkg --configure -a (${RW_DPKG_HALF[*]:-its journal}), and apt-get -f install if packages still lack something"
    rw_mark dpkg
    return 0
  fi
  rw_need_root
  rw_run dpkg --configure -a || rc=$?
  if [[ $rc != 0 ]] || rw_dpkg_pending; then
    rw_run apt-get -y -o DPkg::Lock::Timeout=600 -o Dpkg::Options::=--force-confold -f install || true
  fi
  if rw_dpkg_pending; then
    rw_die "dpkg could not finish the interrupted installation (${RW_DPKG_HALF[*]:-its journal}): repair it by hand (sudo dpkg --configure -a; sudo apt-get -f install), then run this script again"
  fi
  rm -f -- "$RW_DPKG_MARK"
  rw_mark dpkg
}
# rw_newer_than REF PATH: PATH, a symbolic link on the way to it or what it points at changed
# (inode change time) after REF was last written
rw_newer_than() {
  local ref=$1 p=$2 n=0 t
  while [[ -e $p || -L $p ]]; do
    if [[ -n $(find -P "$p" -maxdepth 0 -cnewer "$ref" 2>/dev/null) ]]; then return 0; fi
    if [[ ! -L $p || $n -ge 40 ]]; then return 1; fi
    t=$(readlink -- "$p")
    if [[ $t == /* ]]; then p=$RW_ROOT$t; else p=${p%/*}/$t; fi
    n=$((n + 1))
  done
  return 1
}

# ---- OpenPGP keys (gpg in a throw-away home)
rw_gpg() {
  local home rc=0
  home=$(mktemp -d)
  GNUPGHOME=$home gpg --batch --no-tty --quiet "$@" || rc=$?
  rm -rf -- "$home"
  return "$rc"
}
# rw_key_sha1_only FILE: every signature in the key file is made with SHA-1 (digest algo 2); Debian
# 13's sqv rejects such bindings since 2026-02-01 (ROCm/legacy-rocm-build#5619), whatever the fingerprint
rw_key_sha1_only() {
  local algos
  algos=$(rw_gpg --list-packets -- "$1" 2>/dev/null | sed -n 's/.*digest algo \([0-9][0-9]*\),.*/\1/p' | sort -u)
  [[ $algos == 2 ]]
}
# rw_key_is FILE FINGERPRINT: FILE holds exactly that primary public key, neither expired nor
# revoked, and no other primary key and no secret-key packet (the rule of plan/openpgp.py)
rw_key_is() {
  local line f pub=0 found='' n=0 validity=''
  [[ -s $1 ]] || return 1
  while IFS= read -r line; do
    IFS=: read -r -a f <<<"$line"
    case ${f[0]} in
      pub)
        pub=1
        n=$((n + 1))
        validity=${f[1]}
        ;;
      sec | ssb) n=$((n + 2)) ;;
      fpr)
        if [[ $pub == 1 ]]; then found=${f[9]}; fi
        pub=0
        ;;
      *) pub=0 ;;
    esac
  done < <(rw_gpg --with-colons --show-keys -- "$1" 2>/dev/null || true)
  [[ $n == 1 && $found == "$2" && $validity != e && $validity != r ]]
}
# rw_key_export FILE FINGERPRINT DEST: DEST is a binary keyring of that key alone, freshly exported
# by gpg from a throw-away home (what else FILE held -- trust, unknown packets -- is left behind);
# --no-autostart: an import would start gpg-agent, which a system with gpg alone lacks (exit 2)
rw_key_export() {
  local home rc=0
  home=$(mktemp -d)
  GNUPGHOME=$home gpg --batch --no-tty --no-autostart --quiet --import -- "$1" 2>/dev/null || rc=$?
  if [[ $rc == 0 ]]; then GNUPGHOME=$home gpg --batch --no-tty --no-autostart --quiet --yes -o "$3" --export -- "$2" || rc=$?; fi
  rm -rf -- "$home"
  [[ $rc == 0 && -s $3 ]]
}
# rw_auth_has FILE MACHINE LOGIN: the apt auth file has an entry for MACHINE and LOGIN
rw_auth_has() {
  local w1 m w3 l w5 p
  [[ -f $1 ]] || return 1
  while read -r w1 m w3 l w5 p; do
    if [[ $w1 == machine && $w3 == login && $w5 == password && $m == "$2" && $l == "$3" && -n $p ]]; then return 0; fi
  done <"$1"
  return 1
}
# rw_fetch URL DEST [AUTHFILE]: download URL; with AUTHFILE (an apt auth file), the credentials of
# its first entry go to curl through a netrc file of this run (mode 0600), never on a command line
rw_fetch() {
  local -a auth=()
  local w1 m w3 l w5 p host
  if [[ -n ${3:-} && -f $3 ]]; then
    read -r w1 m w3 l w5 p <"$3" || true
    host=${m#*://}
    host=${host%%/*}
    host=${host%:*}
    rw_tmp
    (umask 077 && printf 'machine %s login %s password %s\n' "$host" "$l" "$p" >"$RW_TMP/netrc")
    auth=(--netrc-file "$RW_TMP/netrc")
  fi
  if command -v curl >/dev/null 2>&1; then
    curl -fsSL --retry 3 --proto '=https,http,file' --proto-redir '=https' "${auth[@]}" -o "$2" --url "$1"
  elif [[ ${#auth[@]} -gt 0 ]]; then
    rw_die "cannot download $1 with the mirror's credentials: install curl"
  elif command -v wget >/dev/null 2>&1 && [[ $1 != file:* ]]; then
    # wget cannot limit redirects to https: it follows none (curl does, with --proto-redir)
    wget -q --max-redirect=0 -O "$2" -- "$1"
  else
    rw_die "cannot download $1: install curl"
  fi
}

# ---- users and groups (read from the root's /etc/passwd and /etc/group)
rw_in_group() {
  local user=$1 group=$2 name id gid='' members
  while IFS=: read -r name _ id gid members; do
    if [[ $name == "$user" ]]; then break; fi
    gid=''
  done <"$RW_ROOT/etc/passwd"
  while IFS=: read -r name _ id members; do
    if [[ $name != "$group" ]]; then continue; fi
    if [[ -n $gid && $id == "$gid" ]]; then return 0; fi
    if [[ ,$members, == *",$user,"* ]]; then return 0; fi
    return 1
  done <"$RW_ROOT/etc/group"
  return 1
}
rw_gid() {
  local name id members
  while IFS=: read -r name _ id members; do
    if [[ $name == "$1" ]]; then
      printf '%s' "$id"
      return 0
    fi
  done <"$RW_ROOT/etc/group"
  return 1
}
rw_user_exists() {
  local name rest
  while IFS=: read -r name rest; do
    if [[ $name == "$1" ]]; then return 0; fi
  done <"$RW_ROOT/etc/passwd"
  return 1
}

# ---- Python environments
RW_PY_PINS='import importlib.metadata as m, re, sys
def canon(s):
    return re.sub(r"[-_.]+", "-", s).lower()
def have_dist(n):
    try:
        return m.distribution(n)
    except m.PackageNotFoundError:
        return None
bad = 0
for req in sys.argv[1:]:
    head, _, want = req.partition("==")
    name, _, extras = head.partition("[")
    dist = have_dist(name)
    have = dist.version if dist is not None else None
    if have is None or (have != want and ("+" in want or have.split("+")[0] != want)):
        print("  %s: %s (want %s)" % (name, have or "not installed", want))
        bad = 1
        continue
    provided = set(canon(e) for e in dist.metadata.get_all("Provides-Extra") or [])
    for extra in [canon(e) for e in extras.rstrip("]").split(",") if e.strip()]:
        if extra not in provided:
            print("  %s %s provides no extra %s" % (name, have, extra))
            bad = 1
            continue
        for r in dist.requires or []:
            mk = re.search(r"extra\s*==\s*[\x22\x27]([^\x22\x27]+)", r)
            dep = re.match(r"[A-Za-z0-9._-]+", r)
            if mk and dep and canon(mk.group(1)) == extra and have_dist(dep.group(0)) is None:
                print("  %s[%s]: %s not installed" % (name, extra, dep.group(0)))
                bad = 1
sys.exit(bad)
'
RW_PY_DISTS='import importlib.metadata as m, re, sys
want = set(re.sub(r"[-_.]+", "-", a).lower() for a in sys.argv[1:])
for d in m.distributions():
    n = re.sub(r"[-_.]+", "-", d.metadata["Name"] or "").lower()
    if n in want:
        print(n)'
# rw_pins_ok USER PYTHON REQ...: every NAME[EXTRAS]==VERSION installed exactly, with what its extras
# require (checked as USER, the venv's owner)
rw_pins_ok() {
  local user=$1 py=$2
  shift 2
  [[ -x $RW_ROOT$py ]] || return 1
  rw_user_run "$user" "$py" -c "$RW_PY_PINS" "$@" >&2
}
# rw_dists USER PYTHON NAME...: the names among NAME... installed in that environment (as USER)
rw_dists() {
  local user=$1 py=$2
  shift 2
  if [[ -x $RW_ROOT$py ]]; then rw_user_run "$user" "$py" -c "$RW_PY_DISTS" "$@" 2>/dev/null || true; fi
}
# rw_uv_venv VENV: the venv was made by uv and has no pip (its packages are managed with uv pip)
rw_uv_venv() {
  grep -qE '^uv[[:space:]]*=' "$RW_ROOT$1/pyvenv.cfg" 2>/dev/null || return 1
  ! compgen -G "$RW_ROOT$1/lib/python*/site-packages/pip" >/dev/null
}
rw_pip_install() {
  local owner=$1 py=$2
  shift 2
  if command -v uv >/dev/null 2>&1; then
    rw_as "$owner" uv pip install --python "$py" "$@"
  else
    rw_as "$owner" "$py" -m pip install --disable-pip-version-check --no-input "$@"
  fi
}

# ---- the fingerprint of the system this plan was made for
rw_fp_os() {
  local line id='' ver=''
  if [[ -r $RW_ROOT/etc/os-release ]]; then
    while IFS= read -r line || [[ -n $line ]]; do
      case $line in
        ID=*) id=${line#ID=} ;;
        VERSION_ID=*) ver=${line#VERSION_ID=} ;;
      esac
    done <"$RW_ROOT/etc/os-release"
  fi
  id=${id//[\"\']/}
  ver=${ver//[\"\']/}
  printf '%s %s' "$id" "$ver"
}
rw_fp_kernel() {
  local k=''
  if [[ -r $RW_ROOT/proc/sys/kernel/osrelease ]]; then read -r k <"$RW_ROOT/proc/sys/kernel/osrelease" || true; fi
  printf '%s' "$k"
}
rw_fp_gpus() {
  local d v c id list=()
  for d in "$RW_ROOT"/sys/bus/pci/devices/*; do
    v='' c='' id=''
    read -r v 2>/dev/null <"$d/vendor" || continue
    [[ $v == 0x1002 ]] || continue
    read -r c 2>/dev/null <"$d/class" || continue
    case $c in 0x03* | 0x12*) ;; *) continue ;; esac
    read -r id 2>/dev/null <"$d/device" || continue
    list+=("${id#0x}")
  done
  if [[ ${#list[@]} -gt 0 ]]; then printf '%s\n' "${list[@]}" | sort -u | paste -sd, -; fi
}
rw_fp_rocm() {
  local v=''
  if [[ -r $RW_ROOT/opt/rocm/.info/version ]]; then read -r v <"$RW_ROOT/opt/rocm/.info/version" || true; fi
  if [[ -z $v ]]; then v=$(rw_pkg_unpacked rocm-core); fi
  if [[ -z $v && -r $RW_ROOT/opt/rocm/core/.info/version ]]; then read -r v <"$RW_ROOT/opt/rocm/core/.info/version" || true; fi
  if [[ $v =~ ^([0-9]+\.[0-9]+\.[0-9]+) ]]; then printf '%s' "${BASH_REMATCH[1]}"; else printf 'none'; fi
}
rw_fp_torch() {
  local d name
  for d in "$RW_ROOT$1"/lib/python*/site-packages/torch-*.dist-info; do
    name=${d##*/}
    name=${name#torch-}
    printf '%s' "${name%.dist-info}"
    return 0
  done
  printf 'none'
}
# rw_expect NAME ACTUAL ACCEPTED...
rw_expect() {
  local name=$1 actual=$2 v
  shift 2
  for v in "$@"; do
    if [[ $actual == "$v" ]]; then return 0; fi
  done
  rw_say "  ${name}: this system has '${actual}', the plan was made for '$1'"
  RW_STALE=1
}
RW_PLAN_ID=9430c65d342d

rw_check_fingerprint() {
  rw_expect gpus "$(rw_fp_gpus)" 744c
  rw_expect kernel "$(rw_fp_kernel)" 5.14.0-427.13.1.el9_4.x86_64
  rw_expect os "$(rw_fp_os)" 'rocky 9.4'
  rw_expect rocm "$(rw_fp_rocm)" 6.2.0 none 10.0.0
  if [[ $RW_STALE == 1 ]]; then
    rw_die 'refusing to run: this plan was made for another system, or the system changed since (fingerprint sha256:dbe2eeeeaa15fa91e73f9e3a1dc6ac82). Make a new plan with rocm-wizard --plan-only.'
  fi
}

# why: rpm must trust only the Core SDK's key, checked against its pinned fingerprint, before any AMD package is read
step_01_rocm_core_key() {
  rw_begin 1 rocm-core-key 'Fetch the Core SDK signing key, check its fingerprint, then import it into rpm'
  local url=https://stable.repo.amd.com/rocm/gpg/packages.gpg fpr=D0F004A0025A1145C7807FCD0701EAC4D5E02107 keyfile="${RW_ROOT}"/etc/pki/rpm-gpg/RPM-GPG-KEY-amdrocm rpmname=gpg-pubkey-d5e02107 home rc=0
  if rw_key_is "$keyfile" "$fpr" && rpm -q "$rpmname" >/dev/null 2>&1; then
    rw_ok "${keyfile#"$RW_ROOT"} holds key $fpr; rpm's database holds it ($rpmname)"
    return 0
  fi
  rw_need_root
  if ! rw_key_is "$keyfile" "$fpr"; then
    if [[ $DRY_RUN == 1 ]]; then
      rw_would "download $url, check that it holds only key $fpr, write that key alone to ${keyfile#"$RW_ROOT"}, then rpm --import it"
      rw_mark rocm-core-key
      return 0
    fi
    rw_tmp
    rw_fetch "$url" "$RW_TMP/key"
    if ! rw_key_is "$RW_TMP/key" "$fpr" || ! rw_key_export "$RW_TMP/key" "$fpr" "$RW_TMP/key.gpg" \
      || ! rw_key_is "$RW_TMP/key.gpg" "$fpr"; then
      rw_die "the key downloaded from $url is not exactly key $fpr (another key, a secret-key packet, or it expired or was revoked): nothing was written or imported"
    fi
    # rpm --import reads armoured keys only: armour the checked key in a throw-away gpg home
    home=$(mktemp -d)
    GNUPGHOME=$home gpg --batch --no-tty --no-autostart --quiet --import -- "$RW_TMP/key.gpg" 2>/dev/null || rc=$?
    if [[ $rc == 0 ]]; then GNUPGHOME=$home gpg --batch --no-tty --no-autostart --quiet --yes --armor -o "$RW_TMP/key.asc" --export -- "$fpr" || rc=$?; fi
    rm -rf -- "$home"
    if [[ $rc != 0 ]] || ! rw_key_is "$RW_TMP/key.asc" "$fpr"; then rw_die "could not armour key $fpr: nothing was imported"; fi
    rw_remember "$keyfile"
    mkdir -p -- "$(dirname -- "$keyfile")"
    rw_put_from "$RW_TMP/key.asc" "$keyfile" 0644
  fi
  if ! rpm -q "$rpmname" >/dev/null 2>&1; then
    rw_run rpm --import "${keyfile#"$RW_ROOT"}"
    if [[ $DRY_RUN != 1 ]] && ! rpm -q "$rpmname" >/dev/null 2>&1; then
      rw_die "rpm --import ${keyfile#"$RW_ROOT"} ran, but rpm's database does not hold $rpmname"
    fi
  fi
  rw_mark rocm-core-key
}

# why: dnf must read the Core SDK 10.0 packages from AMD's repository, signatures checked against the checked key (gpgcheck=1)
step_02_rocm_repo() {
  rw_begin 2 rocm-repo 'Register the Core SDK 10.0 repository (/etc/yum.repos.d/amdrocm-stable.repo)'
  local path="${RW_ROOT}"/etc/yum.repos.d/amdrocm-stable.repo content='# ROCm Core SDK 10.0.0 (rhel9) for Rocky Linux 9.4 (Blue Onyx). Written whole by rocm-wizard (issue 26):
# gpgkey is the Core SDK key checked against D0F004A0025A1145C7807FCD0701EAC4D5E02107.

[amdrocm-stable]
name=ROCm Core SDK 10.0
baseurl=https://stable.repo.amd.com/rocm/core/packages/rhel9/x86_64
enabled=1
gpgcheck=1
gpgkey=file:///etc/pki/rpm-gpg/RPM-GPG-KEY-amdrocm
skip_if_unavailable=0
'
  if rw_same "$path" "$content"; then
    rw_ok "${path#"$RW_ROOT"} is as planned"
    return 0
  fi
  rw_need_root
  rw_backup "$path"
  rw_put "$path" 0644 "$content" ''
  rw_mark rocm-repo
}

# why: the legacy packages are removed next: the new repository must answer, signed, with the planned packages first
step_03_repo_check() {
  rw_begin 3 repo-check 'Ask the Core SDK repository for amdrocm-core-sdk10.0-gfx1100 (before anything is removed)'
  if ! rw_changed rocm-core-key rocm-repo; then
    rw_ok 'nothing it depends on changed in this run'
    return 0
  fi
  rw_need_root
  rw_run dnf --refresh --repo=amdrocm-stable list 'amdrocm-core-sdk10.0-gfx1100-10.0.0-*'
  rw_mark repo-check
}

# why: AMD's transition guide removes the legacy rocm-* packages before the Core SDK's are installed
step_04_legacy_remove() {
  rw_begin 4 legacy-remove 'Remove the legacy ROCm packages first (AMD'"'"'s transition guide)'
  local -a patterns=(rocm 'rocm-*' 'hip-*' hipcc 'hsa-*' 'rocblas*' 'rocsolver*' 'rocsparse*' 'rocfft*' 'rocrand*' 'rocprim*' 'rocthrust*' 'rocalution*' 'rocwmma*' rocminfo 'rocprofiler*' 'roctracer*' 'miopen-hip*' 'rccl*' 'hipblas*' 'hipfft*' 'hipsolver*' 'hipsparse*' 'hiprand*' 'hipcub*' 'composablekernel*' comgr amd-smi-lib 'openmp-extras*' half 'migraphx*' 'mivisionx*' 'rpp*')
  local -a todo=()
  local name p out
  while read -r name; do
    for p in "${patterns[@]}"; do
      # shellcheck disable=SC2053
      if [[ $name == $p ]]; then todo+=("$name"); break; fi
    done
  done < <(rpm -qa --qf '%{NAME}\n' | sort -u)
  if [[ ${#todo[@]} -eq 0 ]]; then
    rw_ok 'no legacy ROCm package is installed'
    return 0
  fi
  rw_say "    removes: ${todo[*]}"
  rw_need_root
  if ! out=$(rpm -e --test "${todo[@]}" 2>&1); then
    rw_die "removing ${todo[*]} would break what needs them; nothing was removed: $(printf '%s\n' "$out" | sed -n 's/.*is needed by (installed) //p' | sort -u | tr '\n' ' ')"
  fi
  rw_run dnf -y remove --noautoremove "${todo[@]}"
  if [[ $DRY_RUN != 1 ]]; then
    while read -r name; do
      for p in "${todo[@]}"; do if [[ $p == "$name" ]]; then rw_die "$name is still installed"; fi; done
    done < <(rpm -qa --qf '%{NAME}\n')
  fi
  rw_mark legacy-remove
}

# why: the versioned amdrocm package(s) of 10.0.0, never the unversioned pointer, so the installed release is the one chosen
step_05_rocm_packages() {
  rw_begin 5 rocm-packages 'Install ROCm 10.0.0 (amdrocm-core-sdk10.0-gfx1100)'
  local -a rows=('name	amdrocm-core-sdk10.0-gfx1100	10.0.0-*')
  local -a related=('rocm*' 'rocblas*' 'rocfft*' 'rocrand*' 'rocsolver*' 'rocsparse*' 'rocthrust*' 'rocprim*' 'roctracer*' 'rocprofiler*' 'rocalution*' 'rocwmma*' 'rocdecode*' 'rocjpeg*' 'rocal*' 'rocshmem*' 'hip*' 'hsa*' 'amd-smi*' 'amdgpu*' 'amdrocm*' 'comgr*' 'openmp-extras*' 'miopen*' 'migraphx*' 'mivisionx*' 'rccl*' 'rpp*' half 'composablekernel*' 'mesa-amdgpu*' 'libdrm-amdgpu*' 'libdrm2-amdgpu*' 'librocm*' 'librocblas*' 'librocfft*' 'librocrand*' 'librocsolver*' 'librocsparse*' 'libroctracer*' 'libhip*' 'libamdhip*' 'libhsa*' 'librccl*' 'libmiopen*' 'libamd-comgr*')
  local -a specs=()
  local row kind what want have ok name removals unasked='' pat
  # the versions and ROCm's package names are glob patterns: == matches them unquoted
  # shellcheck disable=SC2053
  for row in "${rows[@]}"; do
    IFS=$'\t' read -r kind what want <<<"$row"
    ok=0
    if [[ $kind == provides ]]; then
      # rpm -q --whatprovides takes a name only: the providers' Provides lines say the version
      if rpm -q --whatprovides "$what" --provides 2>/dev/null | grep -qxF -- "$what = $want"; then ok=1; fi
      if [[ $ok == 0 ]]; then specs+=("$what = $want"); fi
    else
      for have in $(rpm -q "$what" --qf '%{VERSION}-%{RELEASE}\n' 2>/dev/null || true); do
        if [[ -z $want || $have == $want ]]; then ok=1; fi
      done
      if [[ $ok == 0 ]]; then if [[ -n $want ]]; then specs+=("$what-$want"); else specs+=("$what"); fi; fi
    fi
  done
  if [[ ${#specs[@]} == 0 ]]; then
    rw_ok "installed"
    return 0
  fi
  rw_need_root
  if [[ $DRY_RUN == 1 ]]; then
    rw_would "dnf install ${specs[*]}"
    rw_mark rocm-packages
    return 0
  fi
  # the transaction first, changing nothing: what would dnf remove?
  removals=$(dnf --refresh --assumeno --setopt=install_weak_deps=False install "${specs[@]}" 2>&1 \
    | awk '/^[^ ].*:$/ {s=tolower($0); next} $1 == "replacing" {n=$2; sub(/\.[^.]*$/, "", n); print n; next} s ~ /^(removing|erasing)/ && NF >= 5 {print $1}' || true)
  # shellcheck disable=SC2053
  for name in $removals; do
    ok=0; for pat in "${related[@]}"; do if [[ $name == $pat ]]; then ok=1; fi; done
    if [[ $ok == 0 ]]; then unasked+=" $name"; fi
  done
  if [[ -n $unasked ]]; then
    rw_die "dnf would remove$unasked to install ${specs[*]}; nothing was changed (plan again with --allow-apt-removals after reading that list)"
  fi
  dnf -y --setopt=install_weak_deps=False install "${specs[@]}"
  # shellcheck disable=SC2053
  for row in "${rows[@]}"; do
    IFS=$'\t' read -r kind what want <<<"$row"
    if [[ $kind == provides ]]; then rpm -q --whatprovides "$what" --provides 2>/dev/null | grep -qxF -- "$what = $want" || rw_die "after dnf install, nothing provides $what = $want"; continue; fi
    ok=0
    for have in $(rpm -q "$what" --qf '%{VERSION}-%{RELEASE}\n' 2>/dev/null || true); do
      if [[ -z $want || $have == $want ]]; then ok=1; fi
    done
    if [[ $ok == 0 ]]; then rw_die "after dnf install, $what is not at ${want:-any version} (another repository won?)"; fi
  done
  rw_mark rocm-packages
}

# why: AMD's packages register every installed release for /opt/rocm/core and the newest wins by priority, so the link is checked to lead to the release chosen
step_06_core_alternative() {
  rw_begin 6 core-alternative 'Check that /opt/rocm/core leads to ROCm 10.0.0'
  local link="${RW_ROOT}"/opt/rocm/core dest=/opt/rocm/core-10.0 vfile="${RW_ROOT}"/opt/rocm/core-10.0/.info/version version=10.0.0 name=core here v
  here=$(readlink -f -- "$link" 2>/dev/null || true); here=${here#"$RW_ROOT"}
  v=$(cat -- "$vfile" 2>/dev/null || true); v=${v%%-*}
  if [[ $here == "$dest" && $v == "$version" ]]; then
    rw_ok "${link#"$RW_ROOT"} -> $dest ($version)"
    return 0
  fi
  if [[ $DRY_RUN == 1 ]]; then
    rw_would "check ${link#"$RW_ROOT"} -> $dest once the packages are installed"
    rw_mark core-alternative
    return 0
  fi
  rw_need_root
  if [[ ! -d $RW_ROOT$dest ]]; then rw_die "$dest does not exist: the packages did not install $version"; fi
  if [[ $here != "$dest" ]]; then rw_run update-alternatives --set "$name" "$dest"; fi
  here=$(readlink -f -- "$link" 2>/dev/null || true); here=${here#"$RW_ROOT"}
  v=$(cat -- "$vfile" 2>/dev/null || true); v=${v%%-*}
  if [[ $here != "$dest" || $v != "$version" ]]; then rw_die "${link#"$RW_ROOT"} leads to $here (version $v), not $dest ($version)"; fi
  rw_mark core-alternative
}

# why: the GPU user reaches the GPU's device files only as a member of the render and video groups
step_07_gpu_groups() {
  rw_begin 7 gpu-groups 'Let the GPU user use the GPU (render and video groups)'
  local user=dev g
  local -a groups=(render video)
  local -a missing=()
  # the user chosen when the plan was made; the one who runs sudo only when the plan names none
  if [[ -z $user ]]; then user=${SUDO_USER:-}; fi
  if [[ -z $user || $user == root ]]; then
    rw_ok 'no user to add (root needs no group membership)'
    return 0
  fi
  if ! rw_user_exists "$user"; then
    if [[ $DRY_RUN == 1 ]]; then
      rw_would "stop here: user $user does not exist (accounts are never created)"
      return 0
    fi
    rw_die "user $user does not exist on this system: this script adds an existing account to render,video and never creates one; create it (adduser $user) or make the plan again with --user NAME"
  fi
  for g in "${groups[@]}"; do
    if ! rw_gid "$g" >/dev/null; then
      rw_warn "group $g does not exist on this system; skipped"
      continue
    fi
    if ! rw_in_group "$user" "$g"; then missing+=("$g"); fi
  done
  if [[ ${#missing[@]} -eq 0 ]]; then
    rw_ok "$user is in ${groups[*]}"
    return 0
  fi
  if [[ $DRY_RUN != 1 && $EUID -ne 0 ]]; then
    rw_warn "$user is not in ${missing[*]}: run  sudo usermod -a -G $(IFS=,; printf '%s' "${missing[*]}") $user"
    return 0
  fi
  rw_run usermod -a -G "$(IFS=,; printf '%s' "${missing[*]}")" "$user"
  rw_say "    $user must log out and in again (or reboot) for the new groups to apply"
  rw_mark gpu-groups
}

rw_main() {
  if [[ -n $RW_ROOT && $DRY_RUN != 1 ]]; then
    rw_die 'RW_ROOT is only for dry runs; to change another root, run this script inside it (chroot)'
  fi
  rw_say 'rocm-wizard: Upgrade ROCm to the Core SDK 10.0.0 from AMD'"'"'s rpm repository (rhel9)'" (plan $RW_PLAN_ID)"
  if [[ $DRY_RUN == 1 ]]; then rw_say 'DRY_RUN=1: showing what would be done; nothing is changed'; fi
  rw_check_fingerprint
  step_01_rocm_core_key
  step_02_rocm_repo
  step_03_repo_check
  step_04_legacy_remove
  step_05_rocm_packages
  step_06_core_alternative
  step_07_gpu_groups
  RW_STEP='(end)'
  rw_say ''
  if [[ $DRY_RUN == 1 ]]; then
    if [[ $RW_NCHANGED -gt 0 ]]; then
      rw_say "dry run: ${RW_NCHANGED} step(s) would change the system"
      exit 2
    fi
    rw_say 'dry run: nothing to do'
    exit 0
  fi
  rw_say "done: ${RW_NCHANGED} step(s) changed the system, ${RW_WARNINGS} warning(s)"
  if [[ -e /run/reboot-required ]]; then rw_say 'a reboot is needed before the new kernel driver is used'; fi
}

rw_main "$@"
