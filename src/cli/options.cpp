#include "cli/options.hpp"

#include <charconv>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli/commands.hpp"
#include "core/atomic_file.hpp"
#include "core/error.hpp"

namespace secpe::cli {
namespace {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

bool is_unsigned_option(const po::value_semantic* semantic) {
  return dynamic_cast<const po::typed_value<unsigned long>*>(semantic) ||
         dynamic_cast<const po::typed_value<unsigned long long>*>(semantic) ||
         dynamic_cast<const po::typed_value<unsigned int>*>(semantic);
}

// Boost converts "-1" into an unsigned option as 2^64 - 1 (--synthetic -1 asked for everything),
// so a minus sign in front of such a value is refused before Boost sees it (a po::error, so the
// caller adds the config file and line, or the help hint).
void reject_negative_unsigned(const po::parsed_options& parsed) {
  for (const auto& option : parsed.options) {
    const auto* description = parsed.description->find_nothrow(option.string_key, false);
    if (!description || !is_unsigned_option(description->semantic().get())) continue;
    for (const auto& value : option.value) {
      if (trim(value).starts_with('-')) {
        throw po::error("--" + option.string_key + " must be a whole number, 0 or more, not '" + value + "'");
      }
    }
  }
}

// Stores what `parser` parsed after the checks above.
void store_checked(po::command_line_parser& parser, po::variables_map& vm) {
  const po::parsed_options parsed = parser.run();
  reject_negative_unsigned(parsed);
  po::store(parsed, vm);
}

// NaN or infinity is never a meaningful option value (--threshold nan made every vote NaN).
void reject_non_finite(const po::variables_map& vm) {
  for (const auto& [name, value] : vm) {
    const auto* d = boost::any_cast<double>(&value.value());
    if (d && !std::isfinite(*d)) throw InputError("--" + name + " must be a finite number, not " + std::to_string(*d));
  }
}

// Boost.Program_options (1.74) makes an option error's message by replacing placeholders such as
// %value% with the user's text, and loops forever when that text holds a placeholder itself
// (`secpe run --seed %value%` hung). When a token has a '%', the message names the option only.
std::string error_message(const po::error& e, const std::vector<std::string>& tokens) {
  const auto* named = dynamic_cast<const po::error_with_option_name*>(&e);
  const bool has_percent =
      std::any_of(tokens.begin(), tokens.end(), [](const std::string& t) { return t.find('%') != std::string::npos; });
  if (!named || !has_percent) return e.what();
  return "invalid option or value '" + named->get_option_name() + "'";
}

// Reads KEY = VALUE lines that apply to `command` and stores them (values already stored from
// the command line are kept: po::store never overwrites).
void store_config_file(const std::string& path, const std::string& command, const po::options_description& desc,
                       po::variables_map& vm) {
  if (!std::filesystem::is_regular_file(path)) throw InputError("--config: cannot read '" + path + "'");
  std::ifstream in(path);
  if (!in) throw InputError("--config: cannot read '" + path + "'");
  std::string line, section;
  long long number = 0;
  while (std::getline(in, line)) {
    ++number;
    line = trim(line);
    if (line.empty() || line[0] == '#' || line[0] == ';') continue;
    if (line.front() == '[') {
      if (line.back() != ']') throw input_error_at(path, number, "malformed section header");
      section = trim(line.substr(1, line.size() - 2));
      // A misspelt section ([rnu]) would drop its keys without a word.
      if (!is_command_name(section)) throw input_error_at(path, number, "unknown section [" + section + "]: sections are command names");
      continue;
    }
    if (!section.empty() && section != command) continue;
    const auto eq = line.find('=');
    if (eq == std::string::npos) throw input_error_at(path, number, "expected 'option = value'");
    const std::string key = trim(line.substr(0, eq)), value = trim(line.substr(eq + 1));
    if (key == "config" || key == "help") throw input_error_at(path, number, "'" + key + "' cannot be set in a config file");
    try {
      std::vector<std::string> arg{"--" + key + "=" + value};
      // Switches take no value on the command line; in a file they read "key = true|false".
      const auto* option = desc.find_nothrow(key, false);
      if (option && option->semantic()->max_tokens() == 0) {
        if (value == "false" || value == "no" || value == "0") continue;
        if (value != "true" && value != "yes" && value != "1") throw input_error_at(path, number, "'" + key + "' takes true or false");
        arg = {"--" + key};
      }
      po::command_line_parser parser(arg);
      parser.options(desc);
      store_checked(parser, vm);
    } catch (const po::error& e) {
      throw input_error_at(path, number, error_message(e, {key, value}) + (section.empty() ? "" : " (section [" + section + "])"));
    }
  }
}

}  // namespace

void add_common_options(po::options_description& desc) {
  desc.add_options()("help,h", "print this help and exit")(
      "config", po::value<std::string>(), "INI file of options (top-level keys or a [command] section); the command line wins");
}

bool parse_options(const std::string& command, const std::string& usage, po::options_description& desc,
                   const po::positional_options_description& positional, const std::vector<std::string>& args,
                   po::variables_map& vm) {
  try {
    po::command_line_parser parser(args);
    parser.options(desc).positional(positional);
    store_checked(parser, vm);
  } catch (const po::error& e) {
    throw InputError(error_message(e, args) + " (see 'secpe " + command + " --help')");
  }
  if (vm.count("help")) {
    std::cout << "usage: " << usage << "\n\n" << desc << std::endl;
    return false;
  }
  if (vm.count("config")) store_config_file(vm["config"].as<std::string>(), command, desc, vm);
  try {
    po::notify(vm);
  } catch (const po::error& e) {
    throw InputError(std::string(e.what()) + " (see 'secpe " + command + " --help')");
  }
  reject_non_finite(vm);
  return true;
}

void throw_out_of_range(const std::string& name, const std::string& value, const std::string& lo, const std::string& hi) {
  throw InputError("--" + name + " must be in [" + lo + ", " + hi + "], not " + value);
}

void check_output_file(const std::string& option, const std::filesystem::path& path) {
  if (const auto problem = output_file_problem(path); !problem.empty()) {
    throw InputError("--" + option + ": '" + path.string() + "' " + problem);
  }
}

void add_force_option(po::options_description& desc, const std::string& outputs) {
  desc.add_options()("force", po::bool_switch(), ("replace " + outputs + " if it exists (refused otherwise)").c_str());
}

void check_new_output_file(const std::string& option, const std::filesystem::path& path, bool force) {
  check_output_file(option, path);
  if (!force && std::filesystem::exists(std::filesystem::symlink_status(path))) {
    throw InputError("--" + option + ": '" + path.string() + "' exists: give another --" + option + ", remove it, or add --force to replace it");
  }
}

void check_output_folder(const std::string& option, const std::filesystem::path& dir, const std::vector<std::string>& files) {
  if (const auto problem = output_folder_problem(dir); !problem.empty()) {
    throw InputError("--" + option + ": '" + dir.string() + "' " + problem);
  }
  for (const auto& name : files) check_output_file(option, dir / name);
}

std::vector<std::pair<std::string, std::string>> option_values(const po::variables_map& vm) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [name, value] : vm) {
    if (name == "help") continue;
    std::ostringstream text;
    const auto& any = value.value();
    if (auto* s = boost::any_cast<std::string>(&any)) text << *s;
    else if (auto* i = boost::any_cast<int>(&any)) text << *i;
    else if (auto* z = boost::any_cast<std::size_t>(&any)) text << *z;
    else if (auto* d = boost::any_cast<double>(&any)) text << *d;
    else if (auto* b = boost::any_cast<bool>(&any)) text << (*b ? "true" : "false");
    else text << "?";
    out.emplace_back(name, text.str());
  }
  return out;
}

std::vector<std::string> split_list(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string item;
  std::istringstream in(s);
  while (std::getline(in, item, sep)) out.push_back(item);
  if (!s.empty() && s.back() == sep) out.emplace_back();
  return out;
}

std::optional<int> auto_or_integer(const std::string& name, const std::string& value, int lo, int hi) {
  if (value == "auto") return std::nullopt;
  int k = 0;
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), k);
  if (error != std::errc() || end != value.data() + value.size() || k < lo || k > hi) {
    throw InputError("--" + name + " must be auto or an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], not '" + value + "'");
  }
  return k;
}

OnBadRecord parse_on_bad_record(const std::string& value) {
  return parse_name(kOnBadRecordNames, value, "--on-bad-record");
}

}  // namespace secpe::cli
