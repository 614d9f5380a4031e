# scripts/lib.sh — shared by scripts/ringsched and scripts/test: install missing Debian packages, configure, build.
# Sourced, not run.

RINGSCHED_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# What building the command line needs (scripts/ringsched installs only these: about half the download of the whole
# list, so a first `scripts/ringsched table3` is minutes shorter), and what the tests, benchmarks, sanitizer build,
# lint, plots and the Python module add (scripts/test installs both).
RINGSCHED_BUILD_PACKAGES=(cmake g++ make ninja-build libeigen3-dev libboost-graph-dev libboost-random-dev
  nlohmann-json3-dev libcli11-dev libqhull-dev liblbfgsb-dev gfortran coinor-libclp-dev libopenmpi-dev openmpi-bin)
RINGSCHED_DEV_PACKAGES=(catch2 libbenchmark-dev python3-matplotlib clang-format clang libclang-rt-dev pybind11-dev
  python3-dev python3-pytest python3-pandas)
RINGSCHED_PACKAGES=("${RINGSCHED_BUILD_PACKAGES[@]}" "${RINGSCHED_DEV_PACKAGES[@]}")

log() { echo "[ringsched] $*" >&2; }

# missing_packages [PKG...]: those not installed (default: every package of RINGSCHED_PACKAGES).
missing_packages() {
  local missing=()
  local wanted=("$@")
  [ ${#wanted[@]} -eq 0 ] && wanted=("${RINGSCHED_PACKAGES[@]}")
  for p in "${wanted[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
      missing+=("$p")
    fi
  done
  echo "${missing[@]}"
}

# ensure_packages [PKG...]: installs the missing ones (default: every package of RINGSCHED_PACKAGES).
ensure_packages() {
  local wanted=("$@")
  [ ${#wanted[@]} -eq 0 ] && wanted=("${RINGSCHED_PACKAGES[@]}")
  if ! command -v dpkg-query >/dev/null 2>&1; then
    log "not a Debian-like system: install the equivalents of: ${wanted[*]}"
    return 0
  fi
  local missing
  missing="$(missing_packages "${wanted[@]}")"
  [ -z "$missing" ] && return 0
  if [ "$(id -u)" -ne 0 ]; then
    log "missing packages: $missing"
    log "run as root:  apt-get update && apt-get install -y $missing"
    exit 1
  fi
  log "installing: $missing"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  # shellcheck disable=SC2086
  apt-get install -y -qq $missing >&2
}

# configure_and_build BUILD_DIR [extra cmake args...]: incremental; re-configures only when needed (a new folder, or
# a -DKEY=VALUE the cache does not hold yet; edited CMakeLists are noticed by the build itself). RINGSCHED_TARGET set:
# builds only that target (scripts/ringsched builds the command line alone, not the tests and benchmarks).
configure_and_build() {
  local dir="$1"
  shift
  local jobs
  jobs="$(nproc 2>/dev/null || echo 2)"
  # Ninja starts a target's compilations before the libraries it links are built, which keeps both cores of a
  # 2-core CI machine busy; a build folder configured earlier with another generator is configured afresh.
  local generator=()
  if command -v ninja >/dev/null 2>&1; then
    generator=(-G Ninja)
    if [ -f "$dir/CMakeCache.txt" ] && ! grep -q '^CMAKE_GENERATOR:INTERNAL=Ninja$' "$dir/CMakeCache.txt"; then
      log "$dir was configured for another generator: configuring it afresh for Ninja"
      rm -rf "$dir/CMakeCache.txt" "$dir/CMakeFiles"
    fi
  fi
  if [ ! -f "$dir/CMakeCache.txt" ]; then
    log "configuring $dir"
    cmake "${generator[@]}" -S "$RINGSCHED_ROOT" -B "$dir" "$@" >&2
  elif ! cache_holds "$dir/CMakeCache.txt" "$@"; then
    cmake -S "$RINGSCHED_ROOT" -B "$dir" "$@" >/dev/null
  fi
  local target=()
  [ -n "${RINGSCHED_TARGET:-}" ] && target=(--target "$RINGSCHED_TARGET")
  if [ -n "${RINGSCHED_TARGET:-}" ] && command -v ninja >/dev/null 2>&1 && [ -f "$dir/build.ninja" ] &&
     ninja -C "$dir" -n "$RINGSCHED_TARGET" 2>/dev/null | grep -q '^ninja: no work to do'; then
    return 0  # up to date: no build log
  fi
  log "building $dir${RINGSCHED_TARGET:+ (target $RINGSCHED_TARGET)}"
  cmake --build "$dir" -j "$jobs" "${target[@]}" >&2
}

# cache_holds CACHE -DKEY=VALUE...: true when the cache already has every KEY with that VALUE.
cache_holds() {
  local cache="$1"
  shift
  local a key value
  for a in "$@"; do
    case "$a" in
      -D*=*)
        key="${a#-D}"
        value="${key#*=}"
        key="${key%%=*}"
        key="${key%%:*}"
        grep -q "^${key}:[A-Z]*=${value}\$" "$cache" || return 1
        ;;
      *) return 1 ;;
    esac
  done
  return 0
}

# build_cli: installs the build packages and builds the command line alone in build/ (scripts/ringsched,
# scripts/fidelity). A fresh folder is a unity build (several sources per compiler run: 1.5 min instead of 3.5 on 2
# cores); a folder configured before (by scripts/test, a plain build, or by hand) is used as it is, not rebuilt the
# other way. -Werror under CI.
build_cli() {
  ensure_packages "${RINGSCHED_BUILD_PACKAGES[@]}"
  local werror=OFF
  [ "${CI:-}" = "true" ] && werror=ON
  local unity
  unity="$(unity_setting "$RINGSCHED_ROOT/build/CMakeCache.txt")"
  RINGSCHED_TARGET=ringsched configure_and_build "$RINGSCHED_ROOT/build" -DCMAKE_BUILD_TYPE=Release \
    -DRINGSCHED_WERROR=$werror -DCMAKE_UNITY_BUILD=$unity
}

# unity_setting CACHE: ON for a folder without a cache (a fresh build is a unity build), else the cache's own setting
# (CMake's default is off; a value given with -D has no type in the cache).
unity_setting() {
  if [ ! -f "$1" ]; then
    echo ON
  elif grep -Eqi '^CMAKE_UNITY_BUILD:[A-Z]*=(ON|TRUE|YES|Y|1)$' "$1"; then
    echo ON
  else
    echo OFF
  fi
}
