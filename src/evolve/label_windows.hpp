#pragma once
// Which labels evolve together. A generator behind a server keeps up to --concurrency requests
// in flight, but the requests of one label's iteration end in a tail where fewer and fewer are
// left, and a small label may not fill the server at all; between iterations (embedding, votes,
// selection) it idles. So consecutive labels form windows that evolve together, iteration by
// iteration (a round), every label's candidates of a round made in one call to the generator,
// until a window's round holds kRoundRequestsPerSlot requests per request in flight: a round's
// tail then costs at most about 1/kRoundRequestsPerSlot of it. The windows bound the labels set
// up at once (SecPE's clusters, Aug-PE's voters) to what the generator needs. A generator that
// makes its texts itself (one in flight) evolves each label alone, one after another, unless
// the ranks' labels are paced (paced_windows below).
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace secpe {

inline constexpr std::size_t kRoundRequestsPerSlot = 8;

// `labels` in order, cut into consecutive windows; `requests[i]`: label i's requests per round on
// this rank (public: its N_syn share x L). Every window holds at least one label.
std::vector<std::vector<std::size_t>> label_windows(std::span<const std::size_t> labels, std::span<const std::size_t> requests,
                                                    std::size_t in_flight);

// Windows for a generator that makes its texts itself, when each rank evolves its own labels
// (--shard-by label): the ranks meet after every round to exchange their labels' state, so at each
// meeting the faster waits for the slower. A label's first round holds its set-up (SecPE's k-means
// of its public records), which outweighs the rest, so windows of one label each, met in label
// order, paired a small label with a large one's set-up at every turn. Instead the ranks' windows
// keep pace: each rank takes its labels largest `cost` first, and at each turn every rank with
// labels left opens a window with its next label and adds more while its running cost stays
// within the largest that any rank reaches with its next label, and the window's own cost within
// the largest label's (no window holds more set up at once than the largest label alone).
// labels_of_rank[r]: rank r's labels; cost[label]: public, the same on every rank. Returns each
// rank's windows; every rank computes the same. Which labels share a window changes no output
// (candidates.hpp).
std::vector<std::vector<std::vector<std::size_t>>> paced_windows(const std::vector<std::vector<std::size_t>>& labels_of_rank,
                                                                 std::span<const std::int64_t> cost);

}  // namespace secpe
