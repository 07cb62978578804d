# SPDX-License-Identifier: LGPL-3.0-or-later
# What the in-guest scripts tests/lib/guest-head.sh and tests/lib/guest-caps.sh share: hag_boot
# (tests/lib/guest.sh) copies it to every guest's share as /host/nfsd.sh, beside its PID 1,
# and they source it from there:
#   listening PORT           true when a socket listens on TCP PORT (IPv4 or IPv6)
#   nfsd_up CONF [ARGS...]   rpcbind unless it listens already, then ganesha.nfsd -f CONF ARGS
#                            (log /host/ganesha.log, pid file /run/ganesha.pid; its pid in
#                            $gpid) until it listens on 2049 and 20048; returns 1 when it
#                            exited (with its log's tail) or did not listen within 120 s
# builtins only where it is cheap: under TCG every fork costs ~0.1 s
listening() { # PORT
  local hex l lines
  printf -v hex '%04X' "$1"
  mapfile -t lines < /proc/net/tcp
  [ -r /proc/net/tcp6 ] && mapfile -t -O "${#lines[@]}" lines < /proc/net/tcp6
  for l in "${lines[@]}"; do
    [[ $l =~ :${hex}\ [0-9A-F]+:0000\ 0A ]] && return 0
  done
  return 1
}
nfsd_up() { # CONF [ARGS...]
  local conf=$1; shift
  if ! listening 111; then
    setsid rpcbind -w -f > /dev/null 2>&1 < /dev/null &
    for _ in $(seq 100); do listening 111 && break; sleep 0.1; done
  fi
  setsid ganesha.nfsd -F -L /host/ganesha.log -f "$conf" -p /run/ganesha.pid "$@" \
    > /dev/null 2>&1 < /dev/null &
  gpid=$!
  for _ in $(seq 1200); do
    kill -0 "$gpid" 2>/dev/null || { echo "ganesha exited"; tail -n 20 /host/ganesha.log; return 1; }
    listening 2049 && listening 20048 && return 0
    sleep 0.1
  done
  echo "ganesha did not listen within 120 s"; return 1
}
