#pragma once
// Which labels evolve together. A generator behind a server keeps up to --concurrency requests
// in flight, but the requests of one label's iteration end in a tail where fewer and fewer are
// left, and a small label may not fill the server at all; between iterations (embedding, votes,
// selection) it idles. So consecutive labels form windows that evolve together, iteration by
// iteration (a round), every label's candidates of a round made in one call to the generator,
// until a window's round holds kRoundRequestsPerSlot requests per request in flight: a round's
// tail then costs at most about 1/kRoundRequestsPerSlot of it. The windows bound the labels set
// up at once (SecPE's clusters, Aug-PE's voters) to what the generator needs. A generator that
// makes its texts itself (one in flight) evolves each label alone, one after another.
#include <cstddef>
#include <span>
#include <vector>

namespace secpe {

inline constexpr std::size_t kRoundRequestsPerSlot = 8;

// `labels` in order, cut into consecutive windows; `requests[i]`: label i's requests per round on
// this rank (public: its N_syn share x L). Every window holds at least one label.
std::vector<std::vector<std::size_t>> label_windows(std::span<const std::size_t> labels, std::span<const std::size_t> requests,
                                                    std::size_t in_flight);

}  // namespace secpe
