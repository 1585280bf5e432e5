#!/usr/bin/env bash
# rocm-wizard plan: Reinstall torch 2.4.1+rocm6.1 in /home/dev/train/.venv
# path: torch-reinstall   plan id: 2e501b5920d7   format: 1   rocm-wizard @VERSION@
# made for: Ubuntu 22.04.4 LTS, kernel 6.5.0-45-generic; AMD Radeon RX 7900 XT (gfx1100); ROCm 6.2.0; torch 2.5.1+rocm6.2 in /home/dev/train/.venv
# system fingerprint: sha256:a46aafb1153d5437597b99460fa64b79
#   gpus: 744c
#   kernel: 6.5.0-45-generic
#   os: ubuntu 22.04
#   torch: 2.5.1+rocm6.2 | 2.4.1+rocm6.1
#
# Run:      sudo bash THIS-FILE        (steps that are already done are skipped)
# Dry run:  DRY_RUN=1 bash THIS-FILE   (changes nothing; exit 2 = changes pending, 0 = nothing to do)
# It refuses to run on another system, or when the system changed since the plan was made.
#
# Steps:
#    1. Save the package list of /home/dev/train/.venv
#         why: the venv is changed in place, so its pip freeze is saved first to show and restore what it had
#    2. Guard the venv: pip and uv keep this torch build (torch==2.4.1+rocm6.1, torchvision==0.19.1+rocm6.1, torchaudio==2.4.1+rocm6.1, ...)
#         why: the guard goes in before the install, so the plan's own pip runs satisfy its pins and no later install can swap this torch for PyPI's CUDA or CPU build
#    3. Remove stray Triton distributions
#         why: every Triton distribution installs the same triton/ directory, so any other than the one torch requires overwrites its files
#    4. Install torch 2.4.1+rocm6.1 and its exact companions
#         why: torch 2.4.1+rocm6.1, torchvision, torchaudio and the Triton build torch requires come as exact pins from one index, so none of them is mixed from another build
#    5. Persist TORCH_BLAS_PREFER_HIPBLASLT=0, UV_CONSTRAINT=/home/dev/train/.venv/rocm-wizard-guard.txt for the venv's users
#         why: the venv's users get these variables whenever they activate it: TORCH_BLAS_PREFER_HIPBLASLT=0 is persisted because gfx1100 is not on the hipBLASLt list of torch 2.4.1's rocm6.1 wheels, and hard hipBLASLt errors were reported on GPUs off that list (pytorch/pytorch#138067); it only makes PyTorch use hipBLAS instead, so it cures no error of hipBLAS itself (such as HIPBLAS_STATUS_ALLOC_FAILED); UV_CONSTRAINT makes uv keep the guard's pins (uv reads it, not pip.conf)
#    6. Check the venv's other packages against the new torch
#         why: a new torch may not satisfy the requirements of the venv's other packages; pip check says so now rather than at run time
#    7. Let the GPU user use the GPU (render and video groups)
#         why: the GPU user reaches the GPU's device files only as a member of the render and video groups
# Note: TORCH_BLAS_PREFER_HIPBLASLT=0 is persisted because gfx1100 is not on the hipBLASLt list of torch 2.4.1's rocm6.1 wheels, and hard hipBLASLt errors were reported on GPUs off that list (pytorch/pytorch#138067); it only makes PyTorch use hipBLAS instead, so it cures no error of hipBLAS itself (such as HIPBLAS_STATUS_ALLOC_FAILED)
# Note: the venv is guarded: pip (its pip.conf) and uv (UV_CONSTRAINT in bin/activate) keep torch==2.4.1+rocm6.1 and its companions (/home/dev/train/.venv/rocm-wizard-guard.txt); --no-guard leaves it out

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
RW_PLAN_ID=2e501b5920d7
# the owner rule (rocm_wizard/ownerrule.py as it is), run by rw_venv_user
RW_OWNER_RULE='"""The owner rule: whom a root run may run a venv'"'"'s interpreter as, judged on what Python will read.

This module is the one description of the rule.  It uses the standard library only and runs on
its own, so that the executor and ``verify`` import it, and the generated shell script and the
Ansible playbook run this very source with the host'"'"'s ``/usr/bin/python3 -I -S`` (see
:data:`SOURCE` and :func:`main`): the three cannot disagree.

Everything is opened with ``O_PATH|O_NOFOLLOW`` one component at a time, walked from ``/`` with
``openat`` (``dir_fd``); a symbolic link is read where it is (``readlinkat``) and its target
walked the same way, so every directory on the way -- the link'"'"'s included -- is judged, and no
name is looked up twice.  What is judged, for a venv:

* every directory from ``/`` down to the venv (its *ancestors*), on the path as given and on the
  way to every link'"'"'s target;
* the venv directory, ``bin/``, ``pyvenv.cfg``, ``bin/python`` and what it resolves to;
* ``lib*/python*/site-packages`` and every entry in it (``.pth`` files run at each start,
  package directories are imported from there);
* the standard library the venv starts with: ``home`` of ``pyvenv.cfg`` and
  ``<home>/../lib/pythonX.Y`` with its entries (a ``--copies`` venv of a user'"'"'s own build runs
  that user'"'"'s ``site.py``);
* when the venv includes the system'"'"'s packages (``include-system-site-packages`` true or absent in
  the ``pyvenv.cfg`` CPython reads, ``bin/pyvenv.cfg`` first): the site directories of the base
  prefix (:func:`system_site_dirs`) with every directory on the way to each, also to one not made
  yet, and each entry (role ``system``: a non-root owner there is refused, never made the runner),
  and the user site of the ``HOME`` it starts with; ``judge_interpreter`` judges its own prefix'"'"'s.

A group'"'"'s write counts as root'"'"'s only when it is a system group no account but root holds
(:func:`root_only_group`: Debian'"'"'s ``staff`` of ``/etc/staff-group-for-usr-local``).

For each of them: its owner, and who can write it -- the group (when it is not root'"'"'s), others,
and any POSIX ACL grant of write (``system.posix_acl_access``) to a named user or group.  A
directory above the venv with the sticky bit (``/tmp``) lets no one but an entry'"'"'s owner replace
it, so only its owner counts there.  The verdict:

* the venv'"'"'s owner is the owner of the venv directory; anything of the venv itself (its
  directory, ``bin``, ``pyvenv.cfg``, ``site-packages`` and its entries) that belongs to a third
  account is refused (running it as either would run the other'"'"'s code);
* anything outside the venv (ancestors, link targets, the standard library) that belongs to a
  non-root user makes that user the one who runs a root venv (``sudo python3 -m venv ~/venv``
  runs as the home'"'"'s owner); with a non-root venv owner, a second such account is refused;
* when the verdict is root, nothing judged may be writable by anyone but root: a group other than
  root'"'"'s, others, or an ACL grant is refused, naming the path and the fix (``chmod g-w``,
  ``chmod o-w``, ``setfacl -b``);
* an owner without an account is refused.

Why the check and the start cannot be raced (finding 2 of issue 27): root runs an interpreter only
when every object on its path -- every directory from ``/``, every link, the venv and what Python
reads from it -- belongs to root and only root can write it; then no one else can rename, swap or
relink anything between this judgement and the start, so starting it by the same path starts what
was judged.  Whenever another user could (a directory of theirs above the venv, a link of theirs),
the verdict is that user, so a swap only ever runs their own code as themselves.  On top of that,
``verify`` starts a venv root runs through the venv directory this walk opened, held by the
launcher (``/proc/<pid>/fd/D/bin/python``: ``runas.hold_venv``), so what runs is what was judged;
the executor starts pip by path (pip writes ``sys.executable`` into console scripts).  The whole
argument, each premise pinned by a test: docs/ARCHITECTURE.md, "Exec through the checked
descriptor".
"""
from __future__ import annotations

import errno
import os
import stat
import struct
import sys

O_PATH = getattr(os, "O_PATH", 0)
ACL_XATTR = "system.posix_acl_access"
ACL_USER, ACL_GROUP_OBJ, ACL_GROUP, ACL_MASK = 0x02, 0x04, 0x08, 0x10
ACL_WRITE = 0x02
MAX_LINKS = 40
MAX_ENTRIES = 20000  # entries of one directory judged (site-packages, the standard library)


class RuleError(Exception):
    """The venv or interpreter cannot be run safely by a root run; the message says why and the fix."""


def acl_writers(data):
    """(uids, gids) a ``system.posix_acl_access`` value grants write to (named entries and the
    owning group, each within the mask), and whether the owning group'"'"'s entry allows write."""
    uids, gids, group_obj, mask = set(), set(), None, None
    named = []
    if len(data) < 4:
        return uids, gids, None
    for off in range(4, len(data) - 7, 8):
        tag, perm, ident = struct.unpack_from("<HHI", data, off)
        if tag == ACL_MASK:
            mask = perm
        elif tag == ACL_GROUP_OBJ:
            group_obj = perm
        elif tag in (ACL_USER, ACL_GROUP):
            named.append((tag, perm, ident))
    limit = ACL_WRITE if mask is None else mask
    for tag, perm, ident in named:
        if perm & ACL_WRITE and limit & ACL_WRITE:
            (uids if tag == ACL_USER else gids).add(ident)
    group_w = None if group_obj is None else bool(group_obj & ACL_WRITE and limit & ACL_WRITE)
    return uids, gids, group_w


def _read_acl(fd, path):
    for where in ("/proc/self/fd/%d" % fd, path):
        try:
            return os.getxattr(where, ACL_XATTR)
        except OSError as exc:
            if exc.errno in (errno.ENODATA, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EPERM):
                return b""
            if where != path and exc.errno in (errno.ENOENT, errno.EBADF):
                continue  # no /proc: ask by path (only the judgement reads it that way)
            return b""
    return b""


SYS_GID_MAX = 999  # Debian/Ubuntu'"'"'s SYS_GID_MAX (login.defs): groups made for the system, not for people


def group_holders(gid):
    """The accounts other than root that hold the group ``gid`` (listed members and accounts whose
    primary group it is), as names; None when the account databases cannot be read."""
    try:
        import grp
        import pwd

        members = set(grp.getgrgid(gid).gr_mem)
        members.update(p.pw_name for p in pwd.getpwall() if p.pw_gid == gid)
    except (ImportError, KeyError, OSError):
        return None
    members.discard("root")
    for name in list(members):
        try:
            if pwd.getpwnam(name).pw_uid == 0:
                members.discard(name)
        except KeyError:
            pass
    return members


def root_only_group(gid):
    """Whether write by the group ``gid`` is write by root alone: a system group (gid up to
    :data:`SYS_GID_MAX`) that no account but root holds, such as Debian'"'"'s ``staff`` (gid 50) of
    ``/usr/local`` made ``root:staff 2775`` by ``/etc/staff-group-for-usr-local``, while no one was
    added to it.  Anyone added to it later makes the same directory refused at the next run."""
    holders = group_holders(gid) if 0 < gid <= SYS_GID_MAX else None
    return holders is not None and not holders


class Item:
    """One judged path: its stat, its ACL, and where it sits (``venv``: part of the venv itself;
    ``ancestor``: a directory only passed through; ``outside``: anything else Python reads)."""

    def __init__(self, path, st, acl, role):
        self.path, self.st, self.acl, self.role = path, st, acl, role

    def writers(self):
        """Who besides the owner can change it: [(kind, id, fix)] with kind user/group/others."""
        st = self.st
        if stat.S_ISLNK(st.st_mode):
            return []
        out = []
        uids, gids, group_w = acl_writers(self.acl) if self.acl else (set(), set(), None)
        if self.role in ("ancestor", "sysancestor") and st.st_mode & stat.S_ISVTX:
            return []  # sticky: only an entry'"'"'s owner (judged as that entry) may replace it
        gw = group_w if group_w is not None else bool(st.st_mode & stat.S_IWGRP)
        if gw and st.st_gid != 0 and not root_only_group(st.st_gid):
            out.append(("group", st.st_gid, "chmod g-w %s" % self.path))
        if st.st_mode & stat.S_IWOTH:
            out.append(("others", None, "chmod o-w %s" % self.path))
        for uid in sorted(uids):
            if uid != st.st_uid and uid != 0:
                out.append(("user", uid, "setfacl -b %s" % self.path))
        for gid in sorted(gids):
            if gid != 0 and not root_only_group(gid):
                out.append(("group", gid, "setfacl -b %s" % self.path))
        return out


class Walker:
    """Opens paths one component at a time from ``/`` (or a directory fd it holds) with
    ``O_PATH|O_NOFOLLOW``, recording every object it passes (:class:`Item`)."""

    def __init__(self):
        self.items = []
        self.fds = []
        self.venv_fd = None

    def close(self):
        for fd in self.fds:
            try:
                os.close(fd)
            except OSError:
                pass
        self.fds = []

    def _keep(self, fd):
        self.fds.append(fd)
        return fd

    def _note(self, fd, path, role, st=None):
        st = st or os.fstat(fd)
        acl = b"" if stat.S_ISLNK(st.st_mode) else _read_acl(fd, path)
        self.items.append(Item(path, st, acl, role))
        return st

    def root(self, role="ancestor"):
        fd = self._keep(os.open("/", O_PATH | os.O_DIRECTORY))
        self._note(fd, "/", role)
        return fd, "/"

    def walk(self, path, role, start=None, follow=True):
        """The fd (O_PATH) of ``path`` (absolute, or relative to ``start`` = (fd, shown path)),
        every directory passed judged as ``ancestor`` (``role`` for those inside the venv when
        ``role`` is ``venv``), the last one as ``role``.  Raises OSError."""
        if path.startswith("/") or start is None:
            fd, shown = self.root("sysancestor" if role == "system" else
                                  "ancestor" if role != "venv" or start is None else role)
        else:
            fd, shown = start
        parts = [p for p in path.split("/") if p not in ("", ".")]
        links = 0
        inner = "venv" if role == "venv" and start is not None and not path.startswith("/") else "ancestor"
        if role == "system":
            inner = "sysancestor"
        while parts:
            name = parts.pop(0)
            nfd = self._keep(os.open(name, O_PATH | os.O_NOFOLLOW, dir_fd=fd))
            here = os.path.join(shown, name) if name != ".." else os.path.dirname(shown.rstrip("/")) or "/"
            st = os.fstat(nfd)
            last = not parts
            if stat.S_ISLNK(st.st_mode) and (follow or not last):
                links += 1
                if links > MAX_LINKS:
                    raise OSError(errno.ELOOP, "too many links", here)
                self._note(nfd, here, "outside" if role == "venv" else role, st)  # a link is on the way
                target = os.readlink(name, dir_fd=fd)
                parts = [p for p in target.split("/") if p not in ("", ".")] + parts
                if target.startswith("/"):
                    fd, shown = self.root("sysancestor" if role == "system" else "ancestor")
                    inner = "sysancestor" if role == "system" else "ancestor"
                continue
            self._note(nfd, here, role if last else inner, st)
            fd, shown = nfd, here
        return fd, shown

    def entries(self, dfd, shown, role):
        """Judge every entry of the directory ``dfd`` (links followed the same way)."""
        try:
            lfd = os.open(".", os.O_RDONLY | os.O_DIRECTORY, dir_fd=dfd)
        except OSError:
            return
        try:
            names = sorted(os.listdir(lfd))[:MAX_ENTRIES]
        finally:
            os.close(lfd)
        for name in names:
            mark = len(self.fds)
            try:
                self.walk(name, role, start=(dfd, shown), follow=True)
            except OSError:
                pass
            self.release(mark)

    def release(self, mark):
        """Close the fds opened since ``mark`` (what was judged stays in :attr:`items`)."""
        extra, self.fds = self.fds[mark:], self.fds[:mark]
        for fd in extra:
            try:
                os.close(fd)
            except OSError:
                pass

    def listdir(self, dfd):
        try:
            lfd = os.open(".", os.O_RDONLY | os.O_DIRECTORY, dir_fd=dfd)
        except OSError:
            return []
        try:
            return sorted(os.listdir(lfd))
        finally:
            os.close(lfd)


def _read_cfg(w, vfd, exe_dir="bin"):
    """The ``pyvenv.cfg`` CPython reads: ``bin/pyvenv.cfg`` first (beside the executable), then the
    venv'"'"'s own; {} when there is none."""
    for name in (exe_dir + "/pyvenv.cfg", "pyvenv.cfg"):
        try:
            fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW, dir_fd=vfd)
        except OSError:
            continue
        if stat.S_ISREG(os.fstat(fd).st_mode):
            break
        os.close(fd)
    else:
        return {}
    try:
        data = os.read(fd, 65536).decode("utf-8", "replace")
    finally:
        os.close(fd)
    out = {}
    for line in data.splitlines():
        key, eq, value = line.partition("=")
        if eq:
            out[key.strip().lower()] = value.strip()
    return out


def _standard_library(w, cfg):
    """Judge ``home`` of pyvenv.cfg and the standard library beside it (role ``outside``)."""
    home = cfg.get("home")
    if not home or not home.startswith("/"):
        return
    try:
        w.walk(home, "outside")
    except OSError:
        return
    prefix = os.path.dirname(home.rstrip("/")) or "/"
    version = cfg.get("version_info") or cfg.get("version") or ""
    want = "python" + ".".join(version.split(".")[:2]) if version.count(".") >= 1 else None
    for lib in ("lib", "lib64"):
        try:
            lfd, lshown = w.walk(os.path.join(prefix, lib), "outside")
        except OSError:
            continue
        for name in w.listdir(lfd):
            if (name == want) or (want is None and name.startswith("python3")):
                try:
                    sfd, sshown = w.walk(name, "outside", start=(lfd, lshown))
                except OSError:
                    continue
                w.entries(sfd, sshown, "outside")


def system_site_on(cfg):
    """Whether CPython'"'"'s ``site`` adds the system'"'"'s site directories to a venv with this
    ``pyvenv.cfg``: ``include-system-site-packages`` is read as true unless it says ``false`` (an
    absent key is true, as in ``site.venv``)."""
    return cfg.get("include-system-site-packages", "true").lower() == "true"


def system_site_dirs(prefix, version=None, home_dir=None):
    """Every directory the ``site`` module of a Python installed under ``prefix`` may put on
    ``sys.path`` (a superset: upstream'"'"'s ``lib*/pythonX.Y/site-packages``, Debian'"'"'s
    ``local/lib/pythonX.Y/dist-packages``, ``lib/python3/dist-packages`` and
    ``lib*/pythonX.Y/dist-packages``, Fedora'"'"'s ``/usr/local/lib*/pythonX.Y/site-packages``), and the
    user site under ``home_dir`` (``~/.local/lib/pythonX.Y/site-packages``: ``site`` keeps it on for a
    venv that includes the system'"'"'s packages).  ``version`` is "X.Y"; None means every python3.*
    directory found."""
    xy = ["python" + version] if version else None
    out = []
    for base in (prefix, os.path.join(prefix, "local")):
        for lib in ("lib", "lib64"):
            libdir = os.path.join(base, lib)
            names = xy
            if names is None:
                try:
                    names = sorted(n for n in os.listdir(libdir) if n.startswith("python3."))
                except OSError:
                    names = []
            for name in names:
                for leaf in ("site-packages", "dist-packages"):
                    out.append(os.path.join(libdir, name, leaf))
        out.append(os.path.join(base, "lib", "python3", "dist-packages"))
    if home_dir:
        for name in xy or ["python3"]:
            out.append(os.path.join(home_dir, ".local", "lib", name, "site-packages"))
    seen, uniq = set(), []
    for d in out:
        if d not in seen:
            seen.add(d)
            uniq.append(d)
    return uniq


def _user_base():
    """The user base the interpreter started here would read (``PYTHONUSERBASE`` or ``~/.local``)."""
    base = os.environ.get("PYTHONUSERBASE")
    if base:
        return base
    home = os.path.expanduser("~")
    return home if home.startswith("/") else None


def _version_xy(cfg):
    version = cfg.get("version_info") or cfg.get("version") or ""
    parts = version.split(".")
    return ".".join(parts[:2]) if len(parts) >= 2 and all(p.isdigit() for p in parts[:2]) else None


def _system_site(w, prefix, version):
    """Judge the system'"'"'s site directories of ``prefix`` (role ``system``): every directory on the
    way to each -- also to one that does not exist yet, whoever can create it chooses what is
    imported --, the directory and each entry (``.pth`` files, packages)."""
    base = _user_base()
    user_dirs = set(system_site_dirs("/nonexistent", version, base)) - set(system_site_dirs("/nonexistent", version))
    for d in system_site_dirs(prefix, version, base):
        mark = len(w.fds)
        try:
            dfd, dshown = w.walk(d, "system" if d not in user_dirs else "outside")
        except OSError:
            w.release(mark)
            continue
        if stat.S_ISDIR(os.fstat(dfd).st_mode):
            w.entries(dfd, dshown, "system" if d not in user_dirs else "outside")
        w.release(mark)


def collect_venv(venv, exe_dir="bin"):
    """The :class:`Walker` that judged the venv at ``venv`` and the venv directory'"'"'s stat.
    ``exe_dir``: the directory of ``venv`` the interpreter is started from (CPython'"'"'s ``site``
    takes the directory above the executable'"'"'s as ``sys.prefix`` whichever of the two holds the
    ``pyvenv.cfg`` it reads)."""
    w = Walker()
    vfd, vshown = w.walk(os.path.abspath(venv), "venv")
    w.venv_fd = vfd  # what was judged: hold_venv starts the interpreter through it
    vst = os.fstat(vfd)
    if not stat.S_ISDIR(vst.st_mode):
        raise OSError(errno.ENOTDIR, "not a directory", venv)
    for rel in ("bin", "pyvenv.cfg", "bin/python") + ((exe_dir,) if exe_dir != "bin" else ()):
        try:
            w.walk(rel, "venv", start=(vfd, vshown))
        except OSError:
            pass
    for lib in ("lib", "lib64"):
        try:
            lfd, lshown = w.walk(lib, "venv", start=(vfd, vshown))
        except OSError:
            continue
        for name in w.listdir(lfd):
            if not name.startswith("python"):
                continue
            try:
                pfd, pshown = w.walk(name, "venv", start=(lfd, lshown))
                sfd, sshown = w.walk("site-packages", "venv", start=(pfd, pshown))
            except OSError:
                continue
            w.entries(sfd, sshown, "venv")
    try:
        w.walk(exe_dir + "/pyvenv.cfg", "venv", start=(vfd, vshown))
    except OSError:
        pass
    cfg = _read_cfg(w, vfd, exe_dir)
    _standard_library(w, cfg)
    if system_site_on(cfg):  # the system'"'"'s site-packages are imported too: judged like the venv'"'"'s own
        home = cfg.get("home") if cfg else None
        if home and home.startswith("/"):
            prefix = os.path.dirname(home.rstrip("/")) or "/"
        else:  # no pyvenv.cfg: bin/python is a plain interpreter, with its own prefix'"'"'s packages
            prefix = os.path.dirname(os.path.dirname(os.path.realpath(os.path.join(venv, "bin", "python"))))
        _system_site(w, prefix, _version_xy(cfg))
    return w, vst


def _who(uid, name_of):
    return "root" if uid == 0 else (name_of(uid) or "user id %d" % uid)


def verdict(items, venv_uid, name_of, shown, kind="venv"):
    """The account that runs it (see the module'"'"'s rules), from the judged ``items``; raises
    :class:`RuleError`."""
    venv_name = _who(venv_uid, name_of) if venv_uid is not None else None
    if venv_uid not in (None, 0) and not name_of(venv_uid):
        raise RuleError("the %s %s belongs to user id %d, which has no account here: rocm-wizard runs a venv'"'"'s "
                        "interpreter as its owner, never as root; give the venv to an existing user "
                        "(chown -R USER %s)" % (kind, shown, venv_uid, shown))
    runner = venv_uid or 0
    for it in items:
        uid = it.st.st_uid
        if uid in (0, runner) or (it.role == "venv" and uid == venv_uid):
            continue
        if it.role in SYSTEM_ROLES and runner == 0:
            raise RuleError("%s belongs to %s and the %s %s imports from it as root (the system'"'"'s site-packages): "
                            "rocm-wizard will not run it as root (%s)" % (it.path, _who(uid, name_of), kind, shown,
                                                                           _system_fix(it, kind, shown, "chown root:root %s" % it.path)))
        if it.role == "venv" or runner != 0:
            if it.role == "venv":
                fix = "make it one owner'"'"'s: chown -R %s %s" % (venv_name or "USER", shown)
            else:
                fix = "move the %s out of it, or make it one owner'"'"'s: chown %s %s" % (kind, _who(runner, name_of), it.path)
            raise RuleError("%s belongs to %s but the %s %s to %s: rocm-wizard will not run an interpreter that two "
                            "accounts control (%s)" % (it.path, _who(uid, name_of), kind, shown, _who(runner, name_of), fix))
        runner = uid  # the one non-root user involved (a root venv in their home, their --copies Python)
    if runner != 0:
        if not name_of(runner):
            raise RuleError("%s depends on paths of user id %d, which has no account here: rocm-wizard will not run "
                            "it as root" % (shown, runner))
        return name_of(runner)
    for it in items:
        for kindw, ident, fix in it.writers():
            if kindw == "group":
                whom = "the group %s" % _group(ident)
            elif kindw == "user":
                whom = "%s (an ACL grant)" % _who(ident, name_of)
            else:
                whom = "all users"
            if kindw == "group" and fix.startswith("setfacl"):
                whom += " (an ACL grant)"
            if it.role in SYSTEM_ROLES:
                if kindw == "group":
                    fix += ", or take every account but root out of the group %s" % _group(ident)
                fix = _system_fix(it, kind, shown, fix)
            else:
                fix += ", or give the venv to the user who works in it"
            raise RuleError("%s can be changed by other users (%s; mode %o) and the %s %s would run as root: "
                            "rocm-wizard will not run it as root (%s)"
                            % (it.path, whom, stat.S_IMODE(it.st.st_mode), kind, shown, fix))
    return "root"


SYSTEM_ROLES = ("system", "sysancestor")


def _system_fix(it, kind, shown, fix):
    """The fix for a system site directory (or one above it) another user controls."""
    if kind == "venv":
        return ("%s; or keep the system'"'"'s packages out of the venv: set include-system-site-packages = false in "
                "%s/pyvenv.cfg, or recreate it without --system-site-packages" % (fix, shown.rstrip("/")))
    return fix


def _group(gid):
    try:
        import grp

        return grp.getgrgid(gid).gr_name
    except (ImportError, KeyError):
        return "id %d" % gid


def judge_venv(venv, name_of, shown=None):
    """The account that runs the interpreter of the venv at ``venv`` under a root run.  Raises
    :class:`RuleError`."""
    shown = shown or venv
    try:
        w, vst = collect_venv(venv)
    except OSError as exc:
        raise RuleError("cannot read the owner of the venv %s: %s" % (shown, exc.strerror or exc)) from None
    try:
        return verdict(w.items, vst.st_uid, name_of, shown)
    finally:
        w.close()


def judge_interpreter(python, name_of, held=None):
    """The account that runs ``python`` (as given) under a root run: a ``pyvenv.cfg`` beside it or
    one directory up (where CPython looks, on the path as given) makes it that venv'"'"'s rule; else
    the path as given, what it resolves to, and every directory on the way to both are judged.
    ``held``: a list that receives (fd, the interpreter'"'"'s path in it) of a venv root runs
    (``runas.hold_interpreter``)."""
    given = os.path.abspath(python)
    here = os.path.dirname(given)
    up = os.path.dirname(here)
    w = Walker()
    try:
        try:
            fd, _ = w.walk(given, "outside", follow=True)
        except OSError as exc:
            raise RuleError("cannot read the owner of %s: %s" % (python, exc.strerror or exc)) from None
        for d in (here, up):
            cfg = os.path.join(d, "pyvenv.cfg")
            if os.path.lexists(cfg):  # a venv whose prefix is ``up`` either way (site.venv)
                vw, vst = None, None
                try:
                    vw, vst = collect_venv(up, os.path.basename(here))
                    name = verdict(w.items + vw.items, vst.st_uid, name_of, up)
                    if held is not None and name == "root":
                        held.append((os.dup(vw.venv_fd), os.path.relpath(given, up)))
                    return name
                except OSError as exc:
                    raise RuleError("cannot read the owner of the venv %s: %s" % (up, exc.strerror or exc)) from None
                finally:
                    if vw is not None:
                        vw.close()
        for d in (here, up):  # Python looks for a pyvenv.cfg there: whoever can write them chooses its prefix
            try:
                w.walk(d, "outside")
            except OSError:
                pass
        real = os.path.realpath(given)  # its prefix'"'"'s site-packages are imported at every start
        name = os.path.basename(real)
        version = name[len("python"):] if name.startswith("python3.") and name[7:].replace(".", "").isdigit() else None
        _system_site(w, os.path.dirname(os.path.dirname(real)) or "/", version)
        return verdict(w.items, None, name_of, python, kind="interpreter")
    finally:
        w.close()


def _passwd_name(uid):
    try:
        import pwd

        return pwd.getpwuid(uid).pw_name
    except (ImportError, KeyError):
        return None


def _clean(text):
    """``text`` without terminal control characters (a file name in site-packages is anyone'"'"'s)."""
    return "".join(c if c >= " " and not ("\x7f" <= c <= "\x9f") else "?" for c in text)


def main(argv):
    """``RULE venv PATH`` / ``RULE python PATH``: prints the account name; exit 1 with the reason on
    stderr when a root run must not run it (the generated script and the playbook run this)."""
    if len(argv) != 2 or argv[0] not in ("venv", "python"):
        sys.stderr.write("usage: venv PATH | python PATH\n")
        return 64
    try:
        judge = judge_venv if argv[0] == "venv" else judge_interpreter
        name = judge(argv[1], _passwd_name)
    except RuleError as exc:
        sys.stderr.write("rocm-wizard: %s\n" % _clean(str(exc)))
        return 1
    sys.stdout.write(name + "\n")
    return 0


def source():
    """This module'"'"'s source: what the script and the playbook run with ``python3 -I -S -c``."""
    with open(__file__, encoding="utf-8") as f:
        return f.read()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
'

rw_check_fingerprint() {
  rw_expect gpus "$(rw_fp_gpus)" 744c
  rw_expect kernel "$(rw_fp_kernel)" 6.5.0-45-generic
  rw_expect os "$(rw_fp_os)" 'ubuntu 22.04'
  rw_expect torch "$(rw_fp_torch /home/dev/train/.venv)" 2.5.1+rocm6.2 2.4.1+rocm6.1
  if [[ $RW_STALE == 1 ]]; then
    rw_die 'refusing to run: this plan was made for another system, or the system changed since (fingerprint sha256:a46aafb1153d5437597b99460fa64b79). Make a new plan with rocm-wizard --plan-only.'
  fi
}

# why: the venv is changed in place, so its pip freeze is saved first to show and restore what it had
step_01_venv_backup() {
  rw_begin 1 venv-backup 'Save the package list of /home/dev/train/.venv'
  local venv=/home/dev/train/.venv backup=/home/dev/train/.venv/rocm-wizard/pip-freeze-before-torch-2.4.1+rocm6.1.txt owner freeze
  if [[ ! -x $RW_ROOT$venv/bin/python ]]; then rw_die "$venv is not a venv (no bin/python)"; fi
  if [[ -s $RW_ROOT$backup ]]; then
    rw_ok "pip freeze already saved in $backup"
    return 0
  fi
  owner=$(rw_venv_user "$venv")
  if [[ $DRY_RUN == 1 ]]; then
    rw_would "save pip freeze of $venv to $backup (as $owner)"
    rw_mark venv-backup
    return 0
  fi
  if rw_uv_venv "$venv"; then
    freeze=$(rw_user_run "$owner" uv pip freeze --python "$venv/bin/python")
  else
    freeze=$(rw_user_run "$owner" "$venv/bin/python" -m pip freeze --all)
  fi
  rw_put_as "$owner" "$backup" 0644 "${freeze}"$'\n'
  rw_say "    saved the package list to $backup"
  rw_mark venv-backup
}

# why: the guard goes in before the install, so the plan's own pip runs satisfy its pins and no later install can swap this torch for PyPI's CUDA or CPU build
step_02_torch_guard() {
  rw_begin 2 torch-guard 'Guard the venv: pip and uv keep this torch build (torch==2.4.1+rocm6.1, torchvision==0.19.1+rocm6.1, torchaudio==2.4.1+rocm6.1, ...)'
  local venv=/home/dev/train/.venv gfile=/home/dev/train/.venv/rocm-wizard-guard.txt owner mode
  local content='# Written by rocm-wizard: the PyTorch ROCm build this venv was given.  pip reads it through
# the venv'"'"'s pip.conf (constraint =), uv through UV_CONSTRAINT: an install that would swap
# these for a CUDA or CPU build is refused.  To change them, run rocm-wizard again (or delete
# this file and the constraint line of pip.conf).
torch==2.4.1+rocm6.1
torchvision==0.19.1+rocm6.1
torchaudio==2.4.1+rocm6.1
pytorch-triton-rocm==3.0.0
' line='constraint = /home/dev/train/.venv/rocm-wizard-guard.txt'
  if [[ ! -d $RW_ROOT$venv ]]; then
    if [[ $DRY_RUN == 1 ]]; then
      rw_would "write $gfile and name it in $venv/pip.conf"
      rw_mark torch-guard
      return 0
    fi
    rw_die "$venv is not a venv yet"
  fi
  owner=$(rw_venv_user "$venv")
  rw_guard_conf "$RW_ROOT$venv/pip.conf" "$line" "$owner"
  if rw_same "$RW_ROOT$gfile" "$content" && rw_same "$RW_ROOT$venv/pip.conf" "$RW_NEW"; then
    rw_ok 'the venv is guarded (pip.conf names the pins)'
    return 0
  fi
  if ! rw_same "$RW_ROOT$gfile" "$content"; then rw_put_as "$owner" "$gfile" 0644 "$content"; fi
  if ! rw_same "$RW_ROOT$venv/pip.conf" "$RW_NEW"; then
    mode=0644
    if [[ -f $RW_ROOT$venv/pip.conf ]]; then mode=$(stat -c %a -- "$RW_ROOT$venv/pip.conf"); fi
    rw_put_as "$owner" "$venv/pip.conf" "$mode" "$RW_NEW"
  fi
  rw_mark torch-guard
}

# why: every Triton distribution installs the same triton/ directory, so any other than the one torch requires overwrites its files
step_03_triton_strays() {
  rw_begin 3 triton-strays 'Remove stray Triton distributions'
  local venv=/home/dev/train/.venv keep=pytorch-triton-rocm owner=''
  local -a strays=(triton-rocm triton pytorch-triton)
  local -a found=()
  if [[ -x $RW_ROOT$venv/bin/python ]]; then owner=$(rw_venv_user "$venv"); fi
  mapfile -t found < <(rw_dists "$owner" "$venv/bin/python" "${strays[@]}")
  if [[ ${#found[@]} -eq 0 ]]; then
    rw_ok 'no stray Triton distribution'
    return 0
  fi
  if [[ -n $keep && -n $(rw_dists "$owner" "$venv/bin/python" "$keep") ]]; then found+=("$keep"); fi
  if command -v uv >/dev/null 2>&1 || rw_uv_venv "$venv"; then
    rw_as "$owner" uv pip uninstall --python "$venv/bin/python" "${found[@]}"
  else
    rw_as "$owner" "$venv/bin/python" -m pip uninstall -y "${found[@]}"
  fi
  rw_mark triton-strays
}

# why: torch 2.4.1+rocm6.1, torchvision, torchaudio and the Triton build torch requires come as exact pins from one index, so none of them is mixed from another build
step_04_torch() {
  rw_begin 4 torch 'Install torch 2.4.1+rocm6.1 and its exact companions'
  local venv=/home/dev/train/.venv idx=https://download.pytorch.org/whl/rocm6.1 owner=''
  local -a reqs=(torch==2.4.1+rocm6.1 torchvision==0.19.1+rocm6.1 torchaudio==2.4.1+rocm6.1 pytorch-triton-rocm==3.0.0)
  if [[ -x $RW_ROOT$venv/bin/python ]]; then owner=$(rw_venv_user "$venv"); fi
  if rw_pins_ok "$owner" "$venv/bin/python" "${reqs[@]}"; then
    rw_ok "installed: ${reqs[*]}"
    return 0
  fi
  # a dry run, before an earlier step made the venv: whoever will own it
  if [[ -z $owner ]]; then owner=$(rw_owner_of "$RW_ROOT$venv"); fi
  PIP_INDEX_URL=$idx UV_INDEX_URL=$idx UV_DEFAULT_INDEX=$idx rw_pip_install "$owner" "$venv/bin/python" "${reqs[@]}"
  rw_mark torch
}

# why: the venv's users get these variables whenever they activate it: TORCH_BLAS_PREFER_HIPBLASLT=0 is persisted because gfx1100 is not on the hipBLASLt list of torch 2.4.1's rocm6.1 wheels, and hard hipBLASLt errors were reported on GPUs off that list (pytorch/pytorch#138067); it only makes PyTorch use hipBLAS instead, so it cures no error of hipBLAS itself (such as HIPBLAS_STATUS_ALLOC_FAILED); UV_CONSTRAINT makes uv keep the guard's pins (uv reads it, not pip.conf)
step_05_torch_env() {
  rw_begin 5 torch-env 'Persist TORCH_BLAS_PREFER_HIPBLASLT=0, UV_CONSTRAINT=/home/dev/train/.venv/rocm-wizard-guard.txt for the venv'"'"'s users'
  local venv=/home/dev/train/.venv envfile=/home/dev/train/.venv/rocm-wizard.env owner mode
  local block='# >>> rocm-wizard >>>
export TORCH_BLAS_PREFER_HIPBLASLT=0
export UV_CONSTRAINT=/home/dev/train/.venv/rocm-wizard-guard.txt
# <<< rocm-wizard <<<
' envcontent='# Environment for programs that use the venv /home/dev/train/.venv
# (systemd: EnvironmentFile= this file).  Written by rocm-wizard.
TORCH_BLAS_PREFER_HIPBLASLT=0
UV_CONSTRAINT=/home/dev/train/.venv/rocm-wizard-guard.txt
'
  local activate="$RW_ROOT$venv/bin/activate"
  if [[ ! -f $activate ]]; then
    if [[ $DRY_RUN == 1 ]]; then
      rw_would "add the variables to $venv/bin/activate and write $envfile"
      rw_mark torch-env
      return 0
    fi
    rw_die "$venv/bin/activate does not exist"
  fi
  owner=$(rw_venv_user "$venv")
  rw_with_block "$activate" "$block" "$owner"
  if rw_same "$activate" "$RW_NEW" && rw_same "$RW_ROOT$envfile" "$envcontent"; then
    rw_ok 'the environment is set in bin/activate and the env file'
    return 0
  fi
  if ! rw_same "$activate" "$RW_NEW"; then
    mode=$(stat -c %a -- "$activate")
    rw_put_as "$owner" "$venv/bin/activate" "$mode" "$RW_NEW"
  fi
  if ! rw_same "$RW_ROOT$envfile" "$envcontent"; then rw_put_as "$owner" "$envfile" 0644 "$envcontent"; fi
  rw_mark torch-env
}

# why: a new torch may not satisfy the requirements of the venv's other packages; pip check says so now rather than at run time
step_06_pip_check() {
  rw_begin 6 pip-check 'Check the venv'"'"'s other packages against the new torch'
  local venv=/home/dev/train/.venv out owner
  if [[ ! -x $RW_ROOT$venv/bin/python ]]; then
    rw_ok 'no venv yet: pip check runs after the install'
    return 0
  fi
  owner=$(rw_venv_user "$venv")
  local -a check=("$venv/bin/python" -m pip check)
  if rw_uv_venv "$venv"; then check=(uv pip check --python "$venv/bin/python"); fi
  if out=$(rw_user_run "$owner" "${check[@]}" 2>&1); then
    rw_ok 'pip check: no broken requirements'
    return 0
  fi
  rw_warn 'pip check reports requirements the change broke (from the packages'"'"' own metadata):'
  printf '      %s\n' "$out" | rw_clean >&2
  rw_say '    fix: upgrade or pin the packages named above in the venv, or go back to the previous venv'
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
  rw_say 'rocm-wizard: Reinstall torch 2.4.1+rocm6.1 in /home/dev/train/.venv'" (plan $RW_PLAN_ID)"
  if [[ $DRY_RUN == 1 ]]; then rw_say 'DRY_RUN=1: showing what would be done; nothing is changed'; fi
  rw_check_fingerprint
  step_01_venv_backup
  step_02_torch_guard
  step_03_triton_strays
  step_04_torch
  step_05_torch_env
  step_06_pip_check
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
