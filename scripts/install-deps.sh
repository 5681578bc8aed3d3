#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages rigtune builds and tests with.
#   scripts/install-deps.sh               install them all (root, or sudo -n)
#   scripts/install-deps.sh --if-missing  do nothing when every one is there
# When it can neither run as root nor use sudo without a password, it prints
# the exact command to run and exits 1.
set -euo pipefail

PACKAGES=(build-essential pkg-config libopenblas-dev libhwloc-dev hwloc libnlopt-dev
          libyaml-dev libcmocka-dev hipcc)
# pkg-config modules and commands that stand for the packages above.
MODULES=(hwloc nlopt yaml-0.1 openblas cmocka)
COMMANDS=(cc make pkg-config hipcc)

missing() {
  local m c
  for m in "${MODULES[@]}"; do pkg-config --exists "$m" 2>/dev/null || return 0; done
  for c in "${COMMANDS[@]}"; do command -v "$c" >/dev/null 2>&1 || return 0; done
  return 1
}

if [ "${1:-}" = "--if-missing" ] && ! missing; then
  exit 0
fi

cmd="apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y ${PACKAGES[*]}"
if [ "$(id -u)" = 0 ]; then
  sh -c "$cmd"
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  sudo -n sh -c "$cmd"
else
  echo "rigtune needs packages that are not installed. Run, as root:" >&2
  echo "  $cmd" >&2
  exit 1
fi
