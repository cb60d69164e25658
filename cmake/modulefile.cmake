# Run by `cmake --install` (install(CODE) in cmake/install.cmake, which sets SECPE_VERSION,
# SECPE_MPI, SECPE_MODULE_MPI, SECPE_BINDIR and SECPE_DATADIR): fills in the Lmod modulefile
# template jobs/modulefiles/secpe.lua with the prefix given now (--prefix, or CMAKE_INSTALL_PREFIX)
# and writes it to PREFIX/DATADIR/modulefiles/secpe/VERSION.lua (under DESTDIR when set).
cmake_path(ABSOLUTE_PATH SECPE_BINDIR BASE_DIRECTORY "${CMAKE_INSTALL_PREFIX}" OUTPUT_VARIABLE SECPE_BIN_DIR)
cmake_path(ABSOLUTE_PATH SECPE_DATADIR BASE_DIRECTORY "${CMAKE_INSTALL_PREFIX}" OUTPUT_VARIABLE share)
set(SECPE_ROOT_DIR "${share}/secpe")
set(modulefile "$ENV{DESTDIR}${share}/modulefiles/secpe/${SECPE_VERSION}.lua")
message(STATUS "Installing: ${modulefile}")
configure_file("${CMAKE_CURRENT_LIST_DIR}/../jobs/modulefiles/secpe.lua" "${modulefile}" @ONLY)
file(CHMOD "${modulefile}" PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)
list(APPEND CMAKE_INSTALL_MANIFEST_FILES "${modulefile}")
