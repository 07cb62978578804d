# Shared shell code of tests/integration/fault_*.sh (sourced after in-ns.sh re-exec).
#   ft_init NAME          temp dir $FT_WORK, cleanup trap, plugins dir, finds the binaries
#   ft_need_module        exits 77 (skip) when FT_FSAL=DONTCACHE and the module is not built
#   ft_fsal_body ID       the FSAL { } body for $FT_FSAL (DONTCACHE or VFS)
#   ft_start EXPORT_DIR   writes a config exporting EXPORT_DIR as /x and starts ganesha
#   ft_loop_ext4 IMG SIZE MNT [mkfs args]   ext4 on a loop device, mounted (cleaned up)
#   ft_result PASS|FAIL "summary"            prints the one-line summary, exits 0/1
# Environment: BUILD_DIR (or first argument of the script) = the cmake build dir,
# FT_FSAL = DONTCACHE (default) or VFS, FT_KEEP=1 keeps the temp dir.
FT_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
. "$FT_TOP/tests/lib/ganesha.sh"

FT_FSAL=${FT_FSAL:-${DC_TEST_FSAL:-DONTCACHE}}   # tests/run.sh --fsal sets DC_TEST_FSAL
FT_LOOPS=()
FT_MOUNTS=()
FT_BG=()
FT_T0=$(date +%s)

ft_log() { echo "[$FT_NAME $(($(date +%s) - FT_T0))s] $*" >&2; }

ft_cleanup() {
  local p m l
  for p in "${FT_BG[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
  gsh_cleanup 2>/dev/null
  gsh_crash_report >&2
  for ((m = ${#FT_MOUNTS[@]} - 1; m >= 0; m--)); do
    umount "${FT_MOUNTS[$m]}" 2>/dev/null || umount -l "${FT_MOUNTS[$m]}" 2>/dev/null
  done
  for l in "${FT_LOOPS[@]}"; do losetup -d "$l" 2>/dev/null; done
  if [ "${FT_KEEP:-0}" = 1 ]; then
    echo "kept $FT_WORK" >&2
  else
    rm -rf "$FT_WORK"
  fi
}

# ft_find_build: sets FT_BIN (dir with ft_* programs) and FT_MODULE.
# ganesha 6.5 crashes on a zero-length NFSv3 READ before any FSAL is called (its nfs3_read
# answers it writing through a NULL iovec; stock FSAL_VFS 6.5 crashes the same way): against it
# (GSH_ROOT) ft_badreq and ft_hostile leave that request out (-Z)
FT_ZERO_READ=()
[ -n "${GSH_ROOT:-}" ] && FT_ZERO_READ=(-Z)
# ft_hostile's expectations of ganesha 6.5's own answers (-6)
FT_GSH6=()
[ -n "${GSH_ROOT:-}" ] && FT_GSH6=(-6)

ft_find_build() {
  local b
  for b in "${BUILD_DIR:-}" "${FT_ARG_BUILD:-}" "${DC_BUILD_DIR:-}" "$FT_TOP/build" \
           "$FT_TOP/build-ft"; do
    [ -n "$b" ] || continue
    if [ -x "$b/tests/faults/ft_writer" ]; then
      b=$(cd "$b" && pwd)
      FT_BIN=$b/tests/faults
      FT_MODULE=$b/FSAL_DONTCACHE/libfsaldontcache.so
      return 0
    fi
  done
  # Not built with the project: build the programs alone.
  FT_BIN=$FT_WORK/ftbuild
  ft_log "building tests/faults into $FT_BIN"
  cmake -S "$FT_TOP/tests/faults" -B "$FT_BIN" >/dev/null &&
    cmake --build "$FT_BIN" -j2 >/dev/null || { echo "cannot build tests/faults" >&2; exit 2; }
  FT_MODULE=
  for b in "${BUILD_DIR:-}" "${FT_ARG_BUILD:-}" "${DC_BUILD_DIR:-}" "$FT_TOP/build" \
           "$FT_TOP/build-ft"; do
    [ -n "$b" ] && [ -f "$b/FSAL_DONTCACHE/libfsaldontcache.so" ] &&
      { FT_MODULE=$(cd "$b" && pwd)/FSAL_DONTCACHE/libfsaldontcache.so; break; }
  done
}

ft_init() {
  FT_NAME=$1
  FT_ARG_BUILD=${2:-}
  FT_WORK=$(mktemp -d "/tmp/ft.$FT_NAME.XXXXXX")
  trap ft_cleanup EXIT
  trap 'exit 130' INT TERM
  ft_find_build
  # DC_MODULE: the module under test, if not the build's (tests/integration/common.sh)
  [ -n "${DC_MODULE:-}" ] && FT_MODULE=$DC_MODULE
  GSH_PLUGINS_DIR=$FT_WORK/plugins
  mkdir -p "$GSH_PLUGINS_DIR"
  ln -sf /usr/lib/x86_64-linux-gnu/ganesha/libfsalvfs.so "$GSH_PLUGINS_DIR/libfsalvfs.so"
  [ -n "${FT_MODULE:-}" ] && [ -f "$FT_MODULE" ] &&
    ln -sf "$FT_MODULE" "$GSH_PLUGINS_DIR/libfsaldontcache.so"
}

ft_need_module() {
  if [ "$FT_FSAL" = DONTCACHE ] && [ ! -e "$GSH_PLUGINS_DIR/libfsaldontcache.so" ]; then
    echo "$FT_NAME: SKIP (libfsaldontcache.so not built)"
    exit 77
  fi
}

ft_fsal_body() {
  local id=${1:-1}
  if [ "$FT_FSAL" = VFS ]; then
    echo "Name = VFS;"
  else
    echo "Name = DONTCACHE; Handle_Key_File = $FT_WORK/export-$id.key; Stats_File = $FT_WORK/export-$id.stats.json; ${FT_FSAL_EXTRA:-}"
  fi
}

# ft_start EXPORT_DIR: (re)writes the config and starts ganesha; fails the test if it cannot.
ft_start() {
  local dir=$1
  echo "$dir|/x|1|$(ft_fsal_body 1)" | gsh_conf "$FT_WORK/ganesha.conf" "$FT_WORK"
  [ -n "${FT_CONF_EXTRA:-}" ] && echo "$FT_CONF_EXTRA" >> "$FT_WORK/ganesha.conf"
  # MNT takes the export's Path (ganesha's Mount_Path_Pseudo is off)
  FT_NFS=(-H 127.0.0.1 -p "$GSH_NFS_PORT" -M "$GSH_MNT_PORT" -e "$dir")
  FT_GSH_STARTS=$(( ${FT_GSH_STARTS:-0} + 1 ))
  if ! gsh_start "$FT_WORK/ganesha.conf" "$FT_WORK/ganesha.$FT_GSH_STARTS.log"; then
    echo "--- ganesha log ---" >&2; tail -30 "$FT_WORK/ganesha.$FT_GSH_STARTS.log" >&2
    ft_result FAIL "ganesha ($FT_FSAL) did not start"
  fi
}

ft_gsh_log() { echo "$FT_WORK/ganesha.${FT_GSH_STARTS:-0}.log"; }

# ft_loop_ext4 IMG SIZE MNT [mkfs.ext4 args...]: sets FT_LOOP_DEV (call it directly, not in $(...)).
ft_loop_ext4() {
  local img=$1 size=$2 mnt=$3; shift 3
  local dev
  truncate -s "$size" "$img" || return 1
  dev=$(losetup -f --show "$img") || return 1
  FT_LOOPS+=("$dev")
  mkfs.ext4 -q -F "$@" "$dev" >/dev/null 2>&1 || { echo "mkfs.ext4 $dev failed" >&2; return 1; }
  mkdir -p "$mnt"
  mount -t ext4 "$dev" "$mnt" || return 1
  FT_MOUNTS+=("$mnt")
  FT_LOOP_DEV=$dev
}

# ft_result PASS|FAIL|SKIP "text"
ft_result() {
  local r=$1; shift
  echo "$FT_NAME: $r ($FT_FSAL, $(($(date +%s) - FT_T0))s): $*"
  case $r in
    PASS) exit 0 ;;
    SKIP) exit 77 ;;
    *) exit 1 ;;
  esac
}

# ft_kv KEY LINE: value of KEY=value in a summary line
ft_kv() { echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p" | head -n1; }
