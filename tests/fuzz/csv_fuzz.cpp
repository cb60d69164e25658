// libFuzzer target: the Aug-PE CSV reader (io/csv_reader.cpp, csv_scanner.cpp, utf8.cpp). The input
// is the file. Besides crashes and sanitizer reports it checks the readers' promises
// (fuzz_util.hpp) and that what was read survives a round trip through the CSV writer.
#include <sstream>

#include "fuzz_util.hpp"

using namespace secpe;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  CsvReadOptions options;  // text,label1,label2 with Aug-PE's label prefixes
  const auto path = fuzz::input_file("corpus.csv", data, size);
  const auto strict = fuzz::unless_input_error([&] { return read_augpe_csv(path, options); });
  options.on_bad_record = OnBadRecord::kSkip;
  const auto lenient = fuzz::unless_input_error([&] { return read_augpe_csv(path, options); });
  fuzz::check_corpus(strict, lenient, options.label_columns.size());
  if (!lenient || lenient->texts.empty()) return 0;

  std::ostringstream written;
  write_augpe_csv(written, lenient->label_columns, lenient->label_prefixes, lenient->texts, lenient->labels);
  const std::string text = written.str();
  const auto again_path = fuzz::input_file("again.csv", reinterpret_cast<const std::uint8_t*>(text.data()), text.size());
  const auto again = fuzz::unless_input_error([&] { return read_augpe_csv(again_path, options); });
  if (!again) fuzz::finding("the writer's CSV cannot be read back");
  if (again->texts != lenient->texts || again->labels != lenient->labels || again->bad_records_skipped != 0) {
    fuzz::finding("the CSV round trip changed the corpus");
  }
  return 0;
}
