#!/bin/sh
# SPDX-License-Identifier: LGPL-3.0-or-later
# Prints a server epoch for `ganesha.nfsd -E` that no other head and no earlier start of
# this head has had: seconds since 1970 times 16 plus this head's index (0..15, the first
# argument or /etc/ganesha/head-index). ganesha builds its NFSv3 write verifier (and its
# NFSv4 client and state ids) from the epoch; without -E two heads started in the same
# second answer the same NFSv3 verifier, and a client failing over between them would not
# resend what it had not committed. Each head must start at most once a second.
# Debian: in /etc/ganesha/nfs-ganesha set EPOCH_EXEC="/usr/local/sbin/ganesha-epoch.sh"
# (nfs-ganesha-config.sh turns its output into EPOCH="-E ..." for the service).
set -eu
idx=${1:-$(cat /etc/ganesha/head-index 2>/dev/null || echo 0)}
case $idx in
  [0-9]|1[0-5]) ;;
  *) echo "ganesha-epoch.sh: head index must be 0..15, got '$idx'" >&2; exit 1 ;;
esac
echo $(( $(date +%s) * 16 + idx ))
