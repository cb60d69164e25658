#include "core/build_info.hpp"

#include <mpi.h>

#include "secpe_build_info.h"  // generated in the build folder by cmake/build_info.cmake

namespace secpe {
namespace {

// The MPI whose headers this binary was compiled against (its libraries must match at run time:
// a site's modulefile loads that MPI's module).
#define SECPE_STR2(x) #x
#define SECPE_STR(x) SECPE_STR2(x)
#if defined(OMPI_MAJOR_VERSION)
constexpr const char* kMpi = "Open MPI " SECPE_STR(OMPI_MAJOR_VERSION) "." SECPE_STR(OMPI_MINOR_VERSION) "." SECPE_STR(OMPI_RELEASE_VERSION);
#elif defined(MPICH_VERSION)
constexpr const char* kMpi = "MPICH " MPICH_VERSION;
#else
constexpr const char* kMpi = "MPI " SECPE_STR(MPI_VERSION) "." SECPE_STR(MPI_SUBVERSION);
#endif

constexpr BuildOption kOptions[] = {
    {"build type", SECPE_BUILD_TYPE}, {"compiler", SECPE_BUILD_COMPILER}, {"MPI", kMpi},
    {"CUDA", SECPE_BUILD_CUDA},       {"NCCL", SECPE_BUILD_NCCL},         {"FAISS", SECPE_BUILD_FAISS},
    {"sanitizers", SECPE_BUILD_SANITIZERS},
};

}  // namespace

const BuildInfo& build_info() {
  static const BuildInfo info{SECPE_BUILD_VERSION, SECPE_BUILD_COMMIT, kOptions};
  return info;
}

std::string version_text() {
  const BuildInfo& info = build_info();
  std::string text = std::string("secpe ") + info.version + "\ncommit: " + info.commit + "\n";
  for (const BuildOption& o : info.options) text += std::string(o.name) + ": " + o.value + "\n";
  return text;
}

}  // namespace secpe
