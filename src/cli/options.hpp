#pragma once
// Option parsing shared by every command: Boost.Program_options on the command line, then the
// INI file named by --config (keys at the top of the file, or in a section named after the
// command: one job file can hold [corpus], [import] and [run]). The command line wins.
#include <boost/program_options.hpp>
#include <string>
#include <vector>

#include "io/corpus.hpp"

namespace secpe::cli {

namespace po = boost::program_options;

// Adds --help and --config to `desc`.
void add_common_options(po::options_description& desc);

// Returns false when --help was given (help already printed to stdout). Throws InputError on an
// unknown option, a bad value, or an unreadable or malformed config file (naming file and line).
bool parse_options(const std::string& command, const std::string& usage, po::options_description& desc,
                   const po::positional_options_description& positional, const std::vector<std::string>& args,
                   po::variables_map& vm);

// "a,b," split at `sep` -> {"a", "b", ""} (an empty string gives no item).
std::vector<std::string> split_list(const std::string& s, char sep);

// --on-bad-record: "error" or "skip" (InputError otherwise).
OnBadRecord parse_on_bad_record(const std::string& value);

// Every option's final value as text (for run.json), sorted by name.
std::vector<std::pair<std::string, std::string>> option_values(const po::variables_map& vm);

}  // namespace secpe::cli
