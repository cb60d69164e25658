// Option parsing (cli/options.cpp): regression tests for what fuzzing the INI reader found.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <future>
#include <memory>
#include <thread>

#include "cli/options.hpp"
#include "core/error.hpp"
#include "io_test_util.hpp"

namespace secpe {
namespace {

namespace po = boost::program_options;
using testing_io::TempFile;

// Parses `args` for a command with an int option --iterations and returns the InputError's message
// ("" when parsing succeeds). Runs on a thread: the bug hung for ever, and a hang must fail this
// test at once rather than at ctest's timeout.
std::string parse_error(const std::vector<std::string>& args) {
  auto task = std::make_shared<std::packaged_task<std::string()>>([args] {
    po::options_description desc("test options");
    cli::add_common_options(desc);
    desc.add_options()("iterations", po::value<int>()->default_value(5), "");
    po::variables_map vm;
    try {
      cli::parse_options("run", "test", desc, {}, args, vm);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  });
  auto result = task->get_future();
  std::thread([task] { (*task)(); }).detach();
  if (result.wait_for(std::chrono::seconds(20)) != std::future_status::ready) {
    ADD_FAILURE() << "parse_options hung";
    std::_Exit(1);
  }
  return result.get();
}

TEST(CliOptions, PlaceholderInAValueIsAnErrorNotAHang) {
  const auto message = parse_error({"--iterations", "x%value%"});
  EXPECT_NE(message.find("'--iterations'"), std::string::npos) << message;
  EXPECT_NE(message.find("secpe run --help"), std::string::npos) << message;
}

TEST(CliOptions, PlaceholderInAnUnknownOptionIsAnErrorNotAHang) {
  EXPECT_NE(parse_error({"--x%original_token%"}).find("invalid option or value"), std::string::npos);
}

TEST(CliOptions, PlaceholderInAConfigFileIsAnErrorNotAHang) {
  TempFile config("job.ini", "# found by fuzz_ini\n[run]\niterations = %value%\n");
  const auto message = parse_error({"--config", config.str()});
  EXPECT_EQ(message.rfind(config.str() + ":3: ", 0), 0u) << message;
  EXPECT_NE(message.find("iterations"), std::string::npos) << message;
}

TEST(CliOptions, OtherMessagesStayBoosts) {
  EXPECT_NE(parse_error({"--iterations", "abc"}).find("the argument ('abc') for option '--iterations' is invalid"),
            std::string::npos);
  EXPECT_EQ(parse_error({"--iterations", "7"}), "");
}

}  // namespace
}  // namespace secpe
