// secpe privacy: calibrate one population of private records in every mode (exact, paper, gdp)
// and report what a given sigma actually achieves, from a dataset's secret matrix or from the
// simulated setup of the paper's appendix B.1.
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <functional>
#include <map>
#include <memory>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "io/dataset.hpp"
#include "privacy/study.hpp"

namespace secpe::cli {
namespace {

// The private rows (those holding a secret) of a whole dataset, indptr from 0.
SecretMatrix private_rows_of(const DatasetReader& reader) {
  const SecretMatrix all = reader.secrets(0, reader.info().num_records);
  SecretMatrix rows;
  rows.num_secrets = all.num_secrets;
  rows.indptr = {0};
  for (std::size_t i = 0; i < all.rows(); ++i) {
    if (!all.is_private(i)) continue;
    const auto s = all.secrets_of(i);
    rows.indices.insert(rows.indices.end(), s.begin(), s.end());
    rows.indptr.push_back(static_cast<std::int64_t>(rows.indices.size()));
  }
  return rows;
}

// The report: the setup, sigma in every mode, the ratios and every secret's figures; `over`
// gets the number of secrets whose r at the evaluated sigma exceeds their budget.
nlohmann::ordered_json study_json(const nlohmann::ordered_json& setup, const PrivacyStudy& s, const SecretBudgets& budgets,
                                  std::size_t& over) {
  nlohmann::ordered_json j;
  j["setup"] = setup;
  j["sampling_lp"] = s.lp_path;
  j["batch_used"] = s.batch_used;
  j["sigma"] = {{"exact", s.sigma_exact}, {"paper", s.sigma_paper}, {"gdp", s.sigma_gdp}, {"evaluated", s.sigma_evaluated}};
  j["lp_choice"] = {{"definition", "among the optimal LP solutions, secpe uses one that puts each secret set's weight on as few records as possible (same objective, constraints and batch); sigma_exact_spread is what the plain solution (every record of a set at the same weight) needs"},
                    {"sigma_exact", s.sigma_exact}, {"sigma_exact_spread", s.sigma_exact_spread},
                    {"sigma_saved_by_lp_choice", s.sigma_exact_spread - s.sigma_exact},
                    {"weighted_records", s.weighted_records}, {"weighted_records_spread", s.weighted_records_spread}};
  j["sigma_ratio"] = {{"definition", "sigma_gdp / sigma: Aug-PE's record-level noise over SecPE's secret-level noise for the same (p, r); larger is better for secret protection"},
                      {"exact", s.sigma_ratio_exact}, {"paper", s.sigma_ratio_paper}};
  j["group_sigma_ratio"] = {{"definition", "sigma_gdp_group / sigma, with sigma_gdp_group = max_j sqrt(T) n_j / mu_j: the noise record-level GDP needs (group privacy over the n_j holders) for the same secret guarantee"},
                            {"sigma_gdp_group", s.sigma_gdp_group}, {"exact", s.group_ratio_exact}, {"paper", s.group_ratio_paper}};
  j["noise_ratio"] = {{"definition", "(sigma_gdp / records) / (sigma / batch_used): the same per unit of signal (every record votes in Aug-PE, batch_used records are sampled in SecPE)"},
                      {"exact", s.noise_ratio_exact}, {"paper", s.noise_ratio_paper}};
  j["modes"] = {{"exact", "mixture of Gaussians (Poisson-binomial counts), counts and centres (sqrt(2)), discretised PLD composed over T, bisection so that B(p_j) <= r_j"},
                {"paper", "sqrt(T) * Delta_j / eta_j (single-Gaussian approximation; not an upper bound; it leaves out the sqrt(2) of releasing counts and centres, i.e. it accounts for one of the two statistics released per iteration)"},
                {"gdp", "sqrt(T) / mu_j (Aug-PE, sensitivity 1 per record)"}};
  nlohmann::ordered_json secrets = nlohmann::ordered_json::array();
  for (std::size_t k = 0; k < s.secrets.size(); ++k) {
    const auto& x = s.secrets[k];
    over += x.r_at_sigma > budgets.r[k] ? 1 : 0;
    secrets.push_back({{"secret", k}, {"p", budgets.p[k]}, {"r", budgets.r[k]},
                       {"sigma_exact", x.sigma_exact > 0 ? nlohmann::ordered_json(x.sigma_exact) : nlohmann::ordered_json(nullptr)},
                       {"sigma_paper", x.sigma_paper}, {"sigma_gdp", x.sigma_gdp},
                       {"r_at_sigma", x.r_at_sigma}, {"r_at_sigma_over_p", x.r_at_sigma / budgets.p[k]}});
  }
  j["secrets_over_budget_at_sigma"] = over;
  j["secrets"] = secrets;
  return j;
}

// Each stage's progress on stderr (the results go to stdout).
std::function<void(const std::string&, std::size_t, std::size_t)> stage_progress() {
  auto bars = std::make_shared<std::map<std::string, std::unique_ptr<Progress>>>();
  return [bars](const std::string& stage, std::size_t done, std::size_t total) {
    auto& bar = (*bars)[stage];
    if (!bar) bar = std::make_unique<Progress>(stage, total);
    if (done < total) bar->step(done);
    else bar->finish();
  };
}

}  // namespace

int command_privacy(const std::vector<std::string>& args) {
  if (!args.empty() && args[0] == "calibrate") return command_privacy_calibrate({args.begin() + 1, args.end()});
  if (!args.empty() && args[0] == "plan") return command_privacy_plan({args.begin() + 1, args.end()});
  po::options_description desc("secpe privacy options");
  add_common_options(desc);
  PrivacyStudyOptions o;
  desc.add_options()
    ("data", po::value<std::string>(), "dataset: calibrate its private records as one population")
    ("simulate", po::bool_switch(), "the appendix B.1 setup instead: --records records, each holding each of --secrets secrets with probability --inclusion")
    ("records", po::value<std::uint64_t>()->default_value(8000), "simulate: records")
    ("secrets", po::value<int>()->default_value(400), "simulate: secrets")
    ("inclusion", po::value<double>()->default_value(0.01, "0.01"), "simulate: probability that a record holds a given secret")
    ("seed", po::value<std::uint64_t>()->default_value(1), "simulate: seed")
    ("iterations", po::value<int>(&o.iterations)->default_value(o.iterations), "releases T")
    ("private-batch", po::value<double>(&o.batch)->default_value(o.batch, "1000"), "expected private records sampled per iteration (0: the LP weights themselves are the sampling probabilities)")
    ("p", po::value<double>()->default_value(1e-4, "1e-4"), "adversary prior p of every secret")
    ("r-over-p", po::value<double>()->default_value(10.0, "10"), "allowed risk as a multiple of p")
    ("r", po::value<double>(), "allowed risk r (overrides --r-over-p)")
    ("budgets", po::value<std::string>(), "with --data: CSV 'secret,p,r' of per-secret budgets")
    ("sigma", po::value<double>(&o.sigma)->default_value(0.0, "0"), "sigma whose achieved r_j to report (0: the paper's sigma)")
    ("summary-only", po::bool_switch(), "calibrate exactly only what sigma = max_j sigma_j needs (fast)")
    ("threads", po::value<int>(&o.threads)->default_value(0), "secrets calibrated side by side (0: the SECPE_THREADS environment variable if set, else all hardware threads); same results for any number")
    ("quiet", po::bool_switch(), "no progress output")
    ("out", po::value<std::string>(), "also write the JSON here");
  po::variables_map vm;
  if (!parse_options("privacy", "secpe privacy (--data DATA.h5 | --simulate) [--iterations T --p P --r-over-p K] [--out FILE.json]\n"
                       "       secpe privacy calibrate --help   (the sigma for given holders' rho, without a dataset)\n"
                       "       secpe privacy plan --help        (the r/p each of K runs on one dataset may take)\n\n"
                       "The paper column is sqrt(T) Delta_j / eta_j as published: a single Gaussian at the mean count that also\n"
                       "leaves out the sqrt(2) of releasing both counts and centres; exact accounts for both.", desc, {}, args, vm)) return 0;
  const bool simulate = vm["simulate"].as<bool>();
  if (simulate == (vm.count("data") > 0)) throw InputError("give exactly one of --data FILE.h5 and --simulate");
  if (vm.count("out")) check_output_file("out", vm["out"].as<std::string>());
  if (simulate) {
    // The simulated matrix holds about records x secrets x inclusion entries.
    option_in<std::uint64_t>(vm, "records", 1, 100000000);
    option_in(vm, "secrets", 1, 1000000);
    if (!(vm["inclusion"].as<double>() > 0 && vm["inclusion"].as<double>() <= 1)) throw InputError("--inclusion must be in (0, 1]");
  }
  option_in(vm, "iterations", 1, 100000);
  option_in(vm, "threads", 0, 65536);
  set_log_quiet(vm["quiet"].as<bool>());
  o.progress = stage_progress();
  option_in(vm, "private-batch", 0.0, 1e12);
  option_in(vm, "sigma", 0.0, 1e15);
  const double p = vm["p"].as<double>();
  const double r = vm.count("r") ? vm["r"].as<double>() : p * vm["r-over-p"].as<double>();
  o.per_secret_exact = !vm["summary-only"].as<bool>();

  SecretMatrix rows;
  nlohmann::ordered_json setup;
  std::vector<std::string> names;
  if (simulate) {
    o.records = vm["records"].as<std::uint64_t>();
    rows = simulate_secret_matrix(o.records, vm["secrets"].as<int>(), vm["inclusion"].as<double>(), vm["seed"].as<std::uint64_t>());
    setup = {{"source", "simulated (appendix B.1)"}, {"records", o.records}, {"secrets", vm["secrets"].as<int>()},
             {"inclusion", vm["inclusion"].as<double>()}, {"seed", vm["seed"].as<std::uint64_t>()}};
  } else {
    const std::filesystem::path data = vm["data"].as<std::string>();
    if (!std::filesystem::is_regular_file(data)) throw InputError("--data: cannot read '" + data.string() + "'");
    DatasetReader reader(data);
    rows = private_rows_of(reader);
    o.records = reader.info().num_records;
    if (vm.count("budgets")) names = reader.secret_names();
    setup = {{"source", data.string()}, {"records", o.records}, {"secrets", reader.info().num_secrets}};
  }
  SecretBudgets budgets = uniform_budgets(static_cast<std::size_t>(rows.num_secrets), p, r);
  if (vm.count("budgets")) {
    if (simulate) throw InputError("--budgets needs --data (simulated secrets have no names)");
    budgets = read_budgets_file(vm["budgets"].as<std::string>(), names, budgets);
  }
  setup["private_records"] = rows.rows();
  setup["iterations"] = o.iterations;
  setup["p"] = p;
  setup["r"] = r;
  setup["r_over_p"] = r / p;
  setup["private_batch"] = o.batch;

  const PrivacyStudy s = study_privacy(rows, budgets, o);
  std::size_t over = 0;
  const nlohmann::ordered_json j = study_json(setup, s, budgets, over);
  if (vm.count("out")) {
    const std::filesystem::path out = vm["out"].as<std::string>();
    if (out.has_parent_path()) std::filesystem::create_directories(out.parent_path());
    write_file_atomically(out, [&](std::ostream& os) { os << j.dump(2) << "\n"; });
  }
  std::printf("private records %zu, T = %d, p = %g, r = %g (r/p = %g), batch %.4g (lp: %s)\n", rows.rows(), o.iterations, p, r, r / p,
              s.batch_used, s.lp_path.c_str());
  std::printf("sigma: exact %.6g   paper %.6g   gdp %.6g\n", s.sigma_exact, s.sigma_paper, s.sigma_gdp);
  std::printf("LP solution: concentrated on %zu records needs sigma %.6g; spread over %zu records it would need %.6g (saved %.4g)\n",
              s.weighted_records, s.sigma_exact, s.weighted_records_spread, s.sigma_exact_spread, s.sigma_exact_spread - s.sigma_exact);
  std::printf("sigma ratio gdp / secret: exact %.4g   paper %.4g   (per unit of signal: exact %.4g   paper %.4g)\n",
              s.sigma_ratio_exact, s.sigma_ratio_paper, s.noise_ratio_exact, s.noise_ratio_paper);
  std::printf("same secret guarantee by record-level GDP (group privacy): sigma %.6g, ratio to exact %.4g\n", s.sigma_gdp_group, s.group_ratio_exact);
  std::printf("at sigma = %.6g: %zu of %zu secrets exceed their r under exact accounting\n", s.sigma_evaluated, over, s.secrets.size());
  double worst = 0;
  for (std::size_t k = 0; k < s.secrets.size(); ++k) worst = std::max(worst, s.secrets[k].r_at_sigma / budgets.p[k]);
  std::printf("worst achieved r/p at that sigma: %.4g (promised %.4g)\n", worst, r / p);
  return 0;
}

}  // namespace secpe::cli
