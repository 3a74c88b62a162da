# The sources of cmake/dependencies.cmake, on stand-ins served as file:// URLs (cmake -P; the
# test deps.sources): the first source that works is used, a failed download or a wrong SHA256
# hands over to the next one and leaves nothing behind, a copy already there is not downloaded
# again, and when every source fails the reasons come back and configuring is not stopped.
#   -DWORK=scratch folder
cmake_minimum_required(VERSION 3.25)
include(${CMAKE_CURRENT_LIST_DIR}/../cmake/dependencies.cmake)  # the functions alone

function(fail what)
  message(FATAL_ERROR "expected ${what}")
endfunction()

file(REMOVE_RECURSE ${WORK})
set(served ${WORK}/served)
set(SGEMM_DEBIAN_MIRROR file://${served}/debian)

# A release's single header, and a package whose data.tar.xz holds usr/include/fake/fake.hpp:
# a tar stands in for the .deb (an ar archive), since `cmake -E tar` reads both.
file(WRITE ${served}/release/fake.hpp "// the release\n")
file(WRITE ${WORK}/package/usr/include/fake/fake.hpp "// the package\n")
file(WRITE ${WORK}/deb/debian-binary "2.0\n")
file(MAKE_DIRECTORY ${served}/debian/pool)
execute_process(COMMAND ${CMAKE_COMMAND} -E tar cJf ${WORK}/deb/data.tar.xz usr
                WORKING_DIRECTORY ${WORK}/package COMMAND_ERROR_IS_FATAL ANY)
execute_process(COMMAND ${CMAKE_COMMAND} -E tar cf ${served}/debian/pool/fake_1.deb
                        --format=gnutar debian-binary data.tar.xz
                WORKING_DIRECTORY ${WORK}/deb COMMAND_ERROR_IS_FATAL ANY)
file(SHA256 ${served}/release/fake.hpp release_sha)
file(SHA256 ${served}/debian/pool/fake_1.deb deb_sha)

set(_sgemm_fake_title "Fake")
set(_sgemm_fake_header fake/fake.hpp)
function(pin release_url release_sha deb_sha)
  set(_sgemm_fake_release release "${release_url}" ${release_sha} 2.0 PARENT_SCOPE)
  set(_sgemm_fake_debian package pool/fake_1.deb ${deb_sha} 1.0 PARENT_SCOPE)
endfunction()

# 1. The release works: its header, where the include line expects it.
pin(file://${served}/release/fake.hpp ${release_sha} ${deb_sha})
sgemm_obtain(fake ${WORK}/a include said why)
if(NOT EXISTS "${include}/fake/fake.hpp" OR NOT said MATCHES "^Fake 2.0 \\(release from file://")
  fail("the release's header in '${include}', named in '${said}'")
endif()

# 2. The release is missing: the package instead, and no partial download left behind.
pin(file://${served}/release/missing.hpp ${release_sha} ${deb_sha})
sgemm_obtain(fake ${WORK}/b include said why)
file(GLOB_RECURSE partial ${WORK}/b/*.part)
if(NOT include STREQUAL "${WORK}/b/fake-1.0/usr/include" OR NOT EXISTS "${include}/fake/fake.hpp")
  fail("the package's header in ${WORK}/b/fake-1.0/usr/include, not '${include}'")
elseif(NOT said MATCHES "package from file://.*, after the release failed: " OR partial)
  fail("both sources named ('${said}') and no partial download ('${partial}')")
endif()

# 3. The release's bytes are not the pinned ones: refused and removed, the package instead.
pin(file://${served}/release/fake.hpp ${deb_sha} ${deb_sha})
sgemm_obtain(fake ${WORK}/c include said why)
if(NOT said MATCHES "the release failed: SHA256 is ${release_sha}, not the pinned" OR
   EXISTS "${WORK}/c/downloads/fake.hpp")
  fail("the wrong SHA256 named ('${said}') and the refused download removed")
endif()

# 4. A copy already there is neither downloaded nor unpacked again (the mirror is gone now).
set(header "${WORK}/b/fake-1.0/usr/include/fake/fake.hpp")
file(TIMESTAMP "${header}" before "%s")
set(SGEMM_DEBIAN_MIRROR file://${served}/gone)
pin(file://${served}/release/missing.hpp ${release_sha} ${deb_sha})
execute_process(COMMAND ${CMAKE_COMMAND} -E sleep 1.1)
sgemm_obtain(fake ${WORK}/b include said why)
file(TIMESTAMP "${header}" after "%s")
if(NOT include OR NOT before STREQUAL after)
  fail("the copy already there used as it is ('${include}', times ${before} and ${after})")
endif()

# 5. Every source fails: no include folder, each reason, and the script goes on.
sgemm_obtain(fake ${WORK}/d include said why)
if(include OR NOT why MATCHES "release/missing.hpp: .*\n.*gone/pool/fake_1.deb: ")
  fail("no include folder ('${include}') and both reasons: '${why}'")
endif()
message("deps.sources: every case passed")
