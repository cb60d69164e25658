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

// Calls write(stream) on "PATH.tmp.PID", flushes, then renames to PATH. On any failure the
// temporary file is removed and an InputError names PATH. Both writers refuse a PATH with an
// output_file_problem before writing anything.
void write_file_atomically(const std::filesystem::path& path,
                           const std::function<void(std::ostream&)>& write);

// For writers that need a file name, not a stream (HDF5): calls write(tmp) with the temporary
// name, then renames it to PATH; on any failure the temporary file is removed.
void write_path_atomically(const std::filesystem::path& path,
                           const std::function<void(const std::filesystem::path& tmp)>& write);

// Writes the files of one output folder as a set. The last file is the set's completion marker:
// it is removed first and written last, so a folder holding it holds a complete set from one
// run, and a folder without it holds an unfinished one (every file is still written atomically).
using FileWriter = std::pair<std::string, std::function<void(std::ostream&)>>;
void write_file_set(const std::filesystem::path& dir, const std::vector<FileWriter>& files_marker_last);

}  // namespace secpe
