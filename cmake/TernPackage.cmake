# How Tern is installed and consumed: the CMake package (find_package(Tern)),
# the pkg-config files and what the compiler wrappers link. Included by the
# top-level CMakeLists.txt after every add_subdirectory (so it sees the front
# ends' targets) and by launcher/wrappers/ for tern_link_closure().
#
#   tern_link_closure(<out> <target>...)      what linking <target>s takes
#   tern_package_target(<target> <name>)      install <target>, export it as Tern::<name>
#   tern_package_pkgconfig(<module> <description> <target>...)
#   tern_package_finish()                     TernTargets, TernConfig, TernConfigVersion
include_guard(GLOBAL)

include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# (Variables set here would live only in the scope of the first include; the
# functions below use CMAKE_CURRENT_FUNCTION_LIST_DIR instead.)

# Turns a path relative to the install prefix into what a relocatable file
# says for it: "<prefix_expression>/<path>", or the path itself when absolute.
function(_tern_prefixed out prefix_expression path)
  if(IS_ABSOLUTE "${path}")
    set(${out} "${path}" PARENT_SCOPE)
  else()
    set(${out} "${prefix_expression}/${path}" PARENT_SCOPE)
  endif()
endfunction()

# The relative path from <prefix>/<dir> back up to <prefix> ("..", "../.."),
# for files that find their prefix from where they lie.
function(tern_path_to_prefix out dir)
  if(IS_ABSOLUTE "${dir}")
    message(FATAL_ERROR "Tern's relocatable files need a relative install directory, not ${dir}")
  endif()
  file(RELATIVE_PATH relative "/tern-prefix/${dir}" "/tern-prefix")
  string(REGEX REPLACE "/+$" "" relative "${relative}")
  set(${out} "${relative}" PARENT_SCOPE)
endfunction()

# --- Link closure ---------------------------------------------------------

function(_tern_closure_visit target)
  get_property(visited GLOBAL PROPERTY _TERN_CLOSURE_VISITED)
  if(target IN_LIST visited)
    return()
  endif()
  set_property(GLOBAL APPEND PROPERTY _TERN_CLOSURE_VISITED ${target})

  get_target_property(type ${target} TYPE)
  # A static library needs everything it links, private parts included; a
  # shared one carries its private dependencies itself.
  if(type STREQUAL "STATIC_LIBRARY")
    get_target_property(deps ${target} LINK_LIBRARIES)
  else()
    get_target_property(deps ${target} INTERFACE_LINK_LIBRARIES)
  endif()
  if(NOT deps)
    set(deps "")
  endif()

  get_target_property(includes ${target} INTERFACE_INCLUDE_DIRECTORIES)
  foreach(dir IN LISTS includes)
    if(dir MATCHES "^\\$<BUILD_INTERFACE:(.*)>$")
      set_property(GLOBAL APPEND PROPERTY _TERN_CLOSURE_INCLUDES "${CMAKE_MATCH_1}")
    elseif(dir AND NOT dir MATCHES "^\\$<" AND NOT dir MATCHES "-NOTFOUND$")
      set_property(GLOBAL APPEND PROPERTY _TERN_CLOSURE_INCLUDES "${dir}")
    endif()
  endforeach()

  foreach(dep IN LISTS deps)
    if(dep MATCHES "^\\$<LINK_ONLY:(.*)>$")
      set(dep "${CMAKE_MATCH_1}")
    endif()
    if(dep STREQUAL "" OR dep MATCHES "^::@")
      continue()  # directory markers of target_link_libraries from another folder
    elseif(dep MATCHES "^\\$<")
      message(WARNING "Tern packaging: ${target} links '${dep}', which the pkg-config files and wrappers leave out")
      continue()
    endif()
    # Imported targets of pkg_check_modules are visible only in the folder
    # that made them: recognized by name.
    if(dep MATCHES "^PkgConfig::(.+)$")
      set_property(GLOBAL APPEND PROPERTY _TERN_CLOSURE_PKG "${CMAKE_MATCH_1}")
    elseif(dep STREQUAL "Threads::Threads")
      set_property(GLOBAL APPEND PROPERTY _TERN_CLOSURE_SYSTEM "-pthread")
    elseif(TARGET ${dep})
      get_target_property(aliased ${dep} ALIASED_TARGET)
      if(aliased)
        set(dep ${aliased})
      endif()
      get_target_property(imported ${dep} IMPORTED)
      if(imported)
        message(WARNING "Tern packaging: ${target} links the imported target ${dep}, which the pkg-config files and wrappers leave out")
      else()
        _tern_closure_visit(${dep})
      endif()
    elseif(dep MATCHES "::")
      message(WARNING "Tern packaging: ${target} links ${dep}, not a target here; the pkg-config files and wrappers leave it out")
    elseif(dep MATCHES "^-" OR IS_ABSOLUTE "${dep}")
      set_property(GLOBAL APPEND PROPERTY _TERN_CLOSURE_SYSTEM "${dep}")
    else()
      set_property(GLOBAL APPEND PROPERTY _TERN_CLOSURE_SYSTEM "-l${dep}")
    endif()
  endforeach()

  # Post-order: a library lands after everything it links; reversed below.
  if(NOT type STREQUAL "INTERFACE_LIBRARY")
    set_property(GLOBAL APPEND PROPERTY _TERN_CLOSURE_ORDER ${target})
  endif()
endfunction()

# tern_link_closure(<out> <target>...) sets, in the caller:
#   <out>_TARGETS       the project's libraries to link, each before those it needs
#   <out>_LIBS          their library names (-l<name>)
#   <out>_LIBDIRS       where they are built
#   <out>_INCLUDE_DIRS  their include directories in the source/build tree
#   <out>_PKG_PREFIXES  pkg-config prefixes they link as PkgConfig::<prefix> (PMIX, ...)
#   <out>_PKG_MODULES   the pkg-config modules behind them (pmix, ...)
#   <out>_PKG_LDFLAGS   what pkg-config said linking those takes
#   <out>_SYSTEM        other link flags (-lrt, -pthread)
#   <out>_HAS_SHARED / <out>_HAS_STATIC  whether any of the libraries is shared / static
function(tern_link_closure out)
  foreach(property ORDER VISITED INCLUDES PKG SYSTEM)
    set_property(GLOBAL PROPERTY _TERN_CLOSURE_${property} "")
  endforeach()
  foreach(target IN LISTS ARGN)
    _tern_closure_visit(${target})
  endforeach()

  get_property(order GLOBAL PROPERTY _TERN_CLOSURE_ORDER)
  list(REVERSE order)
  set(libs "")
  set(libdirs "")
  set(has_shared FALSE)
  set(has_static FALSE)
  foreach(target IN LISTS order)
    get_target_property(type ${target} TYPE)
    get_target_property(name ${target} OUTPUT_NAME)
    if(NOT name)
      set(name ${target})
    endif()
    list(APPEND libs ${name})
    if(type STREQUAL "STATIC_LIBRARY")
      set(has_static TRUE)
      get_target_property(dir ${target} ARCHIVE_OUTPUT_DIRECTORY)
    else()
      set(has_shared TRUE)
      get_target_property(dir ${target} LIBRARY_OUTPUT_DIRECTORY)
    endif()
    if(NOT dir)
      get_target_property(dir ${target} BINARY_DIR)
    endif()
    list(APPEND libdirs ${dir})
  endforeach()
  list(REMOVE_DUPLICATES libdirs)

  get_property(includes GLOBAL PROPERTY _TERN_CLOSURE_INCLUDES)
  list(REMOVE_DUPLICATES includes)

  get_property(prefixes GLOBAL PROPERTY _TERN_CLOSURE_PKG)
  list(REMOVE_DUPLICATES prefixes)
  set(modules "")
  set(ldflags "")
  foreach(prefix IN LISTS prefixes)
    # pkg_check_modules keeps what it found in the cache, so the module and
    # its flags are readable here whichever folder asked for it.
    if(DEFINED ${prefix}_MODULE_NAME)
      list(APPEND modules "${${prefix}_MODULE_NAME}")
    else()
      string(TOLOWER "${prefix}" module)
      list(APPEND modules "${module}")
    endif()
    list(APPEND ldflags ${${prefix}_LDFLAGS})
  endforeach()
  # -L to the compiler's own library directories adds nothing.
  foreach(dir IN LISTS CMAKE_CXX_IMPLICIT_LINK_DIRECTORIES CMAKE_C_IMPLICIT_LINK_DIRECTORIES)
    list(REMOVE_ITEM ldflags "-L${dir}")
  endforeach()

  get_property(system GLOBAL PROPERTY _TERN_CLOSURE_SYSTEM)
  list(REMOVE_DUPLICATES system)

  set(${out}_TARGETS "${order}" PARENT_SCOPE)
  set(${out}_LIBS "${libs}" PARENT_SCOPE)
  set(${out}_LIBDIRS "${libdirs}" PARENT_SCOPE)
  set(${out}_INCLUDE_DIRS "${includes}" PARENT_SCOPE)
  set(${out}_PKG_PREFIXES "${prefixes}" PARENT_SCOPE)
  set(${out}_PKG_MODULES "${modules}" PARENT_SCOPE)
  set(${out}_PKG_LDFLAGS "${ldflags}" PARENT_SCOPE)
  set(${out}_SYSTEM "${system}" PARENT_SCOPE)
  set(${out}_HAS_SHARED ${has_shared} PARENT_SCOPE)
  set(${out}_HAS_STATIC ${has_static} PARENT_SCOPE)
endfunction()

# --- Installed targets -------------------------------------------------------

# Installs <target> into the export set TernTargets as Tern::<name>, with the
# headers of its include directories. Include directories given as plain
# paths (the usual target_include_directories(... PUBLIC dir)) are kept for
# the build tree and replaced by the installed include directory in the
# package.
function(tern_package_target target name)
  get_target_property(dirs ${target} INTERFACE_INCLUDE_DIRECTORIES)
  if(dirs)
    set(rewritten "")
    set(has_install_interface FALSE)
    foreach(dir IN LISTS dirs)
      if(dir MATCHES "^\\$<")
        if(dir MATCHES "^\\$<INSTALL_INTERFACE:")
          set(has_install_interface TRUE)
        elseif(dir MATCHES "^\\$<BUILD_INTERFACE:(.*)>$")
          set(header_dir "${CMAKE_MATCH_1}")
        endif()
        list(APPEND rewritten "${dir}")
      else()
        set(header_dir "${dir}")
        list(APPEND rewritten "$<BUILD_INTERFACE:${dir}>")
      endif()
      # Headers of the project's own include directories go to the prefix.
      if(header_dir)
        get_property(installed GLOBAL PROPERTY _TERN_INSTALLED_HEADER_DIRS)
        string(FIND "${header_dir}/" "${PROJECT_SOURCE_DIR}/" in_source)
        string(FIND "${header_dir}/" "${PROJECT_BINARY_DIR}/" in_build)
        if(NOT header_dir IN_LIST installed AND IS_DIRECTORY "${header_dir}"
           AND (in_source EQUAL 0 OR in_build EQUAL 0))
          set_property(GLOBAL APPEND PROPERTY _TERN_INSTALLED_HEADER_DIRS "${header_dir}")
          install(DIRECTORY "${header_dir}/" DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
                  FILES_MATCHING PATTERN "*.h" PATTERN "*.hh" PATTERN "*.hpp" PATTERN "*.inc")
        endif()
        unset(header_dir)
      endif()
    endforeach()
    if(NOT has_install_interface)
      list(APPEND rewritten "$<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>")
    endif()
    set_property(TARGET ${target} PROPERTY INTERFACE_INCLUDE_DIRECTORIES "${rewritten}")
  endif()

  set_property(TARGET ${target} PROPERTY EXPORT_NAME ${name})
  get_target_property(type ${target} TYPE)
  if(type STREQUAL "SHARED_LIBRARY")
    # Installed, a front end must still find what it links outside the
    # loader's default path (libpmix under Debian's .../pmix2/lib, a site /opt).
    get_target_property(use_link_path ${target} INSTALL_RPATH_USE_LINK_PATH)
    if(NOT use_link_path)
      set_property(TARGET ${target} PROPERTY INSTALL_RPATH_USE_LINK_PATH ON)
    endif()
  endif()
  install(TARGETS ${target} EXPORT TernTargets
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
    RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  set_property(GLOBAL APPEND PROPERTY _TERN_EXPORTED_TARGETS ${target})
  if(NOT TARGET Tern::${name})
    add_library(Tern::${name} ALIAS ${target})
  endif()
endfunction()

# --- pkg-config ----------------------------------------------------------------

# Writes <module>.pc for linking <target>s, relocatable: its prefix is found
# from where the file lies (${pcfiledir}), so a moved prefix still works.
function(tern_package_pkgconfig module description)
  tern_link_closure(closure ${ARGN})
  set(pc_dir ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
  tern_path_to_prefix(up "${pc_dir}")
  set(TERN_PC_PREFIX "\${pcfiledir}/${up}")
  _tern_prefixed(TERN_PC_LIBDIR "\${prefix}" "${CMAKE_INSTALL_LIBDIR}")
  _tern_prefixed(TERN_PC_INCLUDEDIR "\${prefix}" "${CMAKE_INSTALL_INCLUDEDIR}")
  set(TERN_PC_NAME ${module})
  set(TERN_PC_DESCRIPTION "${description}")
  list(JOIN closure_PKG_MODULES " " TERN_PC_REQUIRES)

  set(libs "-L\${libdir}")
  if(closure_HAS_SHARED)
    list(APPEND libs "-Wl,-rpath,\${libdir}")
  endif()
  foreach(lib IN LISTS closure_LIBS)
    list(APPEND libs "-l${lib}")
  endforeach()
  list(APPEND libs ${closure_SYSTEM})
  list(JOIN libs " " TERN_PC_LIBS)

  set(output ${PROJECT_BINARY_DIR}/pkgconfig/${module}.pc)
  configure_file(${CMAKE_CURRENT_FUNCTION_LIST_DIR}/tern.pc.in ${output} @ONLY)
  install(FILES ${output} DESTINATION ${pc_dir})
endfunction()

# --- CMake package -------------------------------------------------------------

function(tern_package_finish)
  set(cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/Tern)
  get_property(targets GLOBAL PROPERTY _TERN_EXPORTED_TARGETS)
  # What the exported targets link from pkg-config must be found again by
  # the consumer under the same imported names (PkgConfig::<prefix>).
  tern_link_closure(closure ${targets})
  set(pairs "")
  foreach(prefix module IN ZIP_LISTS closure_PKG_PREFIXES closure_PKG_MODULES)
    list(APPEND pairs "${prefix}=${module}")
  endforeach()
  set(TERN_CONFIG_PKG_DEPS "${pairs}")

  install(EXPORT TernTargets NAMESPACE Tern:: DESTINATION ${cmake_dir})
  configure_package_config_file(${CMAKE_CURRENT_FUNCTION_LIST_DIR}/TernConfig.cmake.in
    ${PROJECT_BINARY_DIR}/cmake/TernConfig.cmake
    INSTALL_DESTINATION ${cmake_dir})
  # 0.x: a new minor version may break the interface.
  write_basic_package_version_file(${PROJECT_BINARY_DIR}/cmake/TernConfigVersion.cmake
    VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
  install(FILES ${PROJECT_BINARY_DIR}/cmake/TernConfig.cmake ${PROJECT_BINARY_DIR}/cmake/TernConfigVersion.cmake
          DESTINATION ${cmake_dir})
endfunction()
