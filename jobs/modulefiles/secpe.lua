-- secpe's Lmod modulefile. This is the template: `cmake --install build --prefix PREFIX` writes it,
-- filled in, to PREFIX/share/modulefiles/secpe/VERSION.lua (cmake/modulefile.cmake; docs/install.md).
-- A site puts PREFIX/share/modulefiles on MODULEPATH, or copies the file into its own modulefiles
-- tree: every path in it is absolute.
local version = "@SECPE_VERSION@"
local mpi = "@SECPE_MPI@"                -- the MPI library secpe was built with, and its mpiexec
local mpi_module = "@SECPE_MODULE_MPI@"  -- cmake -DSECPE_MODULE_MPI=NAME: that MPI's module here

whatis("Name: secpe")
whatis("Version: " .. version)
whatis("Description: privacy-protected synthetic text at HPC scale (SecPE and Aug-PE) under MPI")
whatis("MPI: built with " .. mpi .. (mpi_module ~= "" and ("; loads module " .. mpi_module) or "; load that MPI's module too"))
help([[
secpe ]] .. version .. [[: privacy-protected synthetic text at HPC scale (SecPE and Aug-PE) under MPI.

  secpe --help, secpe <command> --help, secpe --version
  bash "$SECPE_ROOT/jobs/quickstart.sh"       the demo run, written into the current folder
  sbatch "$SECPE_ROOT/slurm/secpe-run.sbatch" CONFIG [secpe run options]
  the user guide: $SECPE_ROOT/README.md and $SECPE_ROOT/docs/

Built with ]] .. mpi .. [[: run it with that MPI's mpirun (its module, where the site has one).
]])

if mpi_module ~= "" then
  depends_on(mpi_module)
end
prepend_path("PATH", "@SECPE_BIN_DIR@")
setenv("SECPE_ROOT", "@SECPE_ROOT_DIR@")  -- jobs/, slurm/, analysis/, docs/: what jobs/lib/locate.sh finds
