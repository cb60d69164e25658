# Writes the build's identity (core/build_info.cpp includes it) into OUT: the version and build
# options given by CMakeLists.txt, and the source commit read now, at build time, so that it stays
# right after incremental builds. configure_file rewrites OUT only when a value changed; then only
# core/build_info.cpp recompiles. Run as: cmake -DSOURCE_DIR=... -DOUT=... -DVERSION=... -P build_info.cmake
#
# The commit: 12 hex digits of HEAD, with "-dirty" when a tracked file differs from it (untracked
# files do not count, as with git describe --dirty); "unknown" outside git, without git, or when the
# source folder is not the top of its repository (a tarball unpacked inside someone else's).
set(COMMIT unknown)
find_program(GIT_EXECUTABLE git)
if(GIT_EXECUTABLE)
  execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse --show-toplevel WORKING_DIRECTORY ${SOURCE_DIR}
                  OUTPUT_VARIABLE top RESULT_VARIABLE rc OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  file(REAL_PATH "${SOURCE_DIR}" source_real)
  if(rc EQUAL 0)
    file(REAL_PATH "${top}" top)
  endif()
  if(rc EQUAL 0 AND top STREQUAL source_real)
    execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse --short=12 HEAD WORKING_DIRECTORY ${SOURCE_DIR}
                    OUTPUT_VARIABLE head RESULT_VARIABLE rc OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    # --no-optional-locks: a build never takes the index lock from a git command running beside it.
    execute_process(COMMAND ${GIT_EXECUTABLE} --no-optional-locks status --porcelain --untracked-files=no
                    WORKING_DIRECTORY ${SOURCE_DIR} OUTPUT_VARIABLE changed RESULT_VARIABLE rc_status ERROR_QUIET)
    if(rc EQUAL 0 AND NOT head STREQUAL "")
      set(COMMIT ${head})
      if(NOT rc_status EQUAL 0 OR NOT changed STREQUAL "")
        string(APPEND COMMIT -dirty)
      endif()
    endif()
  endif()
endif()
configure_file(${CMAKE_CURRENT_LIST_DIR}/build_info.h.in ${OUT} @ONLY)
