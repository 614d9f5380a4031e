# Per-target warning flags (the {fmt} way): call ringsched_warnings(<target>) on every target we own.
function(ringsched_warnings target)
  target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wconversion
                                           -Wno-sign-conversion>)
  # GCC 12 reports -Warray-bounds false positives inside std::map as used by nlohmann::json initializer lists
  # (GCC bug 107138 family), and -Wrestrict and -Wstringop-overflow false positives in std::string concatenation
  # at -O2/-O3 (GCC bugs 105329, 105651: "specified bound between 9223372036854775810 and ... exceeds maximum object
  # size"); the warnings stay on for other compilers and versions.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_GREATER_EQUAL 12
     AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
    target_compile_options(${target} PRIVATE
                           $<$<COMPILE_LANGUAGE:CXX>:-Wno-array-bounds -Wno-restrict -Wno-stringop-overflow>)
  endif()
  # Under -fsanitize GCC's flow analysis reports -W(maybe-)uninitialized inside libstdc++ (std::function in std::regex)
  # and Boost.Graph (boost::optional in named_graph.hpp); the Release build keeps both warnings.
  if(RINGSCHED_SANITIZE AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-Wno-maybe-uninitialized -Wno-uninitialized>)
  endif()
  if(RINGSCHED_WERROR)
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-Werror>)
  endif()
endfunction()

# A library made of every .cpp in the calling folder (one header + one source per concept).
# Extensions register themselves from the file that implements them (a static registrar object, as SimGrid's
# SIMGRID_REGISTER_* and Ramulator 2's RAMULATOR_REGISTER_IMPLEMENTATION): nothing references such a file, so a plain
# static library would let the linker drop it. The sources are therefore compiled into `<name>_archive` and `<name>`
# is an interface target that links that archive whole ($<LINK_LIBRARY:WHOLE_ARCHIVE>): every executable, test,
# benchmark, fuzz target and the Python module that links `<name>` (directly or transitively) gets every registrar.
# Set properties (sources, precompiled headers, private include folders) on `<name>_archive`.
function(ringsched_folder_library name)
  cmake_parse_arguments(ARG "" "" "EXCLUDE;PUBLIC_LIBS;SUBDIRS" ${ARGN})
  file(GLOB srcs CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.cpp)
  # Rooms inside the folder (e.g. strategies/gavel/): the same library, each room its own folder.
  foreach(sub IN LISTS ARG_SUBDIRS)
    file(GLOB sub_srcs CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/${sub}/*.cpp)
    list(APPEND srcs ${sub_srcs})
  endforeach()
  foreach(ex IN LISTS ARG_EXCLUDE)
    list(REMOVE_ITEM srcs ${CMAKE_CURRENT_SOURCE_DIR}/${ex})
  endforeach()
  add_library(${name}_archive STATIC ${srcs})
  target_include_directories(${name}_archive PUBLIC ${PROJECT_SOURCE_DIR})
  target_link_libraries(${name}_archive PUBLIC ${ARG_PUBLIC_LIBS})
  ringsched_warnings(${name}_archive)
  add_library(${name} INTERFACE)
  target_link_libraries(${name} INTERFACE "$<LINK_LIBRARY:WHOLE_ARCHIVE,${name}_archive>")
endfunction()
