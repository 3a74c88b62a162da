# CLI11 (options) and nlohmann-json (reports), the header-only libraries the programs need.
# Installed copies come first (find_package). For one that is not installed, configuring
# obtains a pinned copy into the build folder, without root, from the first source that works:
#   1. the upstream release's single header, from github.com;
#   2. Debian's package (bookworm), from deb.debian.org ($ENV{SGEMM_DEBIAN_MIRROR} replaces
#      http://deb.debian.org/debian), unpacked with `cmake -E tar` (a .deb is an ar archive
#      holding data.tar.xz).
# Every download is checked against a pinned SHA256. It says in one line what it did, and stops
# with what to do only when every source failed. -DSGEMM_FETCH_DEPENDENCIES=OFF: no downloads.
# Defines CLI11::CLI11 and nlohmann_json::nlohmann_json either way.
#
# file(DOWNLOAD) rather than FetchContent: a failed FetchContent download stops configuring,
# and here a failure must hand over to the next source. The test deps.fetched configures a
# copy of the tree with both find_packages disabled; deps.sources tests the fall-through.

# ---- The pins. Each source is: what to call it, its URL (Debian's below the mirror), the
# SHA256 of the file there, and the version that file holds.
# CLI11 2.3.2's single header: the SHA256 that two unrelated projects pin for this URL (a
# Bazel http_file and a download script). github.com could not be reached where this was
# written, so it is not verified here; a mismatch is refused like a failed download.
set(_sgemm_CLI11_title "CLI11")
set(_sgemm_CLI11_header CLI/CLI.hpp)
set(_sgemm_CLI11_release
    "github.com release"
    https://github.com/CLIUtils/CLI11/releases/download/v2.3.2/CLI11.hpp
    ba83806399a66634ca8f8d292df031e5ed651315ceb9a6a09ba56f88d75f1797 2.3.2)
set(_sgemm_CLI11_debian
    "Debian's libcli11-dev"
    pool/main/c/cli11/libcli11-dev_2.1.2+ds-1_all.deb
    f1f6ee9ec053e0e0bcec47345e241b6a8ee006321248b4329e9ce88d2b4b64a8 2.1.2)
# nlohmann-json 3.11.3's single header; its SHA256 is that of single_include/nlohmann/json.hpp
# in Debian's copy of the v3.11.3 source (nlohmann-json3_3.11.3.orig.tar.gz), checked here.
set(_sgemm_nlohmann_json_title "nlohmann-json")
set(_sgemm_nlohmann_json_header nlohmann/json.hpp)
set(_sgemm_nlohmann_json_release
    "github.com release"
    https://github.com/nlohmann/json/releases/download/v3.11.3/json.hpp
    9bea4c8066ef4a1c206b2be5a36302f8926f7fdc6087af5d20b417d0cf103ea6 3.11.3)
# The .deb SHA256s are bookworm's Packages index's (apt-cache show), checked here.
set(_sgemm_nlohmann_json_debian
    "Debian's nlohmann-json3-dev"
    pool/main/n/nlohmann-json3/nlohmann-json3-dev_3.11.2-2_all.deb
    ec57940def6b6186c30be0e0ee81d1e58f86d11a54a145b28686a1e3e4aae801 3.11.2)

set(SGEMM_DEBIAN_MIRROR http://deb.debian.org/debian)
if(DEFINED ENV{SGEMM_DEBIAN_MIRROR})
  set(SGEMM_DEBIAN_MIRROR $ENV{SGEMM_DEBIAN_MIRROR})
endif()

# sgemm_download(<url> <sha256> <file> <why-var>): <file> holds the download, unless it already
# holds those bytes. <why-var> is empty on success, else why not; nothing is left behind then.
# A host that could not be reached is not tried again in this configure run (a firewall that
# drops packets would otherwise cost the timeout once per file).
function(sgemm_download url sha256 file why_var)
  set(${why_var} "" PARENT_SCOPE)
  if(EXISTS "${file}")
    file(SHA256 "${file}" have)
    if(have STREQUAL sha256)
      return()
    endif()
  endif()
  string(REGEX REPLACE "^[a-z]+://([^/]*)/.*" "\\1" host "${url}")
  get_property(unreachable GLOBAL PROPERTY SGEMM_UNREACHABLE_HOSTS)
  if(host AND host IN_LIST unreachable)
    set(${why_var} "${url}: ${host} could not be reached a moment ago" PARENT_SCOPE)
    return()
  endif()
  file(DOWNLOAD "${url}" "${file}.part" STATUS status TIMEOUT 60 INACTIVITY_TIMEOUT 20)
  list(GET status 0 code)
  list(GET status 1 message)
  string(REPLACE "\"" "" message "${message}")  # curl's text comes quoted
  if(code MATCHES "^(5|6|7|28)$")  # curl: proxy or host not resolved, no connection, timeout
    set_property(GLOBAL APPEND PROPERTY SGEMM_UNREACHABLE_HOSTS "${host}")
  elseif(code EQUAL 0)
    file(SHA256 "${file}.part" have)
    if(NOT have STREQUAL sha256)
      set(code 1)
      set(message "SHA256 is ${have}, not the pinned ${sha256}")
    endif()
  endif()
  if(NOT code EQUAL 0)
    file(REMOVE "${file}.part")
    set(${why_var} "${url}: ${message}" PARENT_SCOPE)
    return()
  endif()
  file(RENAME "${file}.part" "${file}")
endfunction()

# sgemm_unpack_deb(<deb> <dir> <why-var>): the package's files under <dir> (usr/include/...).
function(sgemm_unpack_deb deb dir why_var)
  set(${why_var} "" PARENT_SCOPE)
  file(REMOVE_RECURSE "${dir}" "${dir}.ar")
  file(MAKE_DIRECTORY "${dir}" "${dir}.ar")
  execute_process(COMMAND ${CMAKE_COMMAND} -E tar xf "${deb}" WORKING_DIRECTORY "${dir}.ar"
                  RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
  file(GLOB data "${dir}.ar/data.tar*")
  if(rc EQUAL 0 AND data)
    execute_process(COMMAND ${CMAKE_COMMAND} -E tar xf "${data}" WORKING_DIRECTORY "${dir}"
                    RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
  else()
    set(rc 1)
    find_program(SGEMM_DPKG_DEB dpkg-deb)  # a CMake whose libarchive cannot read ar
    if(SGEMM_DPKG_DEB)
      execute_process(COMMAND ${SGEMM_DPKG_DEB} -x "${deb}" "${dir}" RESULT_VARIABLE rc
                      OUTPUT_QUIET ERROR_VARIABLE err)
    endif()
  endif()
  file(REMOVE_RECURSE "${dir}.ar")
  if(NOT rc EQUAL 0)
    set(${why_var} "cannot unpack ${deb}: ${err}" PARENT_SCOPE)
  endif()
endfunction()

# sgemm_try_source(<name> <source> <root> <include-var> <why-var>): dependency <name> (the
# _sgemm_<name>_* pins above) from <source> (release or debian) under <root>. <include-var> is
# its include folder on success; otherwise empty, and <why-var> says why.
function(sgemm_try_source name source root include_var why_var)
  list(GET _sgemm_${name}_${source} 1 url)
  list(GET _sgemm_${name}_${source} 2 sha256)
  list(GET _sgemm_${name}_${source} 3 version)
  set(header ${_sgemm_${name}_header})
  get_filename_component(download "${url}" NAME)
  set(download "${root}/downloads/${download}")
  set(unpacked "${root}/${name}-${version}")
  sgemm_download("${url}" ${sha256} "${download}" why)
  if(source STREQUAL "release")  # the single header, where the include line expects it
    set(include "${unpacked}/include")
    if(NOT why)
      get_filename_component(folder "${include}/${header}" DIRECTORY)
      file(MAKE_DIRECTORY "${folder}")
      file(COPY_FILE "${download}" "${include}/${header}" ONLY_IF_DIFFERENT)
    endif()
  else()  # the package's files; unpacked once, so that its headers keep their times
    set(include "${unpacked}/usr/include")
    if(NOT why AND NOT EXISTS "${include}/${header}")
      sgemm_unpack_deb("${download}" "${unpacked}" why)
    endif()
  endif()
  if(NOT why AND NOT EXISTS "${include}/${header}")
    set(why "${download} holds no ${header}")
  endif()
  if(why)
    set(include "")
  endif()
  set(${include_var} "${include}" PARENT_SCOPE)
  set(${why_var} "${why}" PARENT_SCOPE)
endfunction()

# sgemm_obtain(<name> <root> <include-var> <said-var> <why-var>): dependency <name> from the
# first source that works. On success <include-var> is its include folder and <said-var> says
# what it is and where it came from; otherwise <include-var> is empty and <why-var> says why
# each source failed. It never stops configuring.
function(sgemm_obtain name root include_var said_var why_var)
  set(whys "")
  set(failed "")  # ", after the github.com release failed: ..." for <said-var>
  foreach(source IN ITEMS release debian)
    if(source STREQUAL "debian")
      list(TRANSFORM _sgemm_${name}_debian PREPEND "${SGEMM_DEBIAN_MIRROR}/" AT 1)
    endif()
    list(GET _sgemm_${name}_${source} 0 title)
    list(GET _sgemm_${name}_${source} 1 url)
    list(GET _sgemm_${name}_${source} 3 version)
    sgemm_try_source(${name} ${source} "${root}" include why)
    if(include)
      string(REGEX REPLACE "^[a-z]+://([^/]+)/.*" "\\1" host "${url}")  # a file:// URL stays
      set(${include_var} "${include}" PARENT_SCOPE)
      set(${said_var} "${_sgemm_${name}_title} ${version} (${title} from ${host}${failed})"
          PARENT_SCOPE)
      return()
    endif()
    list(APPEND whys "${why}")
    string(REPLACE "${url}: " "" why "${why}")
    string(APPEND failed ", after the ${title} failed: ${why}")
  endforeach()
  list(JOIN whys "\n    " whys)
  set(${include_var} "" PARENT_SCOPE)
  set(${why_var} "${whys}" PARENT_SCOPE)
endfunction()

# sgemm_header_only_target(<target> <include>): what the package's config would define.
function(sgemm_header_only_target target include)
  add_library(${target} INTERFACE IMPORTED GLOBAL)
  set_target_properties(${target} PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${include}")
endfunction()

if(CMAKE_SCRIPT_MODE_FILE)
  return()  # tests/deps_sources.cmake: the functions alone
endif()

# ---- Installed, or obtained.
option(SGEMM_FETCH_DEPENDENCIES
       "Download CLI11 and nlohmann-json into the build folder when they are not installed"
       ${PROJECT_IS_TOP_LEVEL})
find_package(CLI11 2.1 CONFIG QUIET)
find_package(nlohmann_json 3.10 CONFIG QUIET)
set(_sgemm_missing "")
foreach(_sgemm_name IN ITEMS CLI11 nlohmann_json)
  if(NOT ${_sgemm_name}_FOUND)
    list(APPEND _sgemm_missing ${_sgemm_name})
  endif()
endforeach()

set(_sgemm_got "")
set(_sgemm_failed "")
set(_sgemm_root "${PROJECT_BINARY_DIR}/_deps/sgemm")
foreach(_sgemm_name IN LISTS _sgemm_missing)
  set(_sgemm_include "")
  set(_sgemm_why "downloads are off (SGEMM_FETCH_DEPENDENCIES=OFF)")
  if(SGEMM_FETCH_DEPENDENCIES)
    sgemm_obtain(${_sgemm_name} "${_sgemm_root}" _sgemm_include _sgemm_said _sgemm_why)
  endif()
  if(_sgemm_include)
    sgemm_header_only_target(${_sgemm_name}::${_sgemm_name} "${_sgemm_include}")
    list(APPEND _sgemm_got "${_sgemm_said}")
  else()
    list(APPEND _sgemm_failed "  ${_sgemm_${_sgemm_name}_title}: ${_sgemm_why}")
  endif()
endforeach()

if(_sgemm_failed)
  list(JOIN _sgemm_failed "\n" _sgemm_failed)
  message(FATAL_ERROR "The programs (sgemm, sgemm_bench, the tests) need CLI11 >= 2.1 and "
    "nlohmann-json >= 3.10; not installed, and not obtained:\n${_sgemm_failed}\n"
    "Either\n"
    "  install them (Debian/Ubuntu):  $([ \"$(id -u)\" = 0 ] || echo sudo) apt-get install -y "
    "libcli11-dev nlohmann-json3-dev\n"
    "  or, without root:  scripts/get-deps, then "
    "-DCMAKE_PREFIX_PATH=${PROJECT_SOURCE_DIR}/.deps/usr\n"
    "  or build only the library:  -DSGEMM_BUILD_TOOLS=OFF")
elseif(_sgemm_got)
  list(JOIN _sgemm_got " and " _sgemm_got)
  message(STATUS "Not installed, so downloaded (SHA256 checked) into ${_sgemm_root}: "
                 "${_sgemm_got}")
endif()
