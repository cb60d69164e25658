#pragma once
// SECPE_HOST_DEVICE marks the functions that both the C++ compiler and nvcc compile (host and
// device code alike): the search bound, the exact scores' order, ChaCha20's block, the
// correctly rounded exp and log, the release of one centre. Plain C++17 in those headers.
#if defined(__CUDACC__)
#define SECPE_HOST_DEVICE __host__ __device__
#else
#define SECPE_HOST_DEVICE
#endif
