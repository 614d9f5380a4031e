#!/usr/bin/env bash
# test/scripts/lib_test.sh — scripts/lib.sh's decisions that decide whether a build folder is rebuilt: cache_holds
# (re-configure only when an option changes) and unity_setting (a fresh folder is a unity build; a configured one
# keeps its setting, however CMake typed it). Exit 0 when every check holds; prints each failure.
set -uo pipefail
source "$(cd "$(dirname "$0")/../.." && pwd)/scripts/lib.sh"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
fails=0
expect() {  # expect WANT GOT WHAT
  if [ "$1" != "$2" ]; then
    echo "FAIL: $3: expected '$1', got '$2'"
    fails=$((fails + 1))
  fi
}
cache="$tmp/CMakeCache.txt"
expect ON "$(unity_setting "$tmp/none/CMakeCache.txt")" "no cache: a fresh folder"
printf 'CMAKE_BUILD_TYPE:STRING=Release\n' > "$cache"
expect OFF "$(unity_setting "$cache")" "configured without the option (CMake's default)"
printf 'CMAKE_UNITY_BUILD:UNINITIALIZED=OFF\n' > "$cache"
expect OFF "$(unity_setting "$cache")" "-DCMAKE_UNITY_BUILD=OFF (untyped)"
printf 'CMAKE_UNITY_BUILD:UNINITIALIZED=ON\n' > "$cache"
expect ON "$(unity_setting "$cache")" "-DCMAKE_UNITY_BUILD=ON (untyped)"
printf 'CMAKE_UNITY_BUILD:BOOL=TRUE\n' > "$cache"
expect ON "$(unity_setting "$cache")" "typed BOOL TRUE"
printf 'CMAKE_UNITY_BUILD:BOOL=0\n' > "$cache"
expect OFF "$(unity_setting "$cache")" "typed BOOL 0"

printf 'CMAKE_BUILD_TYPE:STRING=Release\nRINGSCHED_WERROR:BOOL=ON\nCMAKE_UNITY_BUILD:UNINITIALIZED=OFF\n' > "$cache"
holds() { if cache_holds "$cache" "$@"; then echo yes; else echo no; fi; }
expect yes "$(holds -DCMAKE_BUILD_TYPE=Release -DRINGSCHED_WERROR=ON -DCMAKE_UNITY_BUILD=OFF)" "every option held"
expect no "$(holds -DRINGSCHED_WERROR=OFF)" "an option with another value"
expect no "$(holds -DRINGSCHED_REQUIRE_DEV_PACKAGES=ON)" "an option the cache lacks"
expect no "$(holds -G Ninja)" "an argument that is not -DKEY=VALUE"
[ "$fails" -eq 0 ] && echo "scripts/lib.sh: all checks passed"
exit $((fails > 0))
