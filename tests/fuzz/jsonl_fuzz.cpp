// libFuzzer target: the JSONL reader (io/jsonl_reader.cpp, utf8.cpp). The input is the file; label
// values may be strings or numbers. Checks the readers' promises (fuzz_util.hpp).
#include "fuzz_util.hpp"

using namespace secpe;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  JsonlReadOptions options;  // text, label1, label2
  const auto path = fuzz::input_file("corpus.jsonl", data, size);
  const auto strict = fuzz::unless_input_error([&] { return read_jsonl(path, options); });
  options.on_bad_record = OnBadRecord::kSkip;
  const auto lenient = fuzz::unless_input_error([&] { return read_jsonl(path, options); });
  fuzz::check_corpus(strict, lenient, options.label_fields.size());
  return 0;
}
