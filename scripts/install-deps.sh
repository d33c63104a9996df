#!/usr/bin/env bash
# Installs the Debian 12 packages xpushark needs to build and test, and only those missing.
# Idempotent: a second run installs nothing and makes no network access.
set -euo pipefail

packages=(
  build-essential cmake ninja-build lld pkg-config libopenblas-dev
  clang libclang-rt-14-dev
  nlohmann-json3-dev libsqlite3-dev zlib1g-dev protobuf-compiler libprotobuf-dev
  qt6-base-dev qt6-svg-dev libqcustomplot-dev libgraphviz-dev
  xvfb xauth
  appstream desktop-file-utils poppler-utils
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages already installed"
  exit 0
fi

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
echo "install-deps: installing ${missing[*]}"
"${sudo_cmd[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
