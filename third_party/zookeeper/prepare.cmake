# The patched ZooKeeper C client, made from the vendored tree: checks every
# vendored file against MANIFEST.sha256, copies zookeeper-client-c/ to
# ZK_PREPARED_DIR/zookeeper-client-c and applies patches/*.patch in order
# (with `patch`, or `git apply` when there is no patch). Nothing is done
# when ZK_PREPARED_DIR/.stamp says the tree is current (the manifest, the
# patches and this file are unchanged). No network, no Java.
#
# Included by CMakeLists.txt (ZK_PREPARED_DIR: the build dir's
# zookeeper-src), or run as a script by scripts/fetch-zookeeper:
#   cmake -DZK_PREPARED_DIR=DIR [-DZK_CHECK_ONLY=ON] -P prepare.cmake
# ZK_CHECK_ONLY: fail unless DIR is current, change nothing.
# Sets ZK_VENDORED_FILES and ZK_PATCHES (absolute paths) for the caller.
if(CMAKE_SCRIPT_MODE_FILE)
  cmake_minimum_required(VERSION 3.20)
endif()
if(NOT ZK_PREPARED_DIR)
  message(FATAL_ERROR "prepare.cmake: set ZK_PREPARED_DIR")
endif()
set(zk_here ${CMAKE_CURRENT_LIST_DIR})
set(zk_manifest ${zk_here}/MANIFEST.sha256)
if(NOT EXISTS ${zk_manifest})
  message(FATAL_ERROR "${zk_manifest} is missing")
endif()

# The vendored files, as the manifest lists them, each checked.
file(STRINGS ${zk_manifest} zk_lines)
set(ZK_VENDORED_FILES "")
set(zk_listed "")
set(zk_bad "")
foreach(line IN LISTS zk_lines)
  if(line MATCHES "^#" OR line STREQUAL "")
    continue()
  endif()
  if(NOT line MATCHES "^([0-9a-f]+)  (zookeeper-client-c/.+)$")
    message(FATAL_ERROR "${zk_manifest}: a malformed line: ${line}")
  endif()
  set(want ${CMAKE_MATCH_1})
  set(rel ${CMAKE_MATCH_2})
  list(APPEND zk_listed ${rel})
  list(APPEND ZK_VENDORED_FILES ${zk_here}/${rel})
  if(NOT EXISTS ${zk_here}/${rel})
    list(APPEND zk_bad "${rel} (missing)")
    continue()
  endif()
  file(SHA256 ${zk_here}/${rel} got)
  if(NOT got STREQUAL want)
    list(APPEND zk_bad "${rel} (changed)")
  endif()
endforeach()
file(GLOB_RECURSE zk_present RELATIVE ${zk_here} ${zk_here}/zookeeper-client-c/*)
foreach(rel IN LISTS zk_present)
  if(NOT rel IN_LIST zk_listed)
    list(APPEND zk_bad "${rel} (not in the manifest)")
  endif()
endforeach()
if(zk_bad)
  list(JOIN zk_bad ", " zk_bad)
  message(FATAL_ERROR "The vendored ZooKeeper C client differs from ${zk_manifest}: ${zk_bad}. "
          "It stays as released: changes are patches in ${zk_here}/patches "
          "(scripts/fetch-zookeeper --prepare DIR gives a patched tree to diff against; "
          "--vendor re-creates the vendored tree, --verify checks it against the release).")
endif()

file(GLOB ZK_PATCHES ${zk_here}/patches/*.patch)
list(SORT ZK_PATCHES)

# The fingerprint of a prepared tree.
file(READ ${zk_manifest} zk_fingerprint)
file(READ ${CMAKE_CURRENT_LIST_FILE} zk_text)
string(APPEND zk_fingerprint "${zk_text}")
foreach(p IN LISTS ZK_PATCHES)
  get_filename_component(name ${p} NAME)
  file(READ ${p} zk_text)
  string(APPEND zk_fingerprint "\n${name}\n${zk_text}")
endforeach()
string(SHA256 zk_stamp "${zk_fingerprint}")

set(zk_current FALSE)
if(EXISTS ${ZK_PREPARED_DIR}/.stamp AND EXISTS ${ZK_PREPARED_DIR}/zookeeper-client-c)
  file(READ ${ZK_PREPARED_DIR}/.stamp zk_old)
  string(STRIP "${zk_old}" zk_old)
  if(zk_old STREQUAL zk_stamp)
    set(zk_current TRUE)
  endif()
endif()
if(ZK_CHECK_ONLY)
  if(NOT zk_current)
    message(FATAL_ERROR "${ZK_PREPARED_DIR} is not current")
  endif()
  return()
endif()

if(NOT zk_current)
  find_program(ZK_PATCH_EXECUTABLE patch)
  if(NOT ZK_PATCH_EXECUTABLE)
    find_program(ZK_GIT_EXECUTABLE git)
    if(NOT ZK_GIT_EXECUTABLE)
      message(FATAL_ERROR "Applying the ZooKeeper client's patches needs `patch` or `git`")
    endif()
  endif()
  set(zk_work ${ZK_PREPARED_DIR}/zookeeper-client-c.new)
  file(REMOVE_RECURSE ${zk_work} ${ZK_PREPARED_DIR}/.stamp)
  file(MAKE_DIRECTORY ${ZK_PREPARED_DIR})
  file(COPY ${zk_here}/zookeeper-client-c/ DESTINATION ${zk_work})
  foreach(p IN LISTS ZK_PATCHES)
    if(ZK_PATCH_EXECUTABLE)
      set(cmd ${ZK_PATCH_EXECUTABLE} -p1 --forward --batch --quiet --no-backup-if-mismatch -i ${p})
    else()
      # Outside any repository (git apply in a subdirectory of one would
      # take the paths as relative to its top).
      set(cmd ${CMAKE_COMMAND} -E env GIT_CEILING_DIRECTORIES=${ZK_PREPARED_DIR}
              ${ZK_GIT_EXECUTABLE} apply -p1 ${p})
    endif()
    execute_process(COMMAND ${cmd} WORKING_DIRECTORY ${zk_work}
                    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
    if(NOT rc EQUAL 0)
      get_filename_component(name ${p} NAME)
      message(FATAL_ERROR "The ZooKeeper client patch ${name} does not apply:\n${out}")
    endif()
  endforeach()
  file(REMOVE_RECURSE ${ZK_PREPARED_DIR}/zookeeper-client-c)
  file(RENAME ${zk_work} ${ZK_PREPARED_DIR}/zookeeper-client-c)
  file(WRITE ${ZK_PREPARED_DIR}/.stamp "${zk_stamp}\n")
  list(LENGTH ZK_PATCHES zk_count)
  message(STATUS "ZooKeeper C client: prepared ${ZK_PREPARED_DIR}/zookeeper-client-c (${zk_count} patches applied)")
endif()
