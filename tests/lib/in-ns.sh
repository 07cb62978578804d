#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Runs SCRIPT ARGS... in a private network+mount namespace with loopback up and a private /run.
# Everything the script starts there must be stopped by the script (tests/lib/ganesha.sh does).
set -u
if [ "${GSH_IN_NS:-}" != 1 ]; then
  exec env GSH_IN_NS=1 unshare -n -m --propagation private "$0" "$@"
fi
mount -t tmpfs tmpfs /run
ip link set lo up
exec "$@"
