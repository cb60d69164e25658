# `cmake --install build --prefix PREFIX` (or -DCMAKE_INSTALL_PREFIX=PREFIX when configuring) installs
# what a site publishes; docs/install.md lists it, and tests/e2e/install.sh checks that list:
#   PREFIX/bin/secpe
#   PREFIX/share/secpe/      the job and Slurm scripts, prompts, the analysis scripts the studies
#                            call, the user guide (README.md, docs/) and its figures
#   PREFIX/share/modulefiles/secpe/VERSION.lua   the Lmod modulefile (jobs/modulefiles/secpe.lua)
# Installed, the scripts find their files and the binary through jobs/lib/locate.sh and write into
# the current folder. Build-tree-only scripts stay out: jobs/build.sh, jobs/install-deps.sh and
# jobs/gpu-check.sh (it runs the test binaries), analysis/run.sh (it rewrites analysis/figures/).
include(GNUInstallDirs)
set(SECPE_SHARE ${CMAKE_INSTALL_DATADIR}/secpe)

# Libraries found outside the system's folders (CUDA, a site's MPI or HDF5) stay found.
set_target_properties(secpe PROPERTIES INSTALL_RPATH_USE_LINK_PATH ON)
install(TARGETS secpe RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

file(GLOB SECPE_INSTALL_JOBS ${CMAKE_SOURCE_DIR}/jobs/*.sh)
list(FILTER SECPE_INSTALL_JOBS EXCLUDE REGEX "/(build|install-deps|gpu-check)\\.sh$")
install(PROGRAMS ${SECPE_INSTALL_JOBS} DESTINATION ${SECPE_SHARE}/jobs)
install(FILES jobs/quickstart.ini DESTINATION ${SECPE_SHARE}/jobs)
install(FILES jobs/lib/locate.sh DESTINATION ${SECPE_SHARE}/jobs/lib)
install(DIRECTORY jobs/prompts DESTINATION ${SECPE_SHARE}/jobs)
file(GLOB SECPE_INSTALL_SLURM ${CMAKE_SOURCE_DIR}/slurm/*.sbatch)
install(PROGRAMS ${SECPE_INSTALL_SLURM} DESTINATION ${SECPE_SHARE}/slurm)
file(GLOB SECPE_INSTALL_ANALYSIS ${CMAKE_SOURCE_DIR}/analysis/*.py)
install(PROGRAMS ${SECPE_INSTALL_ANALYSIS} DESTINATION ${SECPE_SHARE}/analysis)
install(DIRECTORY analysis/figures DESTINATION ${SECPE_SHARE}/analysis)  # the guide's pictures
install(FILES README.md DEVELOPERS.md DESTINATION ${SECPE_SHARE})
install(FILES data/README.md DESTINATION ${SECPE_SHARE}/data)
install(DIRECTORY docs DESTINATION ${SECPE_SHARE})

# The modulefile, filled in at install time (cmake/modulefile.cmake): the prefix is known only then.
set(SECPE_MODULE_MPI "" CACHE STRING
    "The MPI environment module that secpe's modulefile loads (depends_on), e.g. openmpi/4.1; empty: none")
string(REGEX MATCH "^[^,\n]*" _secpe_mpi "${MPI_CXX_LIBRARY_VERSION_STRING}")  # "Open MPI v4.1.4"
if(NOT _secpe_mpi OR _secpe_mpi STREQUAL "NOTFOUND")
  set(_secpe_mpi "MPI ${MPI_CXX_VERSION}")
endif()
set(_secpe_mpi "${_secpe_mpi} (${MPIEXEC_EXECUTABLE})")
install(CODE "
  set(SECPE_VERSION [[${PROJECT_VERSION}]])
  set(SECPE_MPI [[${_secpe_mpi}]])
  set(SECPE_MODULE_MPI [[${SECPE_MODULE_MPI}]])
  set(SECPE_BINDIR [[${CMAKE_INSTALL_BINDIR}]])
  set(SECPE_DATADIR [[${CMAKE_INSTALL_DATADIR}]])
  include([[${CMAKE_SOURCE_DIR}/cmake/modulefile.cmake]])")
