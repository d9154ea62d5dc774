# Cross-compiling for 64-bit ARM (a Raspberry Pi 3, 4 or 5 under a 64-bit
# OS) on an amd64 Debian 12 machine: Debian's cross compiler, a sysroot that
# holds the arm64 builds of the project's -dev packages, and qemu-user to
# run what was built (CTest runs every test through it).
# scripts/test-arm64.sh makes the sysroot and uses this file:
#
#   cmake -S . -B build-arm64 -DCMAKE_TOOLCHAIN_FILE=cmake/arm64-toolchain.cmake \
#         -DACTORCRAWL_SYSROOT=/path/to/sysroot
#
# Debian's multiarch (libcaf-dev:arm64 beside the amd64 one) cannot do it:
# libcaf-dev and libyaml-cpp-dev are not Multi-Arch: same.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

if(NOT ACTORCRAWL_SYSROOT AND DEFINED ENV{ACTORCRAWL_SYSROOT})
  set(ACTORCRAWL_SYSROOT "$ENV{ACTORCRAWL_SYSROOT}")
endif()
if(NOT ACTORCRAWL_SYSROOT)
  message(FATAL_ERROR "arm64: set ACTORCRAWL_SYSROOT to a sysroot (scripts/test-arm64.sh makes one)")
endif()
# try_compile projects read this file again: hand the sysroot on to them.
set(ENV{ACTORCRAWL_SYSROOT} "${ACTORCRAWL_SYSROOT}")
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES ACTORCRAWL_SYSROOT)

set(CMAKE_SYSROOT "${ACTORCRAWL_SYSROOT}")
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)

set(CMAKE_FIND_ROOT_PATH "${ACTORCRAWL_SYSROOT}")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# pkg-config answers for the target, with paths inside the sysroot.
set(ENV{PKG_CONFIG_SYSROOT_DIR} "${ACTORCRAWL_SYSROOT}")
set(ENV{PKG_CONFIG_LIBDIR}
    "${ACTORCRAWL_SYSROOT}/usr/lib/aarch64-linux-gnu/pkgconfig:${ACTORCRAWL_SYSROOT}/usr/share/pkgconfig")
set(ENV{PKG_CONFIG_PATH} "")

# The linker resolves the shared libraries' own dependencies in the sysroot.
string(APPEND CMAKE_EXE_LINKER_FLAGS_INIT " -Wl,-rpath-link,${ACTORCRAWL_SYSROOT}/usr/lib/aarch64-linux-gnu")

set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64;-L;${ACTORCRAWL_SYSROOT})
