#pragma once
// The one benchmark harness (nccl-tests style): every `secpe bench <name>` writes one JSON object
// with the same frame: benchmark, command, machine, threads, ranks, figures, notes.
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace secpe {

struct DevicePhases;  // compute/cuda/cuda_backend.hpp

// CPU model, cores, memory, host name, and the BLAS-related environment (OPENBLAS_CORETYPE...).
nlohmann::ordered_json machine_info();
// How this binary was built (core/build_info.hpp): {"CUDA": "yes (...)", "NCCL": "no", ...}.
nlohmann::ordered_json build_options_json();
// Peak resident set size of this process, in MiB.
double peak_rss_mib();
// The frame; `command` is the argument vector joined by spaces.
nlohmann::ordered_json bench_frame(const std::string& benchmark, const std::vector<std::string>& command, int threads, int ranks);
// One metric's definition, for the report's "metrics" array: what a figure means, not free text.
nlohmann::ordered_json metric_definition(const std::string& name, const std::string& unit, const std::string& definition);

// Where a CUDA kernel's time went (DevicePhases, with CudaKernelOptions::time_phases), each figure
// times `scale` (1 / repetitions: per repetition): {"host": {phase: s}, "device": {phase: s},
// "host_seconds": sum, "device_seconds": sum}.
nlohmann::ordered_json device_phases_json(const DevicePhases& phases, double scale);

// Who may read a benchmark's report on a dataset. A benchmark that samples, sums, calibrates or
// votes with a dataset's private records (bench histogram, bench privacy --data) times private work
// and counts private records: on real data its report is as private as the data; on synthetic data
// (made by secpe synth-embeddings, or declared so with --synthetic-data: secpe corpus) it keeps
// every figure and may be published. {"file": name, "kind": ..., "publishable": bool}.
nlohmann::ordered_json bench_data_json(const std::filesystem::path& data, bool declared_synthetic);

// Writes the report atomically to `out` (when given) and prints it. A report whose
// data.publishable is false is written 0600 and, when written, not printed (a job's log is often
// shared): stderr says where it is.
void emit_bench_report(const nlohmann::ordered_json& report, const std::filesystem::path& out);

}  // namespace secpe
