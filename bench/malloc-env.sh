# SPDX-License-Identifier: LGPL-3.0-or-later
# bench/malloc-env.sh, sourced by bench/run.sh and bench/fio.sh: the malloc environment every
# server they start runs with, the Environment= line of the systemd drop-in the package ships
# for nfs-ganesha.service (every FSAL of that ganesha gets it), read from the file, never
# copied into the scripts. The caller defines die().
#   malloc_env_load FILE  -> MALLOC_ENV: the line's NAME=VALUE words (quotes dropped), one
#                            Environment= line of at least one such word, or die;
#                            MALLOC_UNSET: `env` options (-u NAME) that unset every MALLOC_*
#                            and GLIBC_TUNABLES variable of this shell and the line's names,
#                            so that a server starts from a clean malloc environment.
malloc_env_load() {
  local conf=$1 envline kv v
  MALLOC_ENV=() MALLOC_UNSET=()
  [ -f "$conf" ] || die "no $conf (the malloc environment every server runs with)"
  envline=$(sed -n 's/^[[:space:]]*Environment=//p' "$conf")
  [ "$(grep -c '^[[:space:]]*Environment=' "$conf")" = 1 ] || die "$conf: want one Environment= line"
  for kv in $envline; do
    kv=${kv//\"/}
    [[ $kv =~ ^[A-Za-z_][A-Za-z0-9_]*=[^[:space:]]*$ ]] || die "$conf: cannot read '$kv' in its Environment= line"
    MALLOC_ENV+=("$kv")
  done
  [ ${#MALLOC_ENV[@]} -gt 0 ] || die "$conf: an empty Environment= line"
  for v in $(compgen -e | grep -E '^(MALLOC_[A-Za-z0-9_]*|GLIBC_TUNABLES)$') "${MALLOC_ENV[@]%%=*}"; do
    MALLOC_UNSET+=(-u "$v")
  done
}
