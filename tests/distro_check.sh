#!/bin/sh
# make check, make demo and make check-dist on another Debian release's Octave, from a clean copy of
# this tree, in a chroot made with debootstrap from Debian's packages (kept between runs in
# GPUDOT_CHROOT_DIR, default /var/tmp/gpudot-chroot/SUITE).  The CUDA toolkit (CUDA_HOME)
# is bind-mounted read-only at the same path.  Run as root.
#   tests/distro_check.sh SUITE [MAKE TARGETS...]     (default targets: check demo check-dist)
set -eu
suite=${1:?usage: tests/distro_check.sh SUITE [targets...]}
shift
targets=${*:-check demo check-dist}
root=${GPUDOT_CHROOT_DIR:-/var/tmp/gpudot-chroot}/$suite
cuda=${CUDA_HOME:-/usr/local/cuda}
here=$(cd "$(dirname "$0")/.." && pwd)

mounts=
cleanup() {
    for m in $mounts; do umount -l "$m" 2>/dev/null || true; done
}
trap cleanup EXIT INT TERM
bind() { # bind SOURCE TARGET [ro]
    mkdir -p "$2"
    mount --bind "$1" "$2"
    [ "${3:-}" = ro ] && mount -o remount,bind,ro "$2"
    mounts="$2 $mounts"
}

if [ ! -f "$root/.gpudot-ready" ]; then
    command -v debootstrap >/dev/null 2>&1 || {
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap >/dev/null
    }
    rm -rf "$root"
    mkdir -p "$root"
    echo "distro_check: debootstrap $suite (about a minute)"
    debootstrap --variant=minbase "$suite" "$root" > "$root.debootstrap.log" 2>&1 ||
        { tail -n 20 "$root.debootstrap.log"; exit 1; }
    # a mirror that serves a frozen snapshot has Release files past their Valid-Until
    echo 'Acquire::Check-Valid-Until "false";' > "$root/etc/apt/apt.conf.d/99gpudot"
    touch "$root/.gpudot-ready"
fi

mount -t proc proc "$root/proc" && mounts="$root/proc $mounts"
mount --rbind /sys "$root/sys" && mounts="$root/sys $mounts"
mount --rbind /dev "$root/dev" && mounts="$root/dev $mounts"
[ -d "$cuda" ] && bind "$cuda" "$root$cuda" ro

# What a user starts from: a compiler and make; `make` itself installs Octave.
echo "distro_check: $suite: gcc, g++, make, gawk"
chroot "$root" sh -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends gcc g++ make gawk >/dev/null'

rm -rf "$root/src/gpudot"
mkdir -p "$root/src/gpudot"
(cd "$here" && git ls-files -co --exclude-standard | tar -cf - -T -) | tar -C "$root/src/gpudot" -xf -
echo "distro_check: $suite: make $targets"
chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root CUDA_HOME="$cuda" \
    ${CUDA_ARCHS:+CUDA_ARCHS="$CUDA_ARCHS"} ${GPUDOT_NO_CUDA:+GPUDOT_NO_CUDA="$GPUDOT_NO_CUDA"} \
    sh -c "cd /src/gpudot && octave-cli --version 2>/dev/null | head -n 1; make $targets"
