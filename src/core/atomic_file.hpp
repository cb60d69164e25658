#pragma once
// Output files are written under a temporary name in the same folder and renamed into place only
// when complete, so a failed or interrupted run never leaves a half-written output.
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

namespace secpe {

// Calls write(stream) on "PATH.tmp.PID", flushes, then renames to PATH. On any failure the
// temporary file is removed and an InputError names PATH.
void write_file_atomically(const std::filesystem::path& path,
                           const std::function<void(std::ostream&)>& write);

// The temporary name used for PATH (for writers such as HDF5 that need a file name, not a stream).
std::filesystem::path temporary_path_for(const std::filesystem::path& path);

// Renames a finished temporary file into place (fsync'd first); removes it and throws on failure.
void commit_temporary(const std::filesystem::path& tmp, const std::filesystem::path& path);

}  // namespace secpe
