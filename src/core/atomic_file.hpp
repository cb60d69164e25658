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

// For writers that need a file name, not a stream (HDF5): calls write(tmp) with the temporary
// name, then renames it to PATH; on any failure the temporary file is removed.
void write_path_atomically(const std::filesystem::path& path,
                           const std::function<void(const std::filesystem::path& tmp)>& write);

}  // namespace secpe
