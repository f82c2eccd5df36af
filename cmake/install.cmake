# Installation: headers, libraries, the launcher (also as upcxx-run), the compiler wrapper
# `upcxx`, `upcxx-meta`, two CMake packages (Gannet and UPCXX) and pkg-config files.
#
# Everything installed must be relocatable: `cmake --install BUILD --prefix P` may pick a
# prefix other than CMAKE_INSTALL_PREFIX, and the tree may be moved afterwards. So no file
# records an absolute install or build path: the scripts find the prefix from their own
# location, the CMake packages from theirs (configure_package_config_file), and the
# pkg-config files from ${pcfiledir}.

include(CMakePackageConfigHelpers)

set(GANNET_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/Gannet")
set(UPCXX_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/UPCXX")
set(GANNET_INSTALL_PKGCONFIGDIR "${CMAKE_INSTALL_LIBDIR}/pkgconfig")

# The UPC++ release whose API Gannet follows, as CMake and pkg-config spell versions
# (2020.10.0), read from the header so the two never disagree.
file(STRINGS "${PROJECT_SOURCE_DIR}/include/upcxx/version.hpp" _gannet_upcxx_version_line
     REGEX "^#define UPCXX_VERSION [0-9]+L?$")
if(NOT _gannet_upcxx_version_line MATCHES "UPCXX_VERSION ([0-9][0-9][0-9][0-9])([0-9][0-9])([0-9][0-9])")
  message(FATAL_ERROR "cannot read UPCXX_VERSION from include/upcxx/version.hpp")
endif()
math(EXPR _gannet_upcxx_minor "${CMAKE_MATCH_2}")  # drops the leading zero: 09 -> 9
math(EXPR _gannet_upcxx_patch "${CMAKE_MATCH_3}")  # 00 -> 0
set(GANNET_UPCXX_VERSION "${CMAKE_MATCH_1}.${_gannet_upcxx_minor}.${_gannet_upcxx_patch}")

# A library built with sanitizers only links into programs linked with the same runtime, so
# the wrapper, upcxx-meta, pkg-config and the exported CMake targets carry the flag along.
set(GANNET_EXTRA_LINK_FLAGS "")
if(GANNET_SANITIZE)
  set(GANNET_EXTRA_LINK_FLAGS "-fsanitize=${GANNET_SANITIZE}")
endif()
# With the MPI transport, programs link the MPI libraries after libgannet.a (by path), and
# compile with MPI's include path and options, so that an MPI hybrid program (one that
# includes <mpi.h> and calls MPI itself) builds with the wrapper, upcxx-meta, the CMake
# targets or pkg-config unchanged, as with UPC++ built for MPI. FindMPI's definitions are
# left out: they only switch off the MPI C++ bindings for Gannet's own sources, and the MPI
# libraries a program links include those bindings' library, as `mpicxx` links.
set(GANNET_MPI_LIBS "")
set(GANNET_MPI_CPPFLAGS "")
set(GANNET_MPI_HELP "")
set(GANNET_MPI_LINK_HELP "")
set(GANNET_NETWORKS "smp")
set(GANNET_MPI_BOOL FALSE)
if(GANNET_MPI)
  set(GANNET_MPI_BOOL TRUE)
  list(JOIN MPI_CXX_LIBRARIES " " GANNET_MPI_LIBS)
  set(_gannet_mpi_cppflags ${MPI_CXX_COMPILE_OPTIONS})
  foreach(_dir IN LISTS MPI_CXX_INCLUDE_DIRS)
    list(APPEND _gannet_mpi_cppflags "-I${_dir}")
  endforeach()
  list(REMOVE_DUPLICATES _gannet_mpi_cppflags)
  list(JOIN _gannet_mpi_cppflags " " GANNET_MPI_CPPFLAGS)
  set(GANNET_MPI_HELP ", MPI's include path (this build has MPI)")
  set(GANNET_MPI_LINK_HELP ", the MPI libraries")
  set(GANNET_NETWORKS "smp mpi")
endif()

# --- The consumer-facing targets -----------------------------------------------------------
# Gannet::upcxx is what a program links: the static library (so programs need no runtime
# path), its include directory, Threads and rt (through gannet_static), C++17 at least, and opt
# codemode unless the consumer builds its Debug configuration. Gannet::upcxx_par is the same
# in threadmode par. Both define the backend macros UPC++'s own targets define (UPCXX_BACKEND
# and UPCXX_BACKEND_GASNET_SEQ or _PAR), which programs test before including upcxx.hpp. The
# aliases let in-tree code use the same names as installed consumers.
foreach(_mode seq par)
  if(_mode STREQUAL "seq")
    set(_t gannet_upcxx)
    set(_export upcxx)
    set(_defs UPCXX_BACKEND_GASNET_SEQ=1)
  else()
    set(_t gannet_upcxx_par)
    set(_export upcxx_par)
    set(_defs UPCXX_BACKEND_GASNET_PAR=1 UPCXX_THREADMODE=1)
  endif()
  add_library(${_t} INTERFACE)
  set_target_properties(${_t} PROPERTIES EXPORT_NAME ${_export})
  target_link_libraries(${_t} INTERFACE gannet_static)
  # A consumer that asks for C++11 or C++14 (CMAKE_CXX_STANDARD, CXX_STANDARD) is raised to
  # C++17 by CMake itself; one that asks for a later standard keeps it.
  target_compile_features(${_t} INTERFACE cxx_std_17)
  target_compile_definitions(${_t} INTERFACE $<$<NOT:$<CONFIG:Debug>>:UPCXX_CODEMODE=3>
                             UPCXX_BACKEND=1 ${_defs})
  add_library(Gannet::${_export} ALIAS ${_t})
endforeach()
# The public headers need C++17 (the library itself is built as C++20), so a consumer
# linking either library target directly gets at least that; a compile feature is a minimum,
# so a consumer that asks for C++20 or later keeps it. A sanitized library needs the
# sanitizer runtime in the program (for the shared one, first in the load order), so the
# installed targets ask for it at link time. In the build tree the libraries carry
# MPI::MPI_CXX (src/CMakeLists.txt); installed, they carry MPI's include path here, next to
# the MPI libraries they link by path.
foreach(_t gannet_static gannet_shared)
  target_compile_features(${_t} INTERFACE cxx_std_17)
  if(GANNET_SANITIZE)
    target_link_options(${_t} INTERFACE ${GANNET_EXTRA_LINK_FLAGS})
  endif()
  if(GANNET_MPI)
    foreach(_dir IN LISTS MPI_CXX_INCLUDE_DIRS)
      target_include_directories(${_t} SYSTEM INTERFACE $<INSTALL_INTERFACE:${_dir}>)
    endforeach()
    if(MPI_CXX_COMPILE_OPTIONS)
      target_compile_options(${_t} INTERFACE $<INSTALL_INTERFACE:${MPI_CXX_COMPILE_OPTIONS}>)
    endif()
  endif()
endforeach()

# --- Headers, libraries, launcher ----------------------------------------------------------
# The two public trees are installed whole: everything under include/ is public by layout.
install(DIRECTORY "${PROJECT_SOURCE_DIR}/include/upcxx" "${PROJECT_SOURCE_DIR}/include/gannet"
        DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}")

# The include directory reaches the exported targets through the libraries' own
# $<INSTALL_INTERFACE:include> (src/CMakeLists.txt), so no INCLUDES DESTINATION here.
install(TARGETS gannet_static gannet_shared gannet_upcxx gannet_upcxx_par
        EXPORT GannetTargets
        ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}"
        LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}"
        RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}")

# libgannet-smp.a: the library without the MPI transport (upcxx -network=smp).
install(TARGETS gannet_smp_static ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}")
install(TARGETS gannet-run RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}")
# upcxx-run is the name UPC++ users type. A relative symlink keeps working when the prefix
# moves; it is made at install time because the prefix is only known then (--prefix).
install(CODE "
  set(_bindir \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_BINDIR}\")
  message(STATUS \"Installing: \${_bindir}/upcxx-run -> gannet-run\")
  file(CREATE_LINK gannet-run \"\${_bindir}/upcxx-run\" SYMBOLIC)
")

# --- upcxx and upcxx-meta ------------------------------------------------------------------
# The scripts compute `prefix` from their own location at run time; these are the paths they
# use, written in terms of that shell variable. An absolute install dir (unusual) is kept as
# is and is then, necessarily, not relocatable.
function(_gannet_shell_dir out dir)
  if(IS_ABSOLUTE "${dir}")
    set(${out} "${dir}" PARENT_SCOPE)
  else()
    set(${out} "\${prefix}/${dir}" PARENT_SCOPE)
  endif()
endfunction()
_gannet_shell_dir(GANNET_SH_INCLUDEDIR "${CMAKE_INSTALL_INCLUDEDIR}")
_gannet_shell_dir(GANNET_SH_LIBDIR "${CMAKE_INSTALL_LIBDIR}")
# From bin/ back up to the prefix: ".." for the usual "bin".
if(IS_ABSOLUTE "${CMAKE_INSTALL_BINDIR}")
  set(GANNET_BIN_TO_PREFIX "${CMAKE_INSTALL_PREFIX}")
else()
  file(RELATIVE_PATH GANNET_BIN_TO_PREFIX "/gannet-root/${CMAKE_INSTALL_BINDIR}" "/gannet-root")
  string(REGEX REPLACE "/$" "" GANNET_BIN_TO_PREFIX "${GANNET_BIN_TO_PREFIX}")
endif()

# The C compiler upcxx-meta reports (CC): the project enables only C++, so name the C
# driver of the same family as the C++ compiler.
get_filename_component(_gannet_cxx_dir "${CMAKE_CXX_COMPILER}" DIRECTORY)
get_filename_component(_gannet_cxx_name "${CMAKE_CXX_COMPILER}" NAME)
if(_gannet_cxx_name MATCHES "^(.*)clang\\+\\+(.*)$")
  set(_gannet_cc_name "${CMAKE_MATCH_1}clang${CMAKE_MATCH_2}")
elseif(_gannet_cxx_name MATCHES "^(.*)g\\+\\+(.*)$")
  set(_gannet_cc_name "${CMAKE_MATCH_1}gcc${CMAKE_MATCH_2}")
elseif(_gannet_cxx_name MATCHES "^(.*)c\\+\\+(.*)$")
  set(_gannet_cc_name "${CMAKE_MATCH_1}cc${CMAKE_MATCH_2}")
else()
  set(_gannet_cc_name "cc")
endif()
if(EXISTS "${_gannet_cxx_dir}/${_gannet_cc_name}")
  set(GANNET_CC "${_gannet_cxx_dir}/${_gannet_cc_name}")
else()
  set(GANNET_CC "${_gannet_cc_name}")
endif()

# The language standard: the public headers need C++17. upcxx-meta and pkg-config give
# -std=c++17 (as UPC++'s give the standard it needs), so a build that says -std=c++11 before
# them compiles as C++17; the wrapper replaces an older -std= and adds -std=c++17 when the
# command names none.
foreach(_tool upcxx upcxx-meta)
  configure_file("${PROJECT_SOURCE_DIR}/tools/${_tool}.in"
                 "${PROJECT_BINARY_DIR}/tools/${_tool}" @ONLY)
  install(PROGRAMS "${PROJECT_BINARY_DIR}/tools/${_tool}" DESTINATION "${CMAKE_INSTALL_BINDIR}")
endforeach()
# upcxx-info: the same as `upcxx -info` (UPC++ 2023.3).
install(PROGRAMS "${PROJECT_SOURCE_DIR}/tools/upcxx-info" DESTINATION "${CMAKE_INSTALL_BINDIR}")

# --- CMake packages ------------------------------------------------------------------------
install(EXPORT GannetTargets
        NAMESPACE Gannet::
        FILE GannetTargets.cmake
        DESTINATION "${GANNET_INSTALL_CMAKEDIR}")

configure_package_config_file(
  "${PROJECT_SOURCE_DIR}/cmake/GannetConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/cmake/GannetConfig.cmake"
  INSTALL_DESTINATION "${GANNET_INSTALL_CMAKEDIR}"
  PATH_VARS CMAKE_INSTALL_BINDIR)
# Before 1.0 a minor release may break compatibility.
write_basic_package_version_file(
  "${PROJECT_BINARY_DIR}/cmake/GannetConfigVersion.cmake"
  VERSION "${PROJECT_VERSION}"
  COMPATIBILITY SameMinorVersion)
install(FILES "${PROJECT_BINARY_DIR}/cmake/GannetConfig.cmake"
              "${PROJECT_BINARY_DIR}/cmake/GannetConfigVersion.cmake"
        DESTINATION "${GANNET_INSTALL_CMAKEDIR}")

configure_package_config_file(
  "${PROJECT_SOURCE_DIR}/cmake/UPCXXConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/cmake/UPCXXConfig.cmake"
  INSTALL_DESTINATION "${UPCXX_INSTALL_CMAKEDIR}"
  PATH_VARS CMAKE_INSTALL_BINDIR)
# UPC++ releases keep source compatibility, so a program asking for 2020.3 accepts 2020.10.
write_basic_package_version_file(
  "${PROJECT_BINARY_DIR}/cmake/UPCXXConfigVersion.cmake"
  VERSION "${GANNET_UPCXX_VERSION}"
  COMPATIBILITY AnyNewerVersion)
install(FILES "${PROJECT_BINARY_DIR}/cmake/UPCXXConfig.cmake"
              "${PROJECT_BINARY_DIR}/cmake/UPCXXConfigVersion.cmake"
        DESTINATION "${UPCXX_INSTALL_CMAKEDIR}")

# --- pkg-config ----------------------------------------------------------------------------
# ${pcfiledir} is the directory holding the .pc file, wherever the tree now lives.
file(RELATIVE_PATH GANNET_PC_TO_PREFIX "/gannet-root/${GANNET_INSTALL_PKGCONFIGDIR}" "/gannet-root")
string(REGEX REPLACE "/$" "" GANNET_PC_TO_PREFIX "${GANNET_PC_TO_PREFIX}")
set(GANNET_PC_PREFIX "\${pcfiledir}/${GANNET_PC_TO_PREFIX}")
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(GANNET_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
endif()
_gannet_shell_dir(GANNET_PC_INCLUDEDIR "${CMAKE_INSTALL_INCLUDEDIR}")
_gannet_shell_dir(GANNET_PC_LIBDIR "${CMAKE_INSTALL_LIBDIR}")
string(STRIP "\${libdir}/libgannet.a ${GANNET_MPI_LIBS} -lpthread -lrt ${GANNET_EXTRA_LINK_FLAGS}" GANNET_PC_LIBS)

# One template, four files: upcxx.pc for UPC++ build systems (versioned like UPC++) and
# gannet.pc for those that ask for this implementation by name, each in threadmode seq and,
# as upcxx-par.pc and gannet-par.pc, par. All are opt codemode.
foreach(_mode seq par)
  if(_mode STREQUAL "seq")
    set(_suffix "")
    set(GANNET_PC_MODE_FLAGS "-DUPCXX_BACKEND=1 -DUPCXX_BACKEND_GASNET_SEQ=1")
    set(_mode_text "opt codemode")
  else()
    set(_suffix "-par")
    set(GANNET_PC_MODE_FLAGS "-DUPCXX_BACKEND=1 -DUPCXX_BACKEND_GASNET_PAR=1 -DUPCXX_THREADMODE=1")
    set(_mode_text "opt codemode, par threadmode")
  endif()
  set(GANNET_PC_NAME "UPC++")
  set(GANNET_PC_DESCRIPTION "UPC++ v1.0 programming model (Gannet implementation, ${_mode_text})")
  set(GANNET_PC_VERSION "${GANNET_UPCXX_VERSION}")
  configure_file("${PROJECT_SOURCE_DIR}/cmake/upcxx.pc.in" "${PROJECT_BINARY_DIR}/cmake/upcxx${_suffix}.pc" @ONLY)
  set(GANNET_PC_NAME "Gannet")
  set(GANNET_PC_DESCRIPTION "Gannet, an implementation of UPC++ v1.0 for C++17 and later (${_mode_text})")
  set(GANNET_PC_VERSION "${PROJECT_VERSION}")
  configure_file("${PROJECT_SOURCE_DIR}/cmake/upcxx.pc.in" "${PROJECT_BINARY_DIR}/cmake/gannet${_suffix}.pc" @ONLY)
endforeach()
install(FILES "${PROJECT_BINARY_DIR}/cmake/upcxx.pc" "${PROJECT_BINARY_DIR}/cmake/gannet.pc"
              "${PROJECT_BINARY_DIR}/cmake/upcxx-par.pc" "${PROJECT_BINARY_DIR}/cmake/gannet-par.pc"
        DESTINATION "${GANNET_INSTALL_PKGCONFIGDIR}")

# --- Examples and documents ----------------------------------------------------------------
# The examples with a Makefile that builds them with the installed wrapper, and the user's
# documents (README.md links into docs/, so the two keep that layout).
file(GLOB _gannet_examples "${PROJECT_SOURCE_DIR}/examples/*.cpp")
install(FILES ${_gannet_examples} "${PROJECT_SOURCE_DIR}/examples/Makefile"
        DESTINATION "${CMAKE_INSTALL_DATADIR}/gannet/examples")
install(FILES "${PROJECT_SOURCE_DIR}/README.md" DESTINATION "${CMAKE_INSTALL_DATADIR}/doc/gannet")
install(DIRECTORY "${PROJECT_SOURCE_DIR}/docs" DESTINATION "${CMAKE_INSTALL_DATADIR}/doc/gannet")
