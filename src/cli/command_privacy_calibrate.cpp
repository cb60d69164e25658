// secpe privacy calibrate: the sigma that holders sampled with given rho need over T iterations
// for (p, r), the paper's sigma and what it really gives, and the r of a given sigma
// (privacy/calculator.hpp). No dataset: the holders' rho are the input.
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <numbers>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "privacy/calculator.hpp"

namespace secpe::cli {
namespace {

// One number of a list; `where` names the option (or file and line) in the error.
double parse_number(std::string text, const std::string& where) {
  const auto b = text.find_first_not_of(" \t\r");
  const auto e = text.find_last_not_of(" \t\r");
  text = b == std::string::npos ? "" : text.substr(b, e - b + 1);
  double value = 0.0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || !std::isfinite(value)) {
    throw InputError(where + ": '" + text + "' is not a number");
  }
  return value;
}

// "R1,R2,..." as holders' rho, each in [0, 1].
std::vector<double> parse_rho_list(const std::string& list, const std::string& where) {
  std::vector<double> rho;
  std::size_t start = 0;
  while (start <= list.size()) {
    const auto comma = std::min(list.find(',', start), list.size());
    const double x = parse_number(list.substr(start, comma - start), where);
    if (!(x >= 0 && x <= 1)) throw InputError(where + ": every rho must be in [0, 1], not " + list.substr(start, comma - start));
    rho.push_back(x);
    start = comma + 1;
  }
  return rho;
}

// One rho per line (or comma-separated); blank lines and lines starting with '#' are skipped.
std::vector<double> read_rho_file(const std::string& path) {
  std::ifstream in(path);
  if (!std::filesystem::is_regular_file(path) || !in) throw InputError("--rho-file: cannot read '" + path + "'");
  std::vector<double> rho;
  std::string line;
  for (long long number = 1; std::getline(in, line); ++number) {
    if (line.find_first_not_of(" \t\r") == std::string::npos || line[line.find_first_not_of(" \t\r")] == '#') continue;
    const auto more = parse_rho_list(line, path + ":" + std::to_string(number));
    rho.insert(rho.end(), more.begin(), more.end());
  }
  if (rho.empty()) throw InputError("--rho-file: '" + path + "' holds no rho");
  return rho;
}

// --release "R1,R2,...[@F]": one label's holders, its sigma F times the common sigma (default 1).
CalculatorRelease parse_release(const std::string& text) {
  const std::string where = "--release '" + text + "'";
  const auto at = text.find('@');
  CalculatorRelease out{.rho = parse_rho_list(text.substr(0, at), where)};
  if (at != std::string::npos) {
    out.noise_factor = parse_number(text.substr(at + 1), where);
    if (!(out.noise_factor > 0)) throw InputError(where + ": the noise factor after '@' must be > 0");
  }
  return out;
}

// The population: --rho LIST, --rho-file F or --holders N --rho R (one release), plus any --release.
std::vector<CalculatorRelease> releases_of(const po::variables_map& vm) {
  std::vector<CalculatorRelease> out;
  const bool has_rho = vm.count("rho") > 0, has_file = vm.count("rho-file") > 0, has_holders = vm.count("holders") > 0;
  if (has_rho && has_file) throw InputError("give --rho or --rho-file, not both");
  if (has_holders && !has_rho) throw InputError("--holders N needs --rho R (the rho of every holder)");
  if (has_holders) {
    const auto n = option_in<std::uint64_t>(vm, "holders", 1, 10000000);
    const auto rho = parse_rho_list(vm["rho"].as<std::string>(), "--rho");
    if (rho.size() != 1) throw InputError("--rho: with --holders give one rho, not a list");
    out.push_back({.rho = std::vector<double>(n, rho[0])});
  } else if (has_rho) {
    out.push_back({.rho = parse_rho_list(vm["rho"].as<std::string>(), "--rho")});
  } else if (has_file) {
    out.push_back({.rho = read_rho_file(vm["rho-file"].as<std::string>())});
  }
  if (vm.count("release")) {
    for (const auto& text : vm["release"].as<std::vector<std::string>>()) out.push_back(parse_release(text));
  }
  if (out.empty()) throw InputError("give the holders: --rho LIST, --rho-file FILE, --holders N --rho R, or --release LIST[@F]");
  return out;
}

}  // namespace

int command_privacy_calibrate(const std::vector<std::string>& args) {
  po::options_description desc("secpe privacy calibrate options");
  add_common_options(desc);
  desc.add_options()
    ("rho", po::value<std::string>(), "holders' sampling probabilities, comma-separated (with --holders: the one rho of every holder)")
    ("rho-file", po::value<std::string>(), "file of holders' rho, one per line or comma-separated ('#' comments)")
    ("holders", po::value<std::uint64_t>(), "number of holders, each sampled with --rho")
    ("release", po::value<std::vector<std::string>>(), "one more label holding the secret: 'R1,R2,...[@F]', its sigma F times the common sigma (repeatable; composed with the others)")
    ("iterations", po::value<int>()->default_value(10), "releases T")
    ("p", po::value<double>()->default_value(1e-4, "1e-4"), "adversary prior p")
    ("r-over-p", po::value<double>()->default_value(10.0, "10"), "allowed risk as a multiple of p")
    ("r", po::value<double>(), "allowed risk r (overrides --r-over-p)")
    ("scale", po::value<std::string>()->default_value("sqrt2"), "sensitivity per sampled holder: sqrt2 (counts and centres are both released, as secpe run does) or 1 (one statistic, as the paper's proof)")
    ("sigma", po::value<double>()->default_value(0.0, "0"), "also report the r this sigma gives (0: skip)")
    ("out", po::value<std::string>(), "also write the JSON here");
  po::variables_map vm;
  if (!parse_options("privacy calibrate",
                     "secpe privacy calibrate (--rho LIST | --rho-file F | --holders N --rho R) [--release LIST[@F] ...] "
                     "[--iterations T --p P (--r R | --r-over-p K) --scale sqrt2|1 --sigma S --out FILE.json]\n\n"
                     "The certified sigma is the exact accountant's (mixture of Gaussians over the Poisson-binomial count,\n"
                     "composed over T and over the releases). The paper's sigma is sqrt(T) Delta / eta: a single Gaussian at\n"
                     "the mean count Delta that also leaves out the sqrt(2) of releasing counts and centres; its achieved r\n"
                     "is evaluated with --scale.",
                     desc, {}, args, vm)) {
    return 0;
  }
  if (vm.count("out")) check_output_file("out", vm["out"].as<std::string>());
  const std::string scale_name = vm["scale"].as<std::string>();
  if (scale_name != "sqrt2" && scale_name != "1") throw InputError("--scale must be sqrt2 or 1, not '" + scale_name + "'");
  const double p = vm["p"].as<double>();
  if (!(p > 0 && p < 1)) throw InputError("--p must be in (0, 1)");
  const double r = vm.count("r") ? vm["r"].as<double>() : p * vm["r-over-p"].as<double>();
  if (!(r > p && r < 1)) throw InputError(std::string(vm.count("r") ? "--r" : "--r-over-p") + ": r must be in (p, 1)");
  const double sigma = vm["sigma"].as<double>();
  if (sigma < 0) throw InputError("--sigma must be 0 (skip) or positive");
  const CalculatorOptions o{.iterations = option_in(vm, "iterations", 1, 100000), .p = p, .r = r,
                            .scale = scale_name == "1" ? 1.0 : std::numbers::sqrt2, .sigma = sigma};
  const auto releases = releases_of(vm);
  const CalculatorResult c = calculate_sigma(releases, o);

  nlohmann::ordered_json j;
  nlohmann::ordered_json rel = nlohmann::ordered_json::array();
  for (const auto& x : releases) rel.push_back({{"holders", x.rho.size()}, {"noise_factor", x.noise_factor}, {"rho", x.rho}});
  j["setup"] = {{"iterations", o.iterations}, {"p", p}, {"r", r}, {"r_over_p", r / p}, {"scale", scale_name}, {"releases", rel}};
  j["holders"] = c.holders;
  j["mean_count"] = c.mean_count;
  j["certified"] = {{"sigma", c.sigma_certified}, {"bound_B_p", c.bound_at_certified}, {"bound_over_p", c.bound_at_certified / p},
                    {"description", "smallest sigma for which the exact accountant's upper bound on B(p) is <= r"}};
  j["paper"] = {{"sigma", c.sigma_paper}, {"r_achieved", c.r_at_paper}, {"r_achieved_over_p", c.r_at_paper / p},
                {"description", "sqrt(T) Delta / eta (single Gaussian at the mean count Delta; leaves out the sqrt(2) of releasing counts and centres); r_achieved: exact accounting at that sigma with the chosen scale"}};
  if (sigma > 0) j["at_sigma"] = {{"sigma", sigma}, {"r", c.r_at_sigma}, {"r_over_p", c.r_at_sigma / p}};
  if (vm.count("out")) {
    const std::filesystem::path out = vm["out"].as<std::string>();
    if (out.has_parent_path()) std::filesystem::create_directories(out.parent_path());
    write_file_atomically(out, [&](std::ostream& os) { os << j.dump(2) << "\n"; });
  }
  std::printf("%g holders in %zu release(s), mean sampled count %.6g; T = %d, p = %g, r = %g (r/p = %g), scale %s\n", c.holders,
              releases.size(), c.mean_count, o.iterations, p, r, r / p, scale_name.c_str());
  if (c.sigma_certified > 0) {
    std::printf("certified sigma %.6g: B(p) <= %.6g (r/p %.6g)\n", c.sigma_certified, c.bound_at_certified, c.bound_at_certified / p);
  } else {
    std::printf("certified sigma 0: any sigma > 0 keeps B(p) <= r (the holders are rarely sampled)\n");
  }
  std::printf("paper sigma %.6g (no sqrt(2), single Gaussian): really gives r %.6g (r/p %.6g)\n", c.sigma_paper, c.r_at_paper, c.r_at_paper / p);
  if (sigma > 0) std::printf("at sigma %.6g: r %.6g (r/p %.6g)\n", sigma, c.r_at_sigma, c.r_at_sigma / p);
  return 0;
}

}  // namespace secpe::cli
