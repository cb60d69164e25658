// Writes Aug-PE's CSV: quoting only where RFC 4180 requires it, LF line endings, and each label
// column's prefix put back so Aug-PE's own tools read the file unchanged.
#include <ostream>
#include <stdexcept>
#include <string_view>

#include "io/corpus.hpp"

namespace secpe {
namespace {

void write_field(std::ostream& out, std::string_view prefix, std::string_view value) {
  const auto needs_quotes = [](std::string_view s) {
    return s.find_first_of(",\"\r\n") != std::string_view::npos;
  };
  if (!needs_quotes(prefix) && !needs_quotes(value)) {
    out << prefix << value;
    return;
  }
  out << '"';
  for (const std::string_view part : {prefix, value}) {
    std::size_t start = 0;
    for (std::size_t q; (q = part.find('"', start)) != std::string_view::npos; start = q + 1) {
      out << part.substr(start, q + 1 - start) << '"';  // doubled quote
    }
    out << part.substr(start);
  }
  out << '"';
}

}  // namespace

void write_augpe_csv(std::ostream& out, const std::vector<std::string>& label_columns,
                     const std::vector<std::string>& label_prefixes,
                     const std::vector<std::string>& texts,
                     const std::vector<std::vector<std::string>>& labels,
                     const std::vector<int>& column_order) {
  if (labels.size() != texts.size()) throw std::invalid_argument("write_augpe_csv: labels/texts size mismatch");
  if (label_prefixes.size() > label_columns.size()) {
    throw std::invalid_argument("write_augpe_csv: more prefixes than label columns");
  }
  std::vector<int> order = column_order;
  if (order.empty()) {
    for (int k = 0; k <= static_cast<int>(label_columns.size()); ++k) order.push_back(k);
  }
  if (order.size() != label_columns.size() + 1) throw std::invalid_argument("write_augpe_csv: the column order does not fit the columns");
  for (std::size_t k = 0; k < order.size(); ++k) {
    if (k > 0) out << ',';
    if (order[k] == 0) out << "text";
    else write_field(out, {}, label_columns[static_cast<std::size_t>(order[k] - 1)]);
  }
  out << '\n';
  for (std::size_t i = 0; i < texts.size(); ++i) {
    if (labels[i].size() != label_columns.size()) {
      throw std::invalid_argument("write_augpe_csv: record " + std::to_string(i) +
                                  " has the wrong number of label values");
    }
    for (std::size_t k = 0; k < order.size(); ++k) {
      if (k > 0) out << ',';
      const auto c = static_cast<std::size_t>(order[k] - 1);
      if (order[k] == 0) write_field(out, {}, texts[i]);
      else write_field(out, c < label_prefixes.size() ? std::string_view(label_prefixes[c]) : std::string_view(), labels[i][c]);
    }
    out << '\n';
  }
}

}  // namespace secpe
