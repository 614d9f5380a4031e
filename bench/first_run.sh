#!/usr/bin/env bash
# bench/first_run.sh — a newcomer's first `scripts/ringsched table3` on a fresh machine, timed (issue 25: < 4 min on
# 2 cores, apt included). Builds a bare Debian bookworm (debootstrap --variant=minbase: no compiler, no packages of
# ours), copies this working tree (tracked and new files, no build folders) into it, and times
# `scripts/ringsched table3` there: apt-get update and install of the build packages, configure, build, run. Then
# times a second call (the no-op rebuild check) and compares the table with the golden file.
# Needs root, debootstrap and network access to a Debian mirror. Usage: bench/first_run.sh [WORKDIR] [MIRROR]
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
work="${1:-$(mktemp -d /tmp/ringsched-first-run.XXXXXX)}"
mirror="${2:-http://deb.debian.org/debian}"
[ "$(id -u)" -eq 0 ] || { echo "bench/first_run.sh: needs root (debootstrap, chroot)" >&2; exit 2; }
command -v debootstrap >/dev/null || { echo "bench/first_run.sh: needs debootstrap (apt-get install debootstrap)" >&2; exit 2; }
root="$work/root"
cleanup() {
  for m in proc sys dev; do umount -R "$root/$m" 2>/dev/null || true; done
}
trap cleanup EXIT
if [ ! -x "$root/usr/bin/apt-get" ]; then
  echo "debootstrap (not timed) into $root" >&2
  debootstrap --variant=minbase bookworm "$root" "$mirror" > "$work/debootstrap.log" 2>&1
fi
mount -t proc proc "$root/proc"
mount -t sysfs sys "$root/sys"
mount --rbind /dev "$root/dev"
cp /etc/resolv.conf "$root/etc/resolv.conf"
rm -rf "$root/root/ringsched"
mkdir -p "$root/root/ringsched"
(cd "$here" && git ls-files -co --exclude-standard -z | tar --null -T - -cf -) | tar -xf - -C "$root/root/ringsched"
run() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root bash -c "cd /root/ringsched && $1"; }
echo "cores: $(nproc)"
start=$(date +%s%N)
run 'scripts/ringsched table3 --threads 2 --quiet' > "$work/table3.md" 2> "$work/first.log"
end=$(date +%s%N)
echo "first scripts/ringsched table3 (apt, configure, build, run): $(( (end - start) / 1000000 )) ms"
start=$(date +%s%N)
run 'scripts/ringsched table3 --threads 2 --quiet' > "$work/table3-again.md" 2>/dev/null
end=$(date +%s%N)
echo "second call (no-op build check and run): $(( (end - start) / 1000000 )) ms"
if cmp -s "$work/table3.md" "$here/test/fixtures/golden/table3.md"; then
  echo "table: identical to test/fixtures/golden/table3.md"
else
  echo "table: DIFFERS from test/fixtures/golden/table3.md (see $work/table3.md)"
  exit 1
fi
