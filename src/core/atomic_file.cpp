#include "core/atomic_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <system_error>

#include "core/error.hpp"

namespace secpe {

namespace {

std::filesystem::path temporary_path_for(const std::filesystem::path& path) {
  auto tmp = path;
  tmp += ".tmp." + std::to_string(::getpid());
  return tmp;
}

// Renames a finished temporary file into place (fsync'd first); removes it and throws on failure.
void commit_temporary(const std::filesystem::path& tmp, const std::filesystem::path& path) {
  const int fd = ::open(tmp.c_str(), O_RDONLY);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::filesystem::remove(tmp, ec);
    throw InputError("cannot write " + path.string() + ": rename failed");
  }
}

}  // namespace

void write_path_atomically(const std::filesystem::path& path,
                           const std::function<void(const std::filesystem::path& tmp)>& write) {
  const auto tmp = temporary_path_for(path);
  try {
    write(tmp);
  } catch (...) {
    std::error_code ec;
    std::filesystem::remove(tmp, ec);
    throw;
  }
  commit_temporary(tmp, path);
}

void write_file_atomically(const std::filesystem::path& path,
                           const std::function<void(std::ostream&)>& write) {
  write_path_atomically(path, [&](const std::filesystem::path& tmp) {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw InputError("cannot write " + path.string() + ": cannot create the file");
    write(out);
    out.flush();
    if (!out) throw InputError("cannot write " + path.string() + ": write failed (disk full?)");
  });
}

}  // namespace secpe
