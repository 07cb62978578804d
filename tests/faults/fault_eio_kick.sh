#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# fault_eio.sh with every WRITE 1 MiB (ft_writer -b 1048576 -F). Before Linux 7.2 FSAL_DONTCACHE
# issues such a WRITE RWF_DONTCACHE, the kernel starting its writeback inside the syscall, while
# those kicks do not sleep past Kick_Us_Per_MiB (issue 19): the same phases then check the
# error rule for kicked writes (their writeback fails on the full tmpfs behind the device; no
# COMMIT may answer OK for them), and the stats must show some WRITEs kicked. On this loop
# device over tmpfs with 4 KiB requests the kicks soon sleep past the limit and stop, so the
# later WRITEs go buffered: the error rule must hold across both paths.
# Usage: fault_eio_kick.sh [BUILD_DIR]   env: DC_TEST_FSAL=DONTCACHE|VFS (VFS is expected to FAIL)
FT_EIO_WRITE="-b 1048576 -F" FT_EIO_KICK=1
. "$(dirname "$0")/fault_eio.sh"
