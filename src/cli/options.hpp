#pragma once
// Option parsing shared by every command: Boost.Program_options on the command line, then the
// INI file named by --config (keys at the top of the file, or in a section named after the
// command: one job file can hold [corpus], [import] and [run]). The command line wins.
#include <boost/program_options.hpp>
#include <filesystem>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "io/corpus.hpp"

namespace secpe::cli {

namespace po = boost::program_options;

// Adds --help and --config to `desc`.
void add_common_options(po::options_description& desc);

// Returns false when --help was given (help already printed to stdout). Throws InputError on an
// unknown option, a bad value, or an unreadable or malformed config file (naming file and line).
// Numeric values are checked for every command: a negative value of an unsigned option (which
// Boost would wrap to 2^64 - 1) and a NaN or infinite floating-point value are errors naming the
// option; ranges are each command's job (option_in).
bool parse_options(const std::string& command, const std::string& usage, po::options_description& desc,
                   const po::positional_options_description& positional, const std::vector<std::string>& args,
                   po::variables_map& vm);

[[noreturn]] void throw_out_of_range(const std::string& name, const std::string& value, const std::string& lo,
                                     const std::string& hi);

// The value of the numeric option --NAME, which must lie in [lo, hi]; InputError naming the
// option and the range otherwise.
template <class T>
T option_in(const po::variables_map& vm, const std::string& name, T lo, T hi) {
  const T value = vm[name].as<T>();
  if (value < lo || value > hi) {
    auto text = [](T v) { std::ostringstream o; o << v; return o.str(); };
    throw_out_of_range(name, text(value), text(lo), text(hi));
  }
  return value;
}

// An option that takes auto or an integer in [lo, hi]: nullopt for auto; InputError naming --NAME
// and the range otherwise.
std::optional<int> auto_or_integer(const std::string& name, const std::string& value, int lo, int hi);

// Output paths are checked before any work: InputError naming --OPTION when `path` cannot take
// the output file (not new and not a regular file, or not in a writable folder), or when `dir`
// cannot be the output folder of `files`.
void check_output_file(const std::string& option, const std::filesystem::path& path);
void check_output_folder(const std::string& option, const std::filesystem::path& dir, const std::vector<std::string>& files);

// --force: the switch of the commands whose output file took real work (a dataset, a corpus), so
// that a second command with the same --out never replaces the first one's file without being
// asked. check_new_output_file is check_output_file plus that rule: an existing file is an
// InputError naming --OPTION and the file, unless `force` (the replacement is still written to a
// temporary file and renamed, so the old file stays whole until the new one is complete).
void add_force_option(po::options_description& desc, const std::string& outputs);
void check_new_output_file(const std::string& option, const std::filesystem::path& path, bool force);

// "a,b," split at `sep` -> {"a", "b", ""} (an empty string gives no item).
std::vector<std::string> split_list(const std::string& s, char sep);

// --on-bad-record: "error" or "skip" (InputError otherwise).
OnBadRecord parse_on_bad_record(const std::string& value);

// Every option's final value as text (for run.json), sorted by name.
std::vector<std::pair<std::string, std::string>> option_values(const po::variables_map& vm);

}  // namespace secpe::cli
