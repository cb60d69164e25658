#pragma once
// The ChaCha20 block function, sixteen blocks at a time: Bernstein's original ChaCha20 (a 64-bit
// block counter and a 64-bit nonce), exactly as libsodium's crypto_stream_chacha20. Each of the
// sixteen state words of sixteen independent blocks fills one 512-bit register (two 256-bit ones
// with AVX2), so a batch costs little more than one block does one at a time: the secret streams
// (core/secret_rng.hpp) draw their keystream and one word per private record through it. Only
// additions, xors and rotations: constant time. Checked against libsodium bit for bit at first
// use (check_against_libsodium) and in the tests.
#include <array>
#include <cstddef>
#include <cstdint>

namespace secpe::chacha20 {

inline constexpr std::size_t kLanes = 16;

// Block counter[q] of the stream with nonce nonce[q] under `key`, for q < 16: its word w (of 16,
// little-endian as in the keystream's bytes) in out[q * 16 + w], so that on a little-endian host
// out + 16 q holds the block's 64 keystream bytes in order.
void blocks(const std::array<unsigned char, 32>& key, const std::uint64_t nonce[kLanes], const std::uint64_t counter[kLanes],
            std::uint32_t out[kLanes * 16]);

// Compares blocks() with libsodium's keystream on a few blocks, once per process; throws
// std::runtime_error if they differ (a miscompiled build must not draw noise).
void check_against_libsodium();

}  // namespace secpe::chacha20
