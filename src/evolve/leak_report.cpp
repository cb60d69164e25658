#include "evolve/leak_report.hpp"

#include "core/atomic_file.hpp"
#include "core/log.hpp"
#include "text/leak_scan.hpp"

namespace secpe {
namespace {

std::vector<std::string> flatten(const std::vector<std::vector<std::string>>& per_label) {
  std::vector<std::string> out;
  for (const auto& texts : per_label) out.insert(out.end(), texts.begin(), texts.end());
  return out;
}

// Removes the texts flagged in `flagged` (indexed as flatten(per_label) is).
void drop_flagged(std::vector<std::vector<std::string>>& per_label, const std::vector<bool>& flagged) {
  std::size_t at = 0;
  for (auto& texts : per_label) {
    std::vector<std::string> kept;
    for (auto& text : texts)
      if (!flagged[at++]) kept.push_back(std::move(text));
    texts = std::move(kept);
  }
}

}  // namespace

std::filesystem::path leak_scan_path(const std::filesystem::path& state_dir) { return state_dir / "leak_scan.json"; }

nlohmann::ordered_json scan_released_texts(bool root, const LeakReportOptions& options,
                                           std::vector<std::vector<std::string>>& synthetic,
                                           std::vector<std::vector<std::string>>& initial) {
  const auto synthetic_texts = flatten(synthetic), initial_texts = flatten(initial);
  const LeakCounts synthetic_pii = scan_pii_leaks(synthetic_texts), initial_pii = scan_pii_leaks(initial_texts);

  if (root) {
    // The exact-secret scan needs the secrets themselves: private input, read here and never
    // passed on; its counts stay in the private state folder.
    const SecretSet secrets{.secrets = options.reader.secret_names(), .categories = options.reader.secret_categories(), .mode = ""};
    nlohmann::ordered_json report = {{"note", "PRIVATE (the counts depend on the secret list): never publish this file"}};
    if (secrets.secrets.empty()) {
      report["exact_secrets"] = "not scanned: the dataset holds no secret names";
    } else {
      report["synthetic"] = scan_secret_leaks(synthetic_texts, secrets).to_json();
      report["initial"] = scan_secret_leaks(initial_texts, secrets).to_json();
    }
    // The state folder exists (0700) by now: secpe run opens it before the run starts.
    write_file_atomically(leak_scan_path(options.state_dir), [&](std::ostream& o) { o << report.dump(2) << "\n"; }, FileAccess::kPrivate);
    log_info("leak scan: exact-secret counts (private) in " + leak_scan_path(options.state_dir).string());
  }

  nlohmann::ordered_json j;
  j["patterns"] = "PII patterns of every category (the scanners of secpe import --secrets pii), counted in the released texts; "
                  "a function of those texts alone, so public";
  j["synthetic"] = synthetic_pii.to_json();
  j["initial"] = initial_pii.to_json();
  j["drop_leaking"] = options.drop_leaking;
  if (options.drop_leaking) {
    drop_flagged(synthetic, synthetic_pii.flagged_text);
    drop_flagged(initial, initial_pii.flagged_text);
    j["dropped"] = {{"synthetic", synthetic_pii.flagged}, {"initial", initial_pii.flagged}};
  }
  j["exact_secrets"] = "the dataset's own secrets are scanned for too, but their counts depend on the private secret list, so they are "
                       "written to leak_scan.json in the private state folder, never here; texts holding one are not dropped, since "
                       "their absence would tell that they held a secret";
  return j;
}

}  // namespace secpe
