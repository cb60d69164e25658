#include "privacy/budgets.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>
#include <unordered_map>

#include "core/error.hpp"

namespace secpe {
namespace {

std::string lower_trimmed(std::string s) {
  const auto b = s.find_first_not_of(" \t\r"), e = s.find_last_not_of(" \t\r");
  s = b == std::string::npos ? "" : s.substr(b, e - b + 1);
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

double parse_number(const std::string& field, const std::string& file, long long line, const char* name) {
  try {
    std::size_t used = 0;
    const double v = std::stod(field, &used);
    if (lower_trimmed(field.substr(used)).empty()) return v;
  } catch (...) {
  }
  throw input_error_at(file, line, std::string("field '") + name + "' is not a number");
}

// A comment is '#' followed by a blank or nothing ("# note"); "#J" with no blank is a secret index.
bool is_comment(const std::string& line) {
  const auto b = line.find_first_not_of(" \t");
  return b != std::string::npos && line[b] == '#' && (b + 1 == line.size() || std::isspace(static_cast<unsigned char>(line[b + 1])));
}

// "#J": J in plain decimal digits (no sign, point, exponent or hex) and below `count`. The
// message never repeats the field, which may be a secret mistyped after '#'.
std::size_t parse_secret_index(const std::string& key, std::size_t count, const std::string& file, long long line) {
  const std::string digits = key.substr(1);
  std::uint64_t j = 0;
  const bool plain = !digits.empty() && std::all_of(digits.begin(), digits.end(), [](unsigned char c) { return std::isdigit(c); });
  if (!plain || std::from_chars(digits.data(), digits.data() + digits.size(), j).ec != std::errc()) {
    throw input_error_at(file, line, "a secret index is '#' followed by decimal digits only (a comment is '#' followed by a space)");
  }
  if (j >= count) throw input_error_at(file, line, "secret index out of range (the dataset has " + std::to_string(count) + " secrets)");
  return static_cast<std::size_t>(j);
}

}  // namespace

void check_budget(double p, double r, const std::string& what) {
  if (!(p > 0 && p < 1)) throw InputError(what + ": p must be in (0, 1)");
  if (!(r > p && r < 1)) throw InputError(what + ": r must be in (p, 1)");
}

SecretBudgets uniform_budgets(std::size_t secrets, double p, double r) {
  check_budget(p, r, "p and r");
  return {.p = std::vector<double>(secrets, p), .r = std::vector<double>(secrets, r), .total_r = {}};
}

SecretBudgets read_budgets_file(const std::filesystem::path& path, const std::vector<std::string>& secret_names,
                                SecretBudgets budgets) {
  const std::string file = path.string();
  std::ifstream in(path);
  if (!in) throw InputError("budgets file: cannot read '" + file + "'");
  std::unordered_map<std::string, std::size_t> index;
  for (std::size_t j = 0; j < secret_names.size(); ++j) index.emplace(lower_trimmed(secret_names[j]), j);
  std::vector<bool> seen(secret_names.size(), false);
  std::string text;
  long long line = 0;
  bool header = true;
  std::size_t columns = 3;  // secret,p,r and optionally total_r
  while (std::getline(in, text)) {
    ++line;
    if (lower_trimmed(text).empty() || is_comment(text)) continue;
    std::vector<std::string> fields;
    std::stringstream ss(text);
    for (std::string f; std::getline(ss, f, ',');) fields.push_back(f);
    if (lower_trimmed(text).ends_with(',')) fields.emplace_back();  // an empty last field (getline drops it)
    if (header) {
      columns = fields.size();
      if ((columns != 3 && columns != 4) || lower_trimmed(fields[0]) != "secret" || lower_trimmed(fields[1]) != "p" ||
          lower_trimmed(fields[2]) != "r" || (columns == 4 && lower_trimmed(fields[3]) != "total_r")) {
        throw input_error_at(file, line, "expected the header 'secret,p,r' or 'secret,p,r,total_r'");
      }
      if (columns == 4 && budgets.total_r.empty()) budgets.total_r.assign(budgets.p.size(), 0.0);
      header = false;
      continue;
    }
    if (fields.size() != columns) {
      throw input_error_at(file, line, columns == 3 ? "expected 3 fields: secret,p,r" : "expected 4 fields: secret,p,r,total_r (total_r may be empty)");
    }
    const std::string key = lower_trimmed(fields[0]);
    std::size_t j = 0;
    if (key.starts_with('#')) {
      j = parse_secret_index(key, secret_names.size(), file, line);
    } else {
      const auto it = index.find(key);
      if (it == index.end()) throw input_error_at(file, line, "the secret is not in the dataset's secret list");
      j = it->second;
    }
    if (seen[j]) throw input_error_at(file, line, "secret #" + std::to_string(j) + " is listed twice");
    seen[j] = true;
    const double p = parse_number(fields[1], file, line, "p"), r = parse_number(fields[2], file, line, "r");
    check_budget(p, r, file + ":" + std::to_string(line));
    budgets.p[j] = p;
    budgets.r[j] = r;
    if (columns == 4 && !lower_trimmed(fields[3]).empty()) {
      const double total = parse_number(fields[3], file, line, "total_r");
      if (!(total >= r && total < 1)) throw input_error_at(file, line, "total_r must be in [r, 1): the cap on what all runs together may give the secret");
      budgets.total_r[j] = total;
    }
  }
  if (header) throw input_error_at(file, line, "empty budgets file (expected the header 'secret,p,r')");
  return budgets;
}

}  // namespace secpe
