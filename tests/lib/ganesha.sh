# SPDX-License-Identifier: LGPL-3.0-or-later
# Shell library: run rpcbind and ganesha.nfsd inside a private network+mount namespace.
# Usage: source it from a script started by `tests/lib/in-ns.sh script args...`.
#   gsh_conf OUT EXPORT_DIR WORKDIR [extra FSAL lines] -> writes a ganesha.conf
#   gsh_start CONF [LOG]   starts rpcbind (once) and ganesha, waits until NFS answers
#   gsh_stop               SIGTERM ganesha, wait (bounded), SIGKILL if it hangs
#   gsh_kill               SIGKILL ganesha (crash)
#   gsh_url PATH [VERS]    libnfs URL for PATH on this server
#   gsh_crash_report       prints the backtrace a crashed ganesha wrote to its log
#   gsh_vfs_conf WORK PSEUDO  a stock FSAL_VFS export of WORK/export -> WORK/ganesha.conf
# Ports are fixed so clients skip the portmapper.
# GSH_ROOT=DIR (e.g. the Debian 13 root of scripts/setup.sh --ganesha 6): gsh_start runs
# `chroot DIR ganesha.nfsd` (that root's ganesha, 6.5) instead of the host's. The paths its
# config names (config and log directory, Path, RecoveryRoot, Plugins_Dir and the targets of
# the plugin symlinks) are bind-mounted at the same paths inside DIR, with /proc, /dev and
# this namespace's /run (rpcbind's socket); clients stay on the host. Those mounts go when
# ganesha stops (gsh_stop, gsh_kill): a test that then unmounts its export filesystem (to fsck
# or remount it) finds no other copy of it mounted. GSH_WRAPPER (a command
# ganesha.nfsd runs under, e.g. valgrind) is then the root's.

GSH_NFS_PORT=${GSH_NFS_PORT:-12049}
GSH_MNT_PORT=${GSH_MNT_PORT:-12050}
GSH_PID=
GSH_RPCBIND_PID=
GSH_PLUGINS_DIR=${GSH_PLUGINS_DIR:-}
GSH_EXIT_STATUS=   # exit status of a ganesha that exited during gsh_start
GSH_LOGS=()        # every log gsh_start wrote
GSH_ROOT=${GSH_ROOT:-}
GSH_ROOT_MOUNTS=() # mounts made inside GSH_ROOT (gsh_cleanup unmounts them)
GSH_ROOT_BOUND=()  # host paths bound at the same path inside GSH_ROOT

gsh_in_ns() { [ "${GSH_IN_NS:-}" = 1 ]; }

gsh_url() {
  local path=$1 vers=${2:-3}
  if [ "$vers" = 4 ]; then
    echo "nfs://127.0.0.1${path}?version=4&nfsport=${GSH_NFS_PORT}"
  else
    echo "nfs://127.0.0.1${path}?version=3&nfsport=${GSH_NFS_PORT}&mountport=${GSH_MNT_PORT}"
  fi
}

# gsh_conf OUT WORKDIR then blocks of "Path|Pseudo|Id|FSAL body" lines on stdin, one export per line.
# With GSH_PLUGINS_DIR empty, no Plugins_Dir line is written (ganesha's built-in FSAL directory).
gsh_conf() {
  local out=$1 work=$2
  mkdir -p "$work/recov"
  {
    cat <<CONF
NFS_CORE_PARAM {
  NFS_Port = ${GSH_NFS_PORT}; MNT_Port = ${GSH_MNT_PORT};
  NLM_Port = $((GSH_NFS_PORT + 2)); Rquota_Port = $((GSH_NFS_PORT + 3));
  Enable_UDP = false;
  ${GSH_PLUGINS_DIR:+Plugins_Dir = ${GSH_PLUGINS_DIR};}
  ${GSH_ROOT:+Allow_Set_Io_Flusher_Fail = true;}
}
NFSV4 { Graceless = true; RecoveryRoot = ${work}/recov; }
NFS_KRB5 { Active_krb5 = false; }
LOG { Default_Log_Level = EVENT; Components { FSAL = ${GSH_FSAL_LOG:-EVENT}; } }
CONF
    local id path pseudo body
    while IFS='|' read -r path pseudo id body; do
      [ -n "$path" ] || continue
      cat <<CONF
EXPORT {
  Export_Id = ${id}; Path = ${path}; Pseudo = ${pseudo};
  Access_Type = RW; Squash = No_Root_Squash; Protocols = 3, 4; SecType = sys;
  Transports = TCP;
  FSAL { ${body} }
}
CONF
    done
  } > "$out"
}

gsh_port_open() {
  local hex; hex=$(printf '%04X' "$1")
  # IPv4 rows read "0100007F:3011 00000000:0000 0A", IPv6 rows (ganesha listens on [::])
  # "000...000:3011 000...000:0000 0A": match both.
  grep -Eq ":${hex} [0-9A-F]+:0000 0A" /proc/net/tcp /proc/net/tcp6 2>/dev/null
}

gsh_start_rpcbind() {
  [ -n "$GSH_RPCBIND_PID" ] && return 0
  mkdir -p /run/rpcbind
  rpcbind -f -w &
  GSH_RPCBIND_PID=$!
  local i
  for i in $(seq 50); do gsh_port_open 111 && return 0; sleep 0.1; done
  echo "gsh: rpcbind did not start" >&2; return 1
}

# gsh_root_bind PATH: PATH (a directory, or a file's directory) at the same path inside
# GSH_ROOT. PATH becomes a shared mount first, so what is mounted under it later (it_tmpfs)
# shows inside the root too.
gsh_root_bind() {
  local p=$1 b
  [ -d "$p" ] || p=$(dirname "$p")
  p=$(readlink -f "$p") || return 1
  [ -d "$p" ] || return 0
  for b in "${GSH_ROOT_BOUND[@]}"; do
    case $p/ in "$b"/*) return 0 ;; esac
  done
  mount --rbind "$p" "$p" && mount --make-rshared "$p" || return 1
  GSH_ROOT_MOUNTS+=("$p")
  mkdir -p "$GSH_ROOT$p" && mount --rbind "$p" "$GSH_ROOT$p" || return 1
  GSH_ROOT_MOUNTS+=("$GSH_ROOT$p")
  GSH_ROOT_BOUND+=("$p")
}

# gsh_root_prepare CONF LOG: the mounts the chrooted ganesha needs (once per namespace for
# /proc, /dev, /run; every path CONF names).
gsh_root_prepare() {
  local conf=$1 log=$2 r=$GSH_ROOT p f
  [ -x "$r/usr/bin/ganesha.nfsd" ] || { echo "gsh: no ganesha.nfsd in GSH_ROOT=$r" >&2; return 1; }
  if [ ${#GSH_ROOT_MOUNTS[@]} -eq 0 ]; then
    mount -t proc proc "$r/proc" && GSH_ROOT_MOUNTS+=("$r/proc") &&
      mount --rbind /dev "$r/dev" && GSH_ROOT_MOUNTS+=("$r/dev") &&
      mount --bind /run "$r/run" && GSH_ROOT_MOUNTS+=("$r/run") || return 1
  fi
  gsh_root_bind "$conf" && gsh_root_bind "$log" || return 1
  # (not in comments: the shipped examples name paths there that need not exist)
  for p in $(sed 's/#.*//' "$conf" | grep -oiE '\b(Path|RecoveryRoot|Plugins_Dir) *= *"?/[^;" ]*' |
             sed 's/^[^=]*= *"\?//'); do
    gsh_root_bind "$p" || return 1
    if [ -d "$p" ]; then  # plugin symlinks outside /usr (the module under test)
      for f in "$p"/*.so; do
        [ -L "$f" ] || continue
        case $(readlink -f "$f") in /usr/*|'') ;; *) gsh_root_bind "$(readlink -f "$f")" || return 1 ;; esac
      done
    fi
  done
}

gsh_root_umount() {
  local i
  for ((i = ${#GSH_ROOT_MOUNTS[@]} - 1; i >= 0; i--)); do
    umount -R "${GSH_ROOT_MOUNTS[$i]}" 2>/dev/null || umount -l "${GSH_ROOT_MOUNTS[$i]}" 2>/dev/null
  done
  GSH_ROOT_MOUNTS=() GSH_ROOT_BOUND=()
}

# gsh_start CONF LOG [extra ganesha args]; returns non-zero if ganesha exits or never listens.
gsh_start() {
  local conf=$1 log=$2; shift 2
  gsh_in_ns || { echo "gsh: not inside a private namespace" >&2; return 1; }
  gsh_start_rpcbind || return 1
  : > "$log"
  GSH_LOGS+=("$log")
  local chroot=()
  if [ -n "$GSH_ROOT" ]; then
    gsh_root_prepare "$conf" "$log" || { echo "gsh: cannot prepare GSH_ROOT=$GSH_ROOT" >&2; return 1; }
    chroot=(chroot "$GSH_ROOT")
  fi
  # -C: ganesha logs a backtrace when it crashes (gsh_crash_report)
  # GSH_WRAPPER (valgrind, env) runs where ganesha.nfsd does: inside GSH_ROOT if set
  "${chroot[@]}" ${GSH_WRAPPER:-} ganesha.nfsd -F -C -L "$log" -f "$conf" -p "$(dirname "$log")/ganesha.pid" "$@" &
  GSH_PID=$!
  local i
  for i in $(seq ${GSH_START_TRIES:-300}); do
    if ! kill -0 "$GSH_PID" 2>/dev/null; then
      wait "$GSH_PID" 2>/dev/null; GSH_EXIT_STATUS=$?; GSH_PID=; return 1
    fi
    if gsh_port_open "$GSH_NFS_PORT" && gsh_port_open "$GSH_MNT_PORT"; then
      # Give exports a moment after the listeners come up.
      sleep 0.3; return 0
    fi
    sleep 0.1
  done
  echo "gsh: ganesha did not listen on $GSH_NFS_PORT" >&2
  gsh_kill; return 1
}

gsh_stop() {
  [ -n "$GSH_PID" ] || return 0
  kill -TERM "$GSH_PID" 2>/dev/null
  local i
  for i in $(seq 150); do kill -0 "$GSH_PID" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$GSH_PID" 2>/dev/null && { echo "gsh: ganesha ignored SIGTERM, killing" >&2; kill -KILL "$GSH_PID"; }
  wait "$GSH_PID" 2>/dev/null
  local rc=$?
  GSH_PID=
  gsh_root_umount
  return $rc
}

gsh_kill() {
  [ -n "$GSH_PID" ] || return 0
  kill -KILL "$GSH_PID" 2>/dev/null
  wait "$GSH_PID" 2>/dev/null
  GSH_PID=
  gsh_root_umount
}

# gsh_vfs_conf WORK PSEUDO: WORK/export exported through stock FSAL_VFS (plugins in
# WORK/plugins); writes WORK/ganesha.conf.
gsh_vfs_conf() {
  local work=$1 pseudo=$2
  mkdir -p "$work/export" "$work/plugins"
  ln -sf /usr/lib/x86_64-linux-gnu/ganesha/libfsalvfs.so "$work/plugins/libfsalvfs.so"
  GSH_PLUGINS_DIR=$work/plugins
  echo "$work/export|$pseudo|1|Name = VFS;" | gsh_conf "$work/ganesha.conf" "$work"
}

# ganesha's SIGSEGV/SIGABRT/SIGBUS handler writes "stack backtrace follows" and the frames to
# its log file before it dumps core. Prints them as "CRASH: " lines (tests/run.sh shows those),
# frames in this project's module resolved to function and line with addr2line.
gsh_crash_report() {
  local log line lib off
  for log in "${GSH_LOGS[@]}"; do
    [ -f "$log" ] && grep -q 'stack backtrace follows' "$log" || continue
    echo "CRASH: ganesha crashed, log $log"
    sed -n '/stack backtrace follows/,$p' "$log" | sed -n '2,41p' | while IFS= read -r line; do
      case $line in
        *libfsaldontcache.so\(+0x*)
          lib=${line%%(*} off=${line#*(+}; off=${off%%)*}
          echo "CRASH: $line $(addr2line -f -i -p -e "$lib" "$off" 2>/dev/null | tr '\n' ' ')" ;;
        *) echo "CRASH: $line" ;;
      esac
    done
  done
}

gsh_cleanup() {
  gsh_stop
  if [ -n "$GSH_RPCBIND_PID" ]; then
    kill "$GSH_RPCBIND_PID" 2>/dev/null; wait "$GSH_RPCBIND_PID" 2>/dev/null
    GSH_RPCBIND_PID=
  fi
  gsh_root_umount
}
