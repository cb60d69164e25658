#include "evolve/checkpoint.hpp"

#include <fstream>
#include <iterator>

#include "core/atomic_file.hpp"
#include "core/secret_normal.hpp"
#include "core/digest.hpp"
#include "core/error.hpp"
#include "evolve/private_state.hpp"

namespace secpe {
namespace {

constexpr std::string_view kHead = R"({"format":"secpe-checkpoint","format_version":4,"checksum":"blake2b-256:)";
constexpr std::string_view kMac = R"(","mac":"blake2b-256-keyed:)";
constexpr std::string_view kContent = R"(","content":)";
constexpr std::size_t kHexDigits = 64;
constexpr std::size_t kFrame = kHead.size() + kHexDigits + kMac.size() + kHexDigits + kContent.size();

// The envelope's parts, after checking the layout and the checksum (the MAC needs the key: read_checked).
struct Envelope {
  std::string_view mac, content;
};

Envelope checked_envelope(std::string_view text, const std::string& file) {
  if (text.ends_with('\n')) text.remove_suffix(1);
  for (const char* old : {R"({"format":"secpe-checkpoint","format_version":1)", R"({"format":"secpe-checkpoint","format_version":2,)",
                          R"({"format":"secpe-checkpoint","format_version":3,)"}) {
    if (text.starts_with(old)) throw InputError(file + ": written by an older secpe; start afresh (run without resuming)");
  }
  if (!text.starts_with(kHead) || text.size() < kFrame + 1 || text.substr(kHead.size() + kHexDigits, kMac.size()) != kMac ||
      text.substr(kFrame - kContent.size(), kContent.size()) != kContent || !text.ends_with('}')) {
    throw InputError(file + ": not a secpe checkpoint (or damaged: it does not have the layout secpe writes)");
  }
  const Envelope e{text.substr(kHead.size() + kHexDigits + kMac.size(), kHexDigits), text.substr(kFrame, text.size() - kFrame - 1)};
  if (blake2b_256_hex(e.content) != text.substr(kHead.size(), kHexDigits)) {
    throw InputError(file + ": damaged or edited checkpoint: the checksum does not match");
  }
  return e;
}

// The MAC of a state file's content: keyed by the state folder's MAC key (a subkey of the noise
// key) and bound to the file's name, so that neither can be moved into the other.
std::string content_mac(const NoiseKey& key, const std::filesystem::path& path, std::string_view content) {
  return keyed_digest_hex(state_mac_key(key), "secpe state file " + path.filename().string(), content);
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

// The envelope, written atomically (fsync'd, then renamed) and private (0600 from the start).
void write_checked(const std::filesystem::path& path, const nlohmann::ordered_json& content, const NoiseKey& key) {
  const std::string text = content.dump();
  write_file_atomically(
      path, [&](std::ostream& o) { o << kHead << blake2b_256_hex(text) << kMac << content_mac(key, path, text) << kContent << text << "}\n"; },
      FileAccess::kPrivate);
}

// The checked content. With the noise key (every read but `secpe inspect`'s), the fingerprint's
// key check must be this key's and the MAC must match: a file edited outside secpe, its plain
// checksum recomputed or not, is refused.
nlohmann::ordered_json read_checked(const std::filesystem::path& path, const Fields& fields, const NoiseKey* key) {
  const std::string file = path.string();
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError("cannot read checkpoint " + file);
  const std::string text(std::istreambuf_iterator<char>(in), {});
  const Envelope envelope = checked_envelope(text, file);
  auto content = nlohmann::ordered_json::parse(envelope.content, nullptr, /*allow_exceptions=*/false);
  if (!content.is_object()) fields.fail("the content is not a JSON object");
  if (key) {
    const auto& fingerprint = fields.at(content, "fingerprint", "", Type::object);
    const auto check = fingerprint.find("noise_key_check");
    if (check == fingerprint.end() || !check->is_string() || check->get<std::string>() != noise_key_check(*key)) {
      throw InputError("resume: " + file + " was made with a different noise key; give the same noise key file "
                       "(or none, to use the key kept in the state folder)");
    }
    if (content_mac(*key, path, envelope.content) != envelope.mac) {
      throw InputError(file + ": edited outside secpe: its MAC (keyed by the noise key) does not match its content; refusing to "
                       "resume from it (start afresh without --resume, or restore the file secpe wrote)");
    }
  }
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

void save_checkpoint(const std::filesystem::path& path, const Checkpoint& checkpoint, const NoiseKey& key) {
  nlohmann::ordered_json content;
  content["fingerprint"] = checkpoint.fingerprint;
  content["labels"] = nlohmann::ordered_json::array();
  for (const auto& [label, outcome] : checkpoint.labels) content["labels"].push_back(outcome_json(label, outcome));
  write_checked(path, content, key);
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
                   const std::map<std::size_t, LabelProgress>& in_progress, const NoiseKey& key) {
  nlohmann::ordered_json labels = nlohmann::ordered_json::array();
  for (const auto& [label, progress] : in_progress) labels.push_back(progress_json(progress));
  write_checked(path, {{"fingerprint", fingerprint}, {"in_progress", labels}}, key);
}

std::map<std::size_t, LabelProgress> load_progress(const std::filesystem::path& path, std::size_t num_labels, int iterations,
                                                   const nlohmann::ordered_json& fingerprint, const NoiseKey& key) {
  const Fields fields(path.string());
  const auto content = read_checked(path, fields, &key);
  check_fingerprint(fields.at(content, "fingerprint", "", Type::object), fingerprint, path);
  std::map<std::size_t, LabelProgress> out;
  const auto& labels = fields.at(content, "in_progress", "", Type::array);
  for (std::size_t k = 0; k < labels.size(); ++k) {
    LabelProgress p = read_progress(labels[k], "in_progress[" + std::to_string(k) + "]", fields, num_labels, iterations - 1);
    if (out.count(p.label)) fields.fail("in_progress lists label " + std::to_string(p.label) + " twice");
    out[p.label] = std::move(p);
  }
  return out;
}

std::optional<SavedRunInputs> saved_run_inputs(const std::filesystem::path& state_dir) {
  for (const auto& path : {checkpoint_path(state_dir), progress_path(state_dir)}) {
    if (!std::filesystem::is_regular_file(path)) continue;
    const Fields fields(path.string());
    const auto content = read_checked(path, fields, nullptr);
    const auto& fingerprint = fields.at(content, "fingerprint", "", Type::object);
    const auto nonce = parse_noise_nonce(fields.at(fingerprint, "noise_nonce", "fingerprint.", Type::string).get<std::string>());
    if (!nonce) fields.fail("fingerprint.noise_nonce is not 32 hexadecimal digits");
    return SavedRunInputs{fields.at(fingerprint, "seed", "fingerprint.", Type::number_unsigned).get<std::uint64_t>(), *nonce};
  }
  return std::nullopt;
}

Checkpoint load_checkpoint(const std::filesystem::path& path, std::optional<std::size_t> num_labels, const NoiseKey* key) {
  const Fields fields(path.string());
  const auto content = read_checked(path, fields, key);
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
    if (key == "votes_per_centre" && saved.contains(key)) {
      msg += "; --votes-per-center " + saved[key].dump() + " resumes it (the default, auto, takes 4 with label-blind and "
             "HTTP generators since it was measured to select better there, 1 with per-label ones)";
    }
    throw InputError(msg + "; use a new output folder or the same options");
  }
}

}  // namespace secpe
