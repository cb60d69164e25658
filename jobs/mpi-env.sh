# Sourced by the job and test scripts. Open MPI may run as root. Its traffic is pinned to loopback
# for local runs and single-node jobs only; inside a multi-node Slurm allocation the cluster's own
# network is used (a site may still set OMPI_MCA_*_if_include itself, which is kept).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
if [ "${SLURM_JOB_NUM_NODES:-1}" -le 1 ]; then
  export OMPI_MCA_btl_tcp_if_include=${OMPI_MCA_btl_tcp_if_include:-lo}
  export OMPI_MCA_oob_tcp_if_include=${OMPI_MCA_oob_tcp_if_include:-lo}
fi
