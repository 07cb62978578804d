# SPDX-License-Identifier: LGPL-3.0-or-later
# Helpers of the writes-as-the-caller scenarios (tests/integration/ascaller_*.sh, issue 36),
# sourced after harness.sh: it_caller3 (NFSv3) / it_caller4 (NFSv4.2) as a chosen uid.
MiB=$((1024 * 1024))

# caller VERS EXPORT UID CMD NAME [MiB]: the program's summary line
caller() {
  local v=$1 exp=$2 uid=$3; shift 3
  if [ "$v" = 3 ]; then
    timeout -k 5 240 "$DC_IT_BIN/it_caller3" -H 127.0.0.1 -p "$GSH_NFS_PORT" -M "$GSH_MNT_PORT" \
      -e "$exp" -u "$uid" -g "$uid" "$@" 2>&1 | tail -n1
  else
    timeout -k 5 240 "$DC_IT_BIN/it_caller4" -H 127.0.0.1 -p "$GSH_NFS_PORT" \
      -e "$exp" -u "$uid" -g "$uid" "$@" 2>&1 | tail -n1
  fi
}
# the status of a summary line, without NFS4ERR_/NFS4_
st_of() { it_kv status "$1" | sed 's/^NFS4ERR_//; s/^NFS4_//'; }
blocks_bytes() { echo $(($(stat -c %b "$1") * 512)); }
avail_bytes() { df -B1 --output=avail "$1" | tail -n1 | tr -d ' '; }
