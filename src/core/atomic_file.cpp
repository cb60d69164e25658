#include "core/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>

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

namespace {

// Creates `tmp` empty with mode 0600 (fchmod: the umask may not take owner bits away either).
void create_private_file(const std::filesystem::path& tmp, const std::filesystem::path& path) {
  std::error_code ec;
  std::filesystem::remove(tmp, ec);  // a stale one of an earlier process with this pid
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) throw InputError("cannot write " + path.string() + ": cannot create the file");
  const bool ok = ::fchmod(fd, 0600) == 0;
  ::close(fd);
  if (!ok) {
    std::filesystem::remove(tmp, ec);
    throw InputError("cannot write " + path.string() + ": cannot make it private (mode 0600)");
  }
}

}  // namespace

void write_path_atomically(const std::filesystem::path& path,
                           const std::function<void(const std::filesystem::path& tmp)>& write, FileAccess access) {
  if (const auto problem = output_file_problem(path); !problem.empty()) {
    throw InputError("cannot write " + path.string() + ": it " + problem);
  }
  const auto tmp = temporary_path_for(path);
  try {
    if (access == FileAccess::kPrivate) create_private_file(tmp, path);
    write(tmp);
  } catch (...) {
    std::error_code ec;
    std::filesystem::remove(tmp, ec);
    throw;
  }
  commit_temporary(tmp, path);
}

void write_file_atomically(const std::filesystem::path& path,
                           const std::function<void(std::ostream&)>& write, FileAccess access) {
  write_path_atomically(path, [&](const std::filesystem::path& tmp) {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw InputError("cannot write " + path.string() + ": cannot create the file");
    write(out);
    out.flush();
    if (!out) throw InputError("cannot write " + path.string() + ": write failed (disk full?)");
  }, access);
}

void ensure_private_folder(const std::filesystem::path& dir, const std::string& what) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) {  // a link to a folder of ours is fine: the checks below are about the folder
    std::error_code ec;
    if (dir.has_parent_path()) std::filesystem::create_directories(dir.parent_path(), ec);
    if (ec || ::mkdir(dir.c_str(), 0700) != 0 || ::chmod(dir.c_str(), 0700) != 0) {
      throw InputError("cannot create the " + what + " '" + dir.string() + "'");
    }
    return;
  }
  if (!S_ISDIR(st.st_mode)) throw InputError("the " + what + " '" + dir.string() + "' exists and is not a folder");
  if (st.st_uid != ::geteuid()) throw InputError("the " + what + " '" + dir.string() + "' belongs to another user; use a folder of your own");
  if ((st.st_mode & 077) != 0) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
    throw InputError("the " + what + " '" + dir.string() + "' is open to other users (mode " + mode +
                     "); it holds private data, so secpe will not use it as it is: check that nothing in it was read by others, "
                     "then run: chmod 700 '" + dir.string() + "'");
  }
}

void write_file_set(const std::filesystem::path& dir, const std::vector<FileWriter>& files_marker_last) {
  if (files_marker_last.empty()) return;
  std::error_code ec;
  std::filesystem::remove(dir / files_marker_last.back().first, ec);
  if (ec) throw InputError("cannot write " + (dir / files_marker_last.back().first).string() + ": cannot remove the old one");
  for (const auto& [name, write] : files_marker_last) write_file_atomically(dir / name, write);
}

}  // namespace secpe
