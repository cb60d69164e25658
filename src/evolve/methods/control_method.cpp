// The no-private-data control (--method random): the same generator, loop and sizes with
// uniformly random selection. No private record is read and nothing about them is released, so
// it has no calibration, no ledger entry and no release.
#include "evolve/methods/method.hpp"

#include "core/timer.hpp"

namespace secpe {
namespace {

class ControlVoting : public LabelVoting {
 public:
  ControlVoting(std::uint64_t seed, std::size_t label) : seed_(seed), label_(label) {}

  VoteRound vote(const CandidatePool& pool, int iteration) override {
    const Timer timer;
    VoteRound round;
    round.votes = random_votes(pool.texts.size(), seed_, label_, iteration);
    round.vote_seconds = timer.seconds();
    return round;
  }

 private:
  std::uint64_t seed_;  // public
  std::size_t label_;
};

class ControlMethod : public Method {
 public:
  std::string name() const override { return "random"; }
  // Nothing is calibrated: --calibration is not read.
  void settle_calibration(const std::optional<std::string>&, RunOptions&) const override {}

  std::unique_ptr<LabelVoting> set_up_label(const LabelSetup& s, nlohmann::ordered_json& report) const override {
    report["selection"] = "uniformly random (no private record used)";
    return std::make_unique<ControlVoting>(s.options.seed, s.label);
  }
};

}  // namespace

std::unique_ptr<Method> make_control_method() { return std::make_unique<ControlMethod>(); }

}  // namespace secpe
