#include "bench/bench_report.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <thread>

#include "bench/synth_embeddings.hpp"
#include "compute/cpu/blas_core.hpp"
#include "compute/cpu/blas_kernel.hpp"
#include "compute/cuda/cuda_backend.hpp"
#include "core/atomic_file.hpp"
#include "core/build_info.hpp"
#include "core/log.hpp"
#include "io/dataset.hpp"

namespace secpe {
namespace {

std::string first_line_with(const char* file, const std::string& key) {
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key, 0) == 0) {
      const auto colon = line.find(':');
      auto v = colon == std::string::npos ? line : line.substr(colon + 1);
      v.erase(0, v.find_first_not_of(" \t"));
      return v;
    }
  }
  return "";
}

}  // namespace

nlohmann::ordered_json machine_info() {
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  nlohmann::ordered_json env = nlohmann::ordered_json::object();
  for (const char* name : {"OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "SECPE_THREADS",
                           "SECPE_BLAS_SCREEN", "SECPE_BLAS_SCREEN_AUTO"}) {
    if (const char* v = std::getenv(name)) env[name] = v;
  }
  const BlasCore core = blas_core();
  const AutoScreen screen = auto_screen();
  return {{"host", host},
          {"cpu", first_line_with("/proc/cpuinfo", "model name")},
          {"hardware_threads", std::thread::hardware_concurrency()},
          {"memory", first_line_with("/proc/meminfo", "MemTotal")},
          {"environment", env},
          {"openblas_core", {{"name", core.name}, {"kernels", tier_name(core.tier)}, {"cpu_supports", tier_name(core.cpu_tier)},
                             {"chosen_by", core.source}, {"faster_core_available", !faster_cores(core.cpu_tier, core.tier).empty()}}},
          {"blas_screen_auto", {{"choice", auto_screen_text(screen)}, {"chosen_by", screen.source}}}};
}

nlohmann::ordered_json build_options_json() {
  nlohmann::ordered_json options = nlohmann::ordered_json::object();
  for (const BuildOption& o : build_info().options) options[o.name] = o.value;
  return options;
}

nlohmann::ordered_json metric_definition(const std::string& name, const std::string& unit, const std::string& definition) {
  return {{"name", name}, {"unit", unit}, {"definition", definition}};
}

double peak_rss_mib() {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  return double(usage.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

nlohmann::ordered_json bench_frame(const std::string& benchmark, const std::vector<std::string>& command, int threads, int ranks) {
  std::string joined = "secpe bench " + benchmark;
  for (const auto& a : command) joined += " " + a;
  return {{"benchmark", benchmark}, {"command", joined}, {"secpe_version", build_info().version}, {"commit", build_info().commit},
          {"build", build_options_json()}, {"machine", machine_info()}, {"threads", threads}, {"ranks", ranks}};
}

nlohmann::ordered_json bench_data_json(const std::filesystem::path& data, bool declared_synthetic) {
  const DatasetReader reader(data);
  const auto source = reader.info().provenance.find("source");
  const bool made_synthetic = source != reader.info().provenance.end() && source->second == kSynthEmbeddingsSource;
  const char* kind = made_synthetic       ? "synthetic (secpe synth-embeddings)"
                     : declared_synthetic ? "synthetic (declared: --synthetic-data)"
                                          : "real: the report times work on its private records and counts them; keep it as private as the data";
  return {{"file", data.filename().string()}, {"kind", kind}, {"publishable", made_synthetic || declared_synthetic}};
}

void emit_bench_report(const nlohmann::ordered_json& report, const std::filesystem::path& out) {
  const std::string text = report.dump(2);
  const bool publishable = !report.contains("data") || report["data"].value("publishable", true);
  if (!out.empty()) {
    if (out.has_parent_path()) std::filesystem::create_directories(out.parent_path());
    write_file_atomically(out, [&](std::ostream& o) { o << text << "\n"; }, publishable ? FileAccess::kPublishable : FileAccess::kPrivate);
  }
  if (publishable || out.empty()) std::cout << text << std::endl;
  if (!publishable) {
    log_warn("the report on " + report["data"].value("file", "") + " is private (real data: it times private work and counts private records)" +
             (out.empty() ? "; --out writes it 0600 without printing it" : ": written 0600 to " + out.string() + ", not printed") +
             "; --synthetic-data declares data made by secpe corpus synthetic");
  }
}

nlohmann::ordered_json device_phases_json(const DevicePhases& phases, double scale) {
  nlohmann::ordered_json host = nlohmann::ordered_json::object(), device = nlohmann::ordered_json::object();
  double host_total = 0.0, device_total = 0.0;
  for (std::size_t p = 0; p < kDevicePhases; ++p) {
    const double s = phases.seconds[p] * scale;
    (is_host_phase(p) ? host : device)[kDevicePhaseNames[p]] = s;
    (is_host_phase(p) ? host_total : device_total) += s;
  }
  return {{"host", host}, {"device", device}, {"host_seconds", host_total}, {"device_seconds", device_total}};
}

}  // namespace secpe
