#!/usr/bin/env bash
# Fails when a source file of the binary outside the platform module names a
# Linux-only header, call or type, or a /proc or /sys path: those belong in
# common/platform_linux.c (with their macOS side in platform_darwin.c) or in
# watch's sampler (tuner/watch/procfs_linux.c), so that a new one is caught
# here, before a Mac build breaks. Comments are not read; a line that says
# "/* platform: why */" is let through (Python that a framework's interpreter
# runs, in a branch that only Linux takes).
#   scripts/check-portable.sh [ROOT]   (default: this checkout)
set -euo pipefail
root=${1:-$(dirname "$0")/..}
cd "$root"
# The headers, calls and names glibc or Linux have and macOS has not.
headers='<(linux/[^>]*|sys/(prctl|sysinfo|vfs|auxv|epoll|inotify|signalfd|timerfd|eventfd|sendfile|sysmacros)\.h)>'
calls='\<(sched_[gs]etaffinity|pthread_[gs]etaffinity_np|pthread_barrier_[a-z]+|prctl|memfd_create|pipe2|dup3|accept4|execvpe|qsort_r|sysinfo|sigwaitinfo|sigtimedwait|clock_nanosleep|memrchr|mempcpy|getauxval|statfs|gettid|sched_getcpu|epoll_[a-z]+|inotify_[a-z_]+|malloc_trim|mallinfo2?)[[:space:]]*\('
names='\<(cpu_set_t|CPU_(SET|ZERO|ISSET|COUNT|SETSIZE|CLR)|RUSAGE_THREAD|O_TMPFILE|MFD_CLOEXEC|PR_SET_[A-Z_]+|TIMER_ABSTIME)\>'
paths='["'"'"'](/proc|/sys)(/|["'"'"'])'
embed='\.incbin'
bad=0
for f in $(find common search workloads tuner -name '*.[ch]' | sort); do
  case $f in
    common/platform.h | common/platform_linux.c | common/platform_darwin.c | \
      tuner/watch/procfs_linux.c | tuner/watch/procfs_darwin.c) continue ;;
  esac
  # comments out (sed: /* ... */ on a line and across lines, then // to the end)
  hits=$(sed 's|.*/\* platform: .*||' "$f" | perl -0pe 's{/\*.*?\*/}{my $c = $&; $c =~ s/[^\n]//g; $c}gse; s{//[^\n]*}{}g' |
    grep -nE "$headers|$calls|$names|$paths|$embed" || true)
  if [ -n "$hits" ]; then
    echo "$hits" | sed "s|^|$f:|;s|\$|  (Linux-only: belongs in common/platform_linux.c)|" >&2
    bad=1
  fi
done
[ "$bad" = 0 ] || { echo "check-portable: Linux-only names outside the platform module (above)" >&2; exit 1; }
