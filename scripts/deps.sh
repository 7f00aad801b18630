#!/usr/bin/env bash
# Installs the Debian packages vkrr needs, only those missing. Needs root (or sudo).
set -euo pipefail
# libclang-rt-dev: clang's sanitizer and libFuzzer runtimes (the fuzz step);
# nothing else pulls it in under --no-install-recommends.  liblzma-dev: the
# hardware tables (src/hw) ship xz-compressed and are decompressed with it.
# liblz4-dev, libzstd-dev: compressed entries of CUDA fatbins (src/base/fatbin.c).
# llvm-15-dev: the PTX JIT (cuda_ref/ptx/jit/ptx_jit.c), LLVM's ORC JIT through its
# C API; lavapipe already loads the same libLLVM-15.  lintian: the package's
# check (tests/e2e_package.sh); man-db: the manual pages opened and checked
# (tests/e2e_cli_docs.sh, which also parses the zsh completion with zsh).
# libspirv-cross-c-shared-dev: a port with its own interface is read by reflection
# (vkbridge/vkiface.c).  libjson-c-dev: JSON read back (vkrr merge).  python3-jsonschema: the tests
# validate every JSON vkrr writes against docs/json/*.schema.json.
pkgs=(build-essential cmake ninja-build clang libclang-rt-dev pkg-config python3 libvulkan-dev mesa-vulkan-drivers
      glslang-tools glslang-dev spirv-tools vulkan-validationlayers libstb-dev liblzma-dev liblz4-dev libzstd-dev libvulkan-volk-dev
      chromium libxml2-utils time llvm-15-dev lintian man-db zsh libjson-c-dev python3-jsonschema
      libspirv-cross-c-shared-dev)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "deps: all Debian packages present"
  exit 0
fi
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "deps: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
