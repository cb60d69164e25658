#include "evolve/checkpoint.hpp"

#include <fstream>
#include <iterator>

#include "core/atomic_file.hpp"
#include "core/secret_normal.hpp"
#include "core/digest.hpp"
#include "core/error.hpp"

namespace secpe {
namespace {

constexpr std::string_view kHead = R"({"format":"secpe-checkpoint","format_version":3,"checksum":"blake2b-256:)";
constexpr std::string_view kContent = R"(","content":)";
constexpr std::size_t kHexDigits = 64;

// The content's bytes, after checking the layout and the checksum.
std::string_view checked_content(std::string_view text, const std::string& file) {
  if (text.ends_with('\n')) text.remove_suffix(1);
  for (const char* old : {R"({"format":"secpe-checkpoint","format_version":1)", R"({"format":"secpe-checkpoint","format_version":2,)"}) {
    if (text.starts_with(old)) throw InputError(file + ": written by an older secpe; start afresh (run without resuming)");
  }
  if (!text.starts_with(kHead) || text.size() < kHead.size() + kHexDigits + kContent.size() + 1 ||
      text.substr(kHead.size() + kHexDigits, kContent.size()) != kContent || !text.ends_with('}')) {
    throw InputError(file + ": not a secpe checkpoint (or damaged: it does not have the layout secpe writes)");
  }
  const auto digest = text.substr(kHead.size(), kHexDigits);
  const auto content = text.substr(kHead.size() + kHexDigits + kContent.size(),
                                   text.size() - kHead.size() - kHexDigits - kContent.size() - 1);
  if (blake2b_256_hex(content) != digest) throw InputError(file + ": damaged or edited checkpoint: the checksum does not match");
  return content;
}

// Field checks: each names the field, never its value (which may be synthetic text).
class Fields {
 public:
  explicit Fields(std::string file) : file_(std::move(file)) {}
  const nlohmann::ordered_json& at(const nlohmann::ordered_json& object, const std::string& key, const std::string& where,
                                   nlohmann::json::value_t type) const {
    const auto it = object.find(key);
    if (it == object.end()) fail(where + key + " is missing");
    const bool ok = it->type() == type || (type == nlohmann::json::value_t::number_integer && it->is_number_integer());
    if (!ok) fail(where + key + " is not " + std::string(nlohmann::ordered_json(type).type_name()));
    return *it;
  }
  [[noreturn]] void fail(const std::string& what) const { throw InputError(file_ + ": damaged checkpoint: " + what); }

 private:
  std::string file_;
};

using Type = nlohmann::json::value_t;

std::vector<std::string> read_texts(const nlohmann::ordered_json& texts, const std::string& where, const Fields& fields) {
  std::vector<std::string> out;
  for (const auto& text : texts) {
    if (!text.is_string()) fields.fail(where + " holds a value that is not a string");
    out.push_back(text.get<std::string>());
  }
  return out;
}

LabelOutcome read_outcome(const nlohmann::ordered_json& l, const std::string& where, const Fields& fields) {
  LabelOutcome o;
  o.synthetic = read_texts(fields.at(l, "synthetic", where, Type::array), where + "synthetic", fields);
  o.initial = read_texts(fields.at(l, "initial", where, Type::array), where + "initial", fields);
  for (const auto& population : fields.at(l, "history", where, Type::array)) {
    if (!population.is_array()) fields.fail(where + "history holds a value that is not an array");
    o.history.push_back(read_texts(population, where + "history", fields));
  }
  o.report = fields.at(l, "report", where, Type::object);
  if (o.report.contains("name") && !o.report["name"].is_string()) fields.fail(where + "report.name is not a string");
  o.releases = fields.at(l, "releases", where, Type::array);
  for (const auto& release : o.releases) {
    if (!release.is_object() || !release.contains("iteration") || !release["iteration"].is_number_integer() ||
        release["iteration"].get<std::int64_t>() < 0) {
      fields.fail(where + "releases holds an entry without a whole iteration number of 0 or more");
    }
  }
  for (const auto& m : fields.at(l, "metrics", where, Type::array)) {
    if (!m.is_object()) fields.fail(where + "metrics holds a value that is not an object");
    o.metrics.push_back(m);
  }
  return o;
}

}  // namespace

std::filesystem::path checkpoint_path(const std::filesystem::path& state_dir) { return state_dir / "checkpoint.json"; }

std::filesystem::path progress_path(const std::filesystem::path& state_dir) { return state_dir / "progress.json"; }

namespace {

nlohmann::ordered_json outcome_json(std::size_t label, const LabelOutcome& outcome) {
  return {{"label", label},
          {"synthetic", outcome.synthetic},
          {"initial", outcome.initial},
          {"history", outcome.history},
          {"report", outcome.report},
          {"releases", outcome.releases},
          {"metrics", outcome.metrics}};
}

// The envelope, written atomically (fsync'd, then renamed) and private (0600).
void write_checked(const std::filesystem::path& path, const nlohmann::ordered_json& content) {
  const std::string text = content.dump();
  write_file_atomically(path, [&](std::ostream& o) { o << kHead << blake2b_256_hex(text) << kContent << text << "}\n"; });
  std::filesystem::permissions(path, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
}

nlohmann::ordered_json read_checked(const std::filesystem::path& path, const Fields& fields) {
  const std::string file = path.string();
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError("cannot read checkpoint " + file);
  const std::string text(std::istreambuf_iterator<char>(in), {});
  auto content = nlohmann::ordered_json::parse(checked_content(text, file), nullptr, /*allow_exceptions=*/false);
  if (!content.is_object()) fields.fail("the content is not a JSON object");
  return content;
}

// A label id in range.
std::size_t label_of(const nlohmann::ordered_json& object, const std::string& where, const Fields& fields,
                     std::optional<std::size_t> num_labels) {
  const auto& id = fields.at(object, "label", where, Type::number_integer);
  if (id.get<std::int64_t>() < 0 || (num_labels && id.get<std::uint64_t>() >= *num_labels)) {
    fields.fail(where + "label is " + id.dump() + ", outside the dataset's " +
                (num_labels ? std::to_string(*num_labels) + " labels" : std::string("label ids")));
  }
  return id.get<std::size_t>();
}

}  // namespace

void save_checkpoint(const std::filesystem::path& path, const Checkpoint& checkpoint) {
  nlohmann::ordered_json content;
  content["fingerprint"] = checkpoint.fingerprint;
  content["labels"] = nlohmann::ordered_json::array();
  for (const auto& [label, outcome] : checkpoint.labels) content["labels"].push_back(outcome_json(label, outcome));
  write_checked(path, content);
}

nlohmann::ordered_json progress_json(const LabelProgress& progress) {
  return {{"iterations_done", progress.iterations_done}, {"outcome", outcome_json(progress.label, progress.outcome)}};
}

namespace {

LabelProgress read_progress(const nlohmann::ordered_json& entry, const std::string& where, const Fields& fields, std::size_t num_labels,
                            int last) {
  if (!entry.is_object()) fields.fail(where + " is not an object");
  LabelProgress p;
  const auto& done = fields.at(entry, "iterations_done", where + ".", Type::number_integer);
  if (done.get<std::int64_t>() < 1 || done.get<std::int64_t>() > last) {
    fields.fail(where + ".iterations_done is " + done.dump() + ", not in [1, " + std::to_string(last) + "]");
  }
  p.iterations_done = done.get<int>();
  const auto& outcome = fields.at(entry, "outcome", where + ".", Type::object);
  p.label = label_of(outcome, where + ".outcome.", fields, num_labels);
  p.outcome = read_outcome(outcome, where + ".outcome.", fields);
  if (p.outcome.synthetic.empty()) fields.fail(where + ".outcome.synthetic holds no population to continue from");
  return p;
}

}  // namespace

LabelProgress progress_from_json(const nlohmann::ordered_json& json, const std::string& source, std::size_t num_labels, int iterations) {
  return read_progress(json, "progress", Fields(source), num_labels, iterations);
}

void save_progress(const std::filesystem::path& path, const nlohmann::ordered_json& fingerprint,
                   const std::map<std::size_t, LabelProgress>& in_progress) {
  nlohmann::ordered_json labels = nlohmann::ordered_json::array();
  for (const auto& [label, progress] : in_progress) labels.push_back(progress_json(progress));
  write_checked(path, {{"fingerprint", fingerprint}, {"in_progress", labels}});
}

std::map<std::size_t, LabelProgress> load_progress(const std::filesystem::path& path, std::size_t num_labels, int iterations,
                                                   const nlohmann::ordered_json& fingerprint) {
  const Fields fields(path.string());
  const auto content = read_checked(path, fields);
  check_fingerprint(fields.at(content, "fingerprint", "", Type::object), fingerprint, path);
  std::map<std::size_t, LabelProgress> out;
  if (!content.contains("in_progress")) {  // an older run's one label
    const LabelProgress p = read_progress(content, "progress", fields, num_labels, iterations - 1);
    out[p.label] = p;
    return out;
  }
  const auto& labels = fields.at(content, "in_progress", "", Type::array);
  for (std::size_t k = 0; k < labels.size(); ++k) {
    LabelProgress p = read_progress(labels[k], "in_progress[" + std::to_string(k) + "]", fields, num_labels, iterations - 1);
    if (out.count(p.label)) fields.fail("in_progress lists label " + std::to_string(p.label) + " twice");
    out[p.label] = std::move(p);
  }
  return out;
}

std::optional<std::uint64_t> saved_seed(const std::filesystem::path& state_dir) {
  for (const auto& path : {checkpoint_path(state_dir), progress_path(state_dir)}) {
    if (!std::filesystem::is_regular_file(path)) continue;
    const Fields fields(path.string());
    const auto content = read_checked(path, fields);
    const auto& fingerprint = fields.at(content, "fingerprint", "", Type::object);
    return fields.at(fingerprint, "seed", "fingerprint.", Type::number_unsigned).get<std::uint64_t>();
  }
  return std::nullopt;
}

Checkpoint load_checkpoint(const std::filesystem::path& path, std::optional<std::size_t> num_labels) {
  const Fields fields(path.string());
  const auto content = read_checked(path, fields);
  Checkpoint c;
  c.fingerprint = fields.at(content, "fingerprint", "", Type::object);
  const auto& labels = fields.at(content, "labels", "", Type::array);
  for (std::size_t k = 0; k < labels.size(); ++k) {
    const std::string where = "labels[" + std::to_string(k) + "].";
    if (!labels[k].is_object()) fields.fail("labels[" + std::to_string(k) + "] is not an object");
    const auto label = label_of(labels[k], where, fields, num_labels);
    if (c.labels.count(label)) fields.fail(where + "label " + std::to_string(label) + " is listed twice");
    c.labels[label] = read_outcome(labels[k], where, fields);
  }
  return c;
}

void check_fingerprint(const nlohmann::ordered_json& saved, const nlohmann::ordered_json& current,
                       const std::filesystem::path& path) {
  for (const auto& [key, value] : current.items()) {
    if (saved.contains(key) && saved[key] == value) continue;
    if (key == "noise_key_check") {  // derived from the secret key: never printed
      throw InputError("resume: " + path.string() + " was made with a different noise key; give the same noise key file "
                       "(or none, to use the key kept in the state folder)");
    }
    std::string msg = "resume: " + path.string() + " was made with a different '" + key + "' (" +
                      (saved.contains(key) ? saved[key].dump() : "unset") + ", now " + value.dump() + ")";
    if (key == "noise_version") {
      msg += "; it was made by an older secpe, whose secret noise draws differ (version " + std::to_string(kSecretNoiseVersion) +
             " takes exp and log correctly rounded, the same on CPUs and GPUs)";
    }
    if (key == "iterations") {
      msg += "; the finished labels were calibrated and released for the old number of iterations, so adding "
             "iterations would release more than their budget allows";
    }
    throw InputError(msg + "; use a new output folder or the same options");
  }
}

}  // namespace secpe
