// libFuzzer target: INI option files (cli/options.cpp). The input is the file given to --config of
// a command with an option of every value type the commands use; the command line sets one option
// too, so precedence is exercised.
#include <Eigen/Core>

#include "cli/options.hpp"
#include "fuzz_util.hpp"

using namespace secpe;
namespace po = boost::program_options;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto path = fuzz::input_file("job.ini", data, size);
  po::options_description desc("fuzz options");
  cli::add_common_options(desc);
  desc.add_options()
    ("data", po::value<std::string>()->default_value("data/demo/demo.h5"), "")
    ("seed", po::value<std::uint64_t>(), "")
    ("iterations", po::value<int>()->default_value(5), "")
    ("synthetic", po::value<std::size_t>()->default_value(300), "")
    ("p", po::value<double>()->default_value(1e-4), "")
    ("rows", po::value<Eigen::Index>(), "")
    ("ranks", po::value<unsigned>(), "")
    ("quiet", po::bool_switch(), "")
    ("file", po::value<std::string>(), "");
  po::positional_options_description positional;
  positional.add("file", 1);
  const std::vector<std::string> args = {"--config", path.string(), "--iterations", "3", "input.h5"};
  po::variables_map vm;
  const auto parsed = fuzz::unless_input_error([&] { return cli::parse_options("run", "fuzz", desc, positional, args, vm); });
  if (!parsed || !*parsed) return 0;
  if (vm["iterations"].as<int>() != 3) fuzz::finding("the config file overrode the command line");
  cli::option_values(vm);
  return 0;
}
