#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# fault_eio_kick.sh on a Write_Mode = dropbehind export (what every export runs as on a kernel
# without RWF_DONTCACHE): a 1 MiB WRITE is issued buffered and its write-back started on the
# caller's thread (sync_file_range WRITE) before the answer, while those kicks keep up. The
# same phases check the error rule for writes kicked that way (their write-back fails on the
# full tmpfs behind the device; no COMMIT may answer OK for them), and the stats must show
# some WRITEs kicked.
# Usage: fault_eio_kick_db.sh [BUILD_DIR]   env: DC_TEST_FSAL=DONTCACHE|VFS (VFS is expected to FAIL)
FT_EIO_WRITE="-b 1048576 -F" FT_EIO_KICK=1 FT_EIO_FSAL="Write_Mode = dropbehind;"
. "$(dirname "$0")/fault_eio.sh"
