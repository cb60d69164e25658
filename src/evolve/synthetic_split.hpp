#pragma once
// How many synthetic samples each label gets.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace secpe {

// N_syn split over labels in proportion to their public record counts (public under secret
// protection, so a free and principled choice), by largest remainder; ties go to the lower label.
std::vector<std::size_t> split_synthetic(std::size_t total, const std::vector<std::int64_t>& public_counts);

}  // namespace secpe
