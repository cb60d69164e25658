// text/flat_map.hpp, the n-gram models' tables, against std::map: the same counts and lookups
// through many growths, keys that collide in the low bits included.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <random>

#include "text/flat_map.hpp"

namespace secpe {
namespace {

struct LowBitsHash {  // many keys share a slot: probing must still find each
  std::size_t operator()(std::uint64_t k) const { return static_cast<std::size_t>(k & 0xff); }
};

template <typename Hash>
void expect_same_counts(std::uint64_t seed) {
  FlatMap<std::uint64_t, std::uint64_t, Hash> flat;
  std::map<std::uint64_t, std::uint64_t> reference;
  std::mt19937_64 rng(seed);
  for (int i = 0; i < 20000; ++i) {
    const std::uint64_t key = rng() % 3000 * 0x100;  // multiples of 256: one slot under LowBitsHash's low bits
    ++flat[key];
    ++reference[key];
  }
  EXPECT_EQ(flat.size(), reference.size());
  std::map<std::uint64_t, std::uint64_t> read;
  flat.for_each([&](std::uint64_t k, std::uint64_t n) { EXPECT_TRUE(read.emplace(k, n).second) << k; });
  EXPECT_EQ(read, reference);
  for (const auto& [k, n] : reference) {
    const std::uint64_t* found = flat.find(k);
    ASSERT_NE(found, nullptr) << k;
    EXPECT_EQ(*found, n);
  }
  EXPECT_EQ(flat.find(1), nullptr);
}

struct Mix {
  std::size_t operator()(std::uint64_t k) const { return static_cast<std::size_t>(k * 0x9e3779b97f4a7c15ull >> 7); }
};

TEST(FlatMap, CountsAndFindsAsStdMapDoes) { expect_same_counts<Mix>(1); }
TEST(FlatMap, KeysInOneSlotAreAllFound) { expect_same_counts<LowBitsHash>(2); }
TEST(FlatMap, AnEmptyTableFindsNothing) {
  const FlatMap<std::uint64_t, std::uint32_t, Mix> empty;
  EXPECT_EQ(empty.find(0), nullptr);
  EXPECT_EQ(empty.size(), 0u);
}

}  // namespace
}  // namespace secpe
