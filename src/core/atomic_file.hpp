#pragma once
// Output files are written under a temporary name in the same folder and renamed into place only
// when complete, so a failed or interrupted run never leaves a half-written output.
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

namespace secpe {

// Why `path` cannot take an output file, or "" when it can: the path must be new or a regular
// file (a rename would replace a device such as /dev/full, a FIFO or a symbolic link itself, and
// cannot replace a folder), and its nearest existing ancestor must be a writable folder.
std::string output_file_problem(const std::filesystem::path& path);
// The same for an output folder: new or a folder, in a writable place.
std::string output_folder_problem(const std::filesystem::path& dir);

// Who may read a file: publishable outputs follow the umask; a file holding private data (a
// dataset, anything in the private state folder) is created mode 0600 whatever the umask, before
// a byte of it is written, so it is never readable by others, not even for a moment.
enum class FileAccess { kPublishable, kPrivate };

// Calls write(stream) on "PATH.tmp.PID", flushes, then renames to PATH. On any failure the
// temporary file is removed and an InputError names PATH. Both writers refuse a PATH with an
// output_file_problem before writing anything.
void write_file_atomically(const std::filesystem::path& path,
                           const std::function<void(std::ostream&)>& write,
                           FileAccess access = FileAccess::kPublishable);

// For writers that need a file name, not a stream (HDF5): calls write(tmp) with the temporary
// name, then renames it to PATH; on any failure the temporary file is removed. kPrivate creates
// the temporary file (0600) before write(tmp) runs: the writer must open it without recreating it
// (HDF5's H5F_ACC_TRUNC and std::ofstream keep an existing file's mode).
void write_path_atomically(const std::filesystem::path& path,
                           const std::function<void(const std::filesystem::path& tmp)>& write,
                           FileAccess access = FileAccess::kPublishable);

// Creates `dir` (and missing parents) and makes sure it is private: a new folder is made 0700; an
// existing one must already be closed to others (no group or other permission bits) and owned by
// this user, else an InputError tells the user the chmod to run (never changed silently: a
// folder others could read may already have been read). `what` names the folder in messages.
void ensure_private_folder(const std::filesystem::path& dir, const std::string& what);

// Writes the files of one output folder as a set. The last file is the set's completion marker:
// it is removed first and written last, so a folder holding it holds a complete set from one
// run, and a folder without it holds an unfinished one (every file is still written atomically).
using FileWriter = std::pair<std::string, std::function<void(std::ostream&)>>;
void write_file_set(const std::filesystem::path& dir, const std::vector<FileWriter>& files_marker_last);

}  // namespace secpe
