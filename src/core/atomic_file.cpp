#include "core/atomic_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <system_error>

#include "core/error.hpp"

namespace secpe {

namespace {

// The nearest ancestor of `path` that exists must be a folder we may write in (the missing
// folders in between are created by the writers).
std::string ancestor_problem(const std::filesystem::path& path) {
  std::error_code ec;
  auto ancestor = std::filesystem::absolute(path, ec).parent_path();
  while (!std::filesystem::exists(std::filesystem::symlink_status(ancestor, ec)) && ancestor != ancestor.root_path()) {
    ancestor = ancestor.parent_path();
  }
  if (!std::filesystem::is_directory(ancestor, ec)) return "is inside '" + ancestor.string() + "', which is not a folder";
  if (::access(ancestor.c_str(), W_OK | X_OK) != 0) return "is inside '" + ancestor.string() + "', which is not writable";
  return "";
}

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

std::string output_file_problem(const std::filesystem::path& path) {
  std::error_code ec;
  const auto status = std::filesystem::symlink_status(path, ec);
  if (std::filesystem::is_symlink(status)) return "is a symbolic link, not a regular file";
  if (std::filesystem::is_directory(status)) return "is a folder, not a file";
  if (std::filesystem::exists(status) && !std::filesystem::is_regular_file(status)) {
    return "is not a regular file (a device, FIFO or socket)";
  }
  return ancestor_problem(path);
}

std::string output_folder_problem(const std::filesystem::path& dir) {
  std::error_code ec;
  const auto status = std::filesystem::status(dir, ec);
  if (std::filesystem::exists(status) && !std::filesystem::is_directory(status)) return "exists and is not a folder";
  return std::filesystem::exists(status) ? "" : ancestor_problem(dir);
}

void write_path_atomically(const std::filesystem::path& path,
                           const std::function<void(const std::filesystem::path& tmp)>& write) {
  if (const auto problem = output_file_problem(path); !problem.empty()) {
    throw InputError("cannot write " + path.string() + ": it " + problem);
  }
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

void write_file_set(const std::filesystem::path& dir, const std::vector<FileWriter>& files_marker_last) {
  if (files_marker_last.empty()) return;
  std::error_code ec;
  std::filesystem::remove(dir / files_marker_last.back().first, ec);
  if (ec) throw InputError("cannot write " + (dir / files_marker_last.back().first).string() + ": cannot remove the old one");
  for (const auto& [name, write] : files_marker_last) write_file_atomically(dir / name, write);
}

}  // namespace secpe
