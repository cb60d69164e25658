#include "evolve/run_resume.hpp"

#include <filesystem>

#include "core/log.hpp"
#include "evolve/private_state.hpp"
#include "evolve/release_keys.hpp"

namespace secpe {

nlohmann::ordered_json run_fingerprint(const RunOptions& c, const RunSecrets& secrets, const DatasetInfo& info) {
  const auto created = info.provenance.find("created_utc");
  // The dataset as a resolved path, so that ../big.h5 and /abs/big.h5 are the same file.
  nlohmann::ordered_json f = {{"data", std::filesystem::weakly_canonical(std::filesystem::absolute(c.data)).string()},
                              {"data_created_utc", created == info.provenance.end() ? "" : created->second},
                              {"records", info.num_records},
                              {"noise_key_check", noise_key_check(secrets.noise_key)},
                              {"noise_nonce", c.noise_nonce.hex()},
                              // Whether labels keep their selection history for --eval-real; the file itself is only an
                              // input of the evaluation (post-processing of the releases), so a corrected one may resume.
                              {"eval_history", !c.eval_real.empty()},
                              {"budgets_file", c.budgets_file.string()},
                              {"generator_corpus", c.generator_corpus.string()},
                              {"prompts", c.prompts.string()}};
  const nlohmann::ordered_json settings = release_settings(c);
  for (const auto& [key, value] : settings.items()) f[key] = value;
  // Last, so that a setting that differs is named first: everything that determines the releases
  // (the dataset's content included), checked with a keyed hash, never in clear.
  f["release_check"] = keyed_digest_hex(secrets.noise_key, "secpe release check", secrets.release_digest);
  return f;
}

std::map<std::size_t, LabelProgress> resume_checkpoint(const Communicator& comm, const RunOptions& options, const RunSecrets& secrets, std::size_t num_labels,
                                                       Checkpoint& checkpoint, PrivacyLedger& ledger) {
  if (!options.resume) return {};
  const auto path = checkpoint_path(options.state_dir), partial = progress_path(options.state_dir);
  std::string saved_labels, saved_progress;  // the files' checked bytes, or empty
  if (comm.is_root()) {
    if (std::filesystem::is_regular_file(path)) {
      const Checkpoint saved = load_checkpoint(path, num_labels, &secrets.noise_key);
      check_fingerprint(saved.fingerprint, checkpoint.fingerprint, path);
      saved_labels = path.string();
    }
    if (std::filesystem::is_regular_file(partial)) {
      load_progress(partial, num_labels, options.iterations, checkpoint.fingerprint, secrets.noise_key);  // checks it
      saved_progress = partial.string();
    }
  }
  comm.broadcast(saved_labels);
  comm.broadcast(saved_progress);
  if (saved_labels.empty() && saved_progress.empty()) {
    log_info("resume: no checkpoint in " + options.state_dir.string() + "; starting afresh");
    return {};
  }
  if (!saved_labels.empty()) {
    checkpoint.labels = load_checkpoint(path, num_labels, &secrets.noise_key).labels;
    for (const auto& [label, outcome] : checkpoint.labels) ledger.restore(label, outcome.releases);
  }
  std::map<std::size_t, LabelProgress> in_progress;
  if (!saved_progress.empty()) in_progress = load_progress(partial, num_labels, options.iterations, checkpoint.fingerprint, secrets.noise_key);
  // A label may be in both when the run stopped after finishing it, before rewriting the progress.
  std::erase_if(in_progress, [&](const auto& entry) { return checkpoint.labels.count(entry.first) > 0; });
  std::string continued;
  for (const auto& [label, p] : in_progress) {
    ledger.restore(label, p.outcome.releases);
    continued += ", label " + std::to_string(label) + " after " + std::to_string(p.iterations_done) + " of " +
                 std::to_string(options.iterations) + " iterations";
  }
  log_info("resuming: " + std::to_string(checkpoint.labels.size()) + " label(s) finished in " + path.string() + continued);
  return in_progress;
}

void check_completed_run(const RunOptions& options, const RunSecrets& secrets, const DatasetInfo& info, bool key_known) {
  const auto path = checkpoint_path(options.state_dir);
  if (!std::filesystem::is_regular_file(path)) return;  // state folder gone: nothing to compare
  nlohmann::ordered_json saved = load_checkpoint(path, std::nullopt, key_known ? &secrets.noise_key : nullptr).fingerprint,
                         current = run_fingerprint(options, secrets, info);
  saved.erase("eval_history");  // nothing is evaluated again
  current.erase("eval_history");
  if (!key_known) {  // an OS-drawn key is deleted when its run completes: nothing keyed can be compared
    for (const char* keyed : {"noise_key_check", "release_check"}) {
      saved.erase(keyed);
      current.erase(keyed);
    }
  }
  check_fingerprint(saved, current, path);
}

}  // namespace secpe
