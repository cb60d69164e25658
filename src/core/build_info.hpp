#pragma once
// What this binary is: its version, the source commit it was built from and how it was built.
// One source for `secpe --version`, run.json, bench JSON and dataset provenance. The commit is read
// at every build (cmake/build_info.cmake), so it stays right after incremental builds.
#include <span>
#include <string>

namespace secpe {

struct BuildOption {
  const char* name;   // "build type", "compiler", "MPI", "CUDA", "NCCL", "FAISS", "sanitizers"
  const char* value;  // "yes (architectures 80 90; CUDA 13.0.88)", "no", "Release", ...
};

struct BuildInfo {
  const char* version;  // the project's version (CMakeLists.txt)
  const char* commit;   // 12 hex digits, "-dirty" when tracked files differed; "unknown" outside git
  std::span<const BuildOption> options;
};

const BuildInfo& build_info();

// `secpe --version`: "secpe VERSION", then the commit and one "name: value" line per option.
std::string version_text();

}  // namespace secpe
