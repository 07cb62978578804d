# SPDX-License-Identifier: LGPL-3.0-or-later
# Sourced by scripts/setup-debian13.sh and scripts/clean-root.sh: the steps both take to make
# a Debian root with debootstrap, written once.
#   debroot_mirror              sets $mirror (DC_DEBIAN_MIRROR, else the first URI of the
#                               host's main archive, else deb.debian.org) and $security
#   debroot_debootstrap_tool    installs debootstrap on the host if it is missing
#   debroot_bootstrap SUITE ROOT LOG
#                               debootstrap --variant=minbase in a private mount namespace
#                               (a /proc it mounts goes away even if it is interrupted)
#   debroot_sources ROOT SUITE TYPES
#                               the release's apt sources (main, -updates, -security);
#                               TYPES "deb" or "deb deb-src"; no service starts (policy-rc.d)
#   debroot_in ROOT CMD...      CMD chrooted in ROOT with /proc, /dev and a tmpfs /run, in a
#                               private mount namespace

debroot_mirror() {
  mirror=${DC_DEBIAN_MIRROR:-}
  if [ -z "$mirror" ]; then
    mirror=$(awk '/^URIs:/ && $2 !~ /security/ { print $2; exit }' \
             /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
  fi
  mirror=${mirror:-http://deb.debian.org/debian}
  security=${mirror%/debian}/debian-security
  [ "$security" != "$mirror/debian-security" ] || security=http://deb.debian.org/debian-security
}

debroot_debootstrap_tool() {
  command -v debootstrap >/dev/null && return 0
  echo "debroot: installing debootstrap on the host" >&2
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends debootstrap >/dev/null
}

debroot_bootstrap() { # SUITE ROOT LOG
  local suite=$1 root=$2 log=$3
  rm -rf "$root"
  mkdir -p "$root"
  unshare -m --propagation private \
    debootstrap --variant=minbase "$suite" "$root" "$mirror" > "$log" 2>&1 || {
    tail -n 20 "$log" >&2
    echo "debroot: debootstrap $suite failed (log $log)" >&2
    return 1
  }
}

debroot_sources() { # ROOT SUITE TYPES
  local root=$1 suite=$2 types=$3
  rm -f "$root/etc/apt/sources.list"
  cat > "$root/etc/apt/sources.list.d/debian.sources" <<EOS
Types: $types
URIs: $mirror
Suites: $suite $suite-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: $security
Suites: $suite-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOS
  # A container's convention: maintainer scripts do not start services (there is no init).
  printf '#!/bin/sh\nexit 101\n' > "$root/usr/sbin/policy-rc.d"
  chmod 755 "$root/usr/sbin/policy-rc.d"
  cp -L /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
}

debroot_in() { # ROOT CMD...
  unshare -m --propagation private sh -c '
    root=$1; shift
    mount -t proc proc "$root/proc" && mount --rbind /dev "$root/dev" &&
      mount -t tmpfs tmpfs "$root/run" && exec chroot "$root" "$@"' sh "$@"
}
