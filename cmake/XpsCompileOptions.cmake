# Compile options shared by every target of ours (never applied to third-party code).
# Warnings are errors: a warning is a bug someone has not looked at yet.
add_library(xps_compile_options INTERFACE)
target_compile_options(xps_compile_options INTERFACE -Wall -Wextra -Wpedantic -Werror -Wshadow -Wnon-virtual-dtor)
# GCC 12 reports -Wrestrict inside libstdc++'s std::string concatenation at -O3 (GCC bug 105329, a false
# positive fixed in GCC 13); it would make every Release build fail.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  target_compile_options(xps_compile_options INTERFACE -Wno-restrict)
endif()

# Link-time optimisation of core and sim (the release preset): the replay's hot path crosses them (the
# core model appends to the event store, executes, asks the DMA system), and inlining across them is a
# tenth of a timing-only replay. The objects are compiled again when linked, so the warning options apply
# to the link too; GCC 12's false positive shows there as -Wstringop-overflow in std::string's operator+
# (GCC bug 105651, fixed in GCC 13).
option(XPS_LTO "Link-time optimisation of the core and sim libraries" OFF)
if(XPS_LTO)
  target_link_options(xps_compile_options INTERFACE -Werror)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
    target_compile_options(xps_compile_options INTERFACE -Wno-stringop-overflow)
    target_link_options(xps_compile_options INTERFACE -Wno-restrict -Wno-stringop-overflow)
  endif()
endif()

# lld links a test suite five times faster than GNU ld (0.4 s against 2.0 s for tst_session, 1.0 s against
# 6.0 s for tst_ui): with 40 suites that is minutes of every clean build. GCC's LTO objects need GNU ld's
# plugin, so the LTO build keeps the default linker.
include(CheckLinkerFlag)
check_linker_flag(CXX "-fuse-ld=lld" XPS_HAVE_LLD)
if(XPS_HAVE_LLD AND NOT XPS_LTO)
  target_link_options(xps_compile_options INTERFACE -fuse-ld=lld)
endif()

target_compile_definitions(xps_compile_options INTERFACE
  QT_NO_CAST_FROM_ASCII QT_USE_QSTRINGBUILDER QT_NO_FOREACH)

# Sanitizers cover core and everything linking it (CI runs the core and sim suites this way). With XPS_FUZZ
# (the asan preset) the same objects are also instrumented for coverage (fuzzer-no-link), so that the suites
# and the fuzz targets under fuzz/ (each linking libFuzzer's main) share one build. Any sanitizer report is a
# finding: nothing recovers. The preset compiles at -O1 -gline-tables-only, OSS-Fuzz's defaults: a quarter
# less compile time than -O2 -g, and reports keep file:line; asserts stay on.
add_library(xps_sanitize INTERFACE)
if(XPS_FUZZ)
  target_compile_options(xps_sanitize INTERFACE -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
  target_link_options(xps_sanitize INTERFACE -fsanitize=fuzzer-no-link,address,undefined)
elseif(XPS_SANITIZE)
  target_compile_options(xps_sanitize INTERFACE -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
  target_link_options(xps_sanitize INTERFACE -fsanitize=address,undefined)
endif()

# Unity builds of the libraries and apps: their files include the same heavy headers (nlohmann/json, the
# standard library, Qt), and at -O2 a translation unit's time is mostly code for the inline functions of
# those headers, generated again in every file that uses them and thrown away at link time. Compiled eight
# files at a time, each is generated once a batch. (The test suites are one file each: nothing to share.)
# Off for a quick edit-compile loop on one file (-DXPS_UNITY_BUILD=OFF).
option(XPS_UNITY_BUILD "Compile the libraries and apps eight files at a time" ON)
function(xps_unity_build target)
  if(XPS_UNITY_BUILD)
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 8)
  endif()
endfunction()
