#!/usr/bin/env bash
# The README's quick start on a bare Debian 12, timed: debootstraps a minimal Debian 12
# (minbase, with make, git and ca-certificates) into DIR, clones this checkout's HEAD into
# it and runs `make TARGET` there as the machine's first command, each line of its output
# prefixed by the seconds since the start (DIR.log). Then it prints when each phase ended:
# the Debian packages installed, the PyPI test environment made, the first and the last
# test, and make's last lines. Issue 46 asks for this on each kind of CPU.
#
#   scripts/fresh-machine.sh [-d DIR] [-t TARGET] [-k]
#     -d DIR     the new machine's root: a new folder (default: /var/tmp/rigtune-fresh-XXXXXX)
#     -t TARGET  what to make (default: test)
#     -k         keep DIR afterwards (default: removed once the figures are printed)
#
# As root (debootstrap, chroot, mounts). The host's /proc, /sys (with what is mounted below
# it: Slurm's slurmd needs /sys/fs/cgroup) and /dev are bound into it. The host's DNS, CA
# certificates and /etc/pip.conf (a proxy's CA, where the network has one) are copied in:
# nothing else of the host's. MIRROR names the Debian mirror (default deb.debian.org).
# Exit status: make's; 2 for bad usage or a host that cannot make the chroot.
set -euo pipefail
usage() { echo "usage: scripts/fresh-machine.sh [-d DIR] [-t TARGET] [-k]" >&2; exit 2; }
dir= target=test keep=0
while getopts d:t:k opt; do
  case $opt in d) dir=$OPTARG ;; t) target=$OPTARG ;; k) keep=1 ;; *) usage ;; esac
done
[ $OPTIND -gt $# ] || usage
[ "$(id -u)" = 0 ] || { echo "fresh-machine.sh: run it as root (debootstrap, chroot, mounts)" >&2; exit 2; }
command -v debootstrap >/dev/null ||
  { echo "fresh-machine.sh: no debootstrap (apt-get install debootstrap)" >&2; exit 2; }
src=$(cd "$(dirname "$0")/.." && pwd)
# (mode 755, as / is: the packages' users, munge's and postgres', must reach their files)
if [ -z "$dir" ]; then dir=$(mktemp -d /var/tmp/rigtune-fresh-XXXXXX) && chmod 755 "$dir"
elif [ -e "$dir" ]; then echo "fresh-machine.sh: $dir is there already: name a new folder" >&2; exit 2
else mkdir -p "$dir"; fi
dir=$(cd "$dir" && pwd)
log=$dir.log
mirror=${MIRROR:-http://deb.debian.org/debian}

unmount() { local m; for m in dev/pts dev sys proc; do umount -R "$dir/$m" 2>/dev/null || true; done; }
finish() {
  # the services the tests started in it (PostgreSQL, munge, Slurm) end with it
  local p
  for p in /proc/[0-9]*; do [ "$(readlink "$p/root" 2>/dev/null)" = "$dir" ] && kill -9 "${p#/proc/}" 2>/dev/null; done
  unmount
  [ "$keep" = 1 ] || rm -rf --one-file-system "$dir"
}
trap finish EXIT

echo "fresh-machine.sh: debootstrap bookworm into $dir ($mirror)" >&2
debootstrap --variant=minbase --include=make,git,ca-certificates bookworm "$dir" "$mirror" \
  >"$dir.debootstrap.log" 2>&1 || { echo "fresh-machine.sh: debootstrap failed: $dir.debootstrap.log" >&2; exit 2; }
rm -f "$dir/etc/apt/sources.list"
cat >"$dir/etc/apt/sources.list.d/debian.sources" <<EOF
Types: deb
URIs: $mirror
Suites: bookworm bookworm-updates
Components: main

Types: deb
URIs: ${mirror%/debian}/debian-security
Suites: bookworm-security
Components: main
EOF
cp /etc/resolv.conf "$dir/etc/resolv.conf"
cp /usr/local/share/ca-certificates/*.crt "$dir/usr/local/share/ca-certificates/" 2>/dev/null &&
  chroot "$dir" update-ca-certificates >/dev/null 2>&1
[ ! -f /etc/pip.conf ] || cp /etc/pip.conf "$dir/etc/pip.conf"
for m in proc sys dev; do mount --rbind "/$m" "$dir/$m"; mount --make-rslave "$dir/$m"; done
git clone -q "$src" "$dir/root/rigtune"
echo "fresh-machine.sh: make $target in it, from $(git -C "$src" log -1 --format='%h %s'); the log: $log" >&2

# The first command on the new machine: a login's environment, nothing of this shell's.
t0=$(date +%s)
chroot "$dir" /usr/bin/env -i HOME=/root LANG=C.UTF-8 PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  bash -c 'cd /root/rigtune && start=$(date +%s)
    { make "$1" 2>&1; echo "make: exit $?"; } | while IFS= read -r l; do echo "$(($(date +%s) - start)) $l"; done' \
  - "$target" >"$log"
rc=$(sed -n 's/^[0-9]* make: exit \([0-9]*\)$/\1/p' "$log" | tail -1)

# when PATTERN first shows in the log (its seconds), or "-"
first() { awk -v p="$1" '$0 ~ p {print $1 "s"; f = 1; exit} END {if (!f) print "-"}' "$log"; }
last() { awk -v p="$1" '$0 ~ p {t = $1 "s"} END {print t ? t : "-"}' "$log"; }
venv=$(ls -d "$dir"/root/.cache/rigtune/venv-*/.complete 2>/dev/null | head -1 || true)
echo "== $(grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) CPUs; make $target:"
echo "   Debian packages installed by $(last 'Setting up |Processing triggers')"
echo "   the PyPI test environment made by $([ -n "$venv" ] && echo "$(($(stat -c %Y "$venv") - t0))s" || echo -)"
echo "   the first test reported at $(first '^[0-9]+ (ok|FAIL) '), the last at $(last '^[0-9]+ (ok|FAIL) ')"
echo "   the end at $(tail -1 "$log" | cut -d' ' -f1)s:"
grep -E '^[0-9]+ ([0-9]+ passed, |[0-9]+ skipped|FAIL |make: exit)' "$log" | sed 's/^/     /' || true
exit "${rc:-2}"
