# kiln_target(<target>): compiles <target>'s C++ sources with kilnc and links
# Kiln::runtime. kilnc runs as the target's compiler launcher
# (`kilnc --launcher <c++> <flags...>`), so the target keeps its compiler,
# flags and dependency files; kilnc fuses the array code of each source first.
# Works in Kiln's own build tree (the kilnc target) and from an installed
# package (find_package(Kiln) sets KILN_KILNC).
include_guard(GLOBAL)

set(KILN_CUDA_ARCHS "" CACHE STRING
    "GPU archs (e.g. sm_90) kiln_target() compiles cubins for, beside the sm_80 PTX")

function(kiln_target target)
  if(NOT TARGET ${target})
    message(FATAL_ERROR "kiln_target: '${target}' is not a target")
  endif()
  get_target_property(_kiln_type ${target} TYPE)
  if(_kiln_type STREQUAL "INTERFACE_LIBRARY" OR _kiln_type STREQUAL "UTILITY")
    message(FATAL_ERROR "kiln_target: '${target}' has no sources to compile (${_kiln_type})")
  endif()

  if(TARGET kilnc)
    # Kiln's build tree: the kilnc being built (compiler/tools/kilnc).
    get_target_property(_kiln_bindir kilnc RUNTIME_OUTPUT_DIRECTORY)
    set(_kiln_kilnc "${_kiln_bindir}/kilnc")
  elseif(KILN_KILNC)
    set(_kiln_kilnc "${KILN_KILNC}")
  else()
    message(FATAL_ERROR "kiln_target: kilnc not found; find_package(Kiln) from an "
                        "installation that has the compiler, or set KILN_KILNC")
  endif()

  # Keep a launcher the target already has (e.g. ccache) after kilnc's.
  # KILN_CUDA_ARCHS (e.g. "sm_90") adds cubins for those GPUs beside the PTX.
  set(_kiln_launcher "${_kiln_kilnc}" --launcher)
  if(KILN_CUDA_ARCHS)
    string(REPLACE ";" "," _kiln_archs "${KILN_CUDA_ARCHS}")
    list(APPEND _kiln_launcher "--cuda-arch=${_kiln_archs}")
  endif()
  # (A launcher with --launcher is kilnc already: kiln_target() ran before,
  # or the project uses kiln-toolchain.cmake.)
  get_target_property(_kiln_previous ${target} CXX_COMPILER_LAUNCHER)
  if(NOT _kiln_previous)
    set_property(TARGET ${target} PROPERTY CXX_COMPILER_LAUNCHER "${_kiln_launcher}")
  elseif(NOT "--launcher" IN_LIST _kiln_previous)
    list(APPEND _kiln_launcher ${_kiln_previous})
    set_property(TARGET ${target} PROPERTY CXX_COMPILER_LAUNCHER "${_kiln_launcher}")
  endif()

  # Link the runtime without target_link_libraries(), which would force one
  # signature (plain or keyword) on the caller's own calls.
  get_target_property(_kiln_links ${target} LINK_LIBRARIES)
  if(NOT "Kiln::runtime" IN_LIST _kiln_links)
    set_property(TARGET ${target} APPEND PROPERTY LINK_LIBRARIES Kiln::runtime)
  endif()
  if(_kiln_type STREQUAL "STATIC_LIBRARY" OR _kiln_type STREQUAL "OBJECT_LIBRARY")
    set_property(TARGET ${target} APPEND PROPERTY INTERFACE_LINK_LIBRARIES
                 "$<LINK_ONLY:Kiln::runtime>")
  endif()

  if(TARGET kilnc)
    # Rebuild the objects when kilnc changes.
    add_dependencies(${target} kilnc)
    get_target_property(_kiln_sources ${target} SOURCES)
    foreach(_kiln_source IN LISTS _kiln_sources)
      if(_kiln_source MATCHES "\\.(cpp|cc|cxx|c\\+\\+|C)$")
        set_property(SOURCE ${_kiln_source} TARGET_DIRECTORY ${target} APPEND PROPERTY
                     OBJECT_DEPENDS "${_kiln_kilnc}")
      endif()
    endforeach()
  endif()
endfunction()
