#pragma once
// SecPE's release of one centre on the host, from normals drawn beforehand (SecretRng::normals):
// release_centre (privacy/centre_release.hpp) with its coordinates eight at a time on AVX-512 (DQ),
// the same operations in the same order, so the same bits; elsewhere, and where a centre has no
// noise or a subnormal grid, release_centre itself. The tests compare the two.
#include <cstdint>

namespace secpe {

// normals[0]: the size's, normals[1 + j]: coordinate j's. The rest as release_centre.
double release_centre_drawn(const double* normals, const std::int64_t* sum, const float* public_row, long long d, double n_pub,
                            double m_pri, double sigma, double clip_radius, float* out);

// The same through release_centre alone (the reference the tests compare with).
double release_centre_drawn_reference(const double* normals, const std::int64_t* sum, const float* public_row, long long d,
                                      double n_pub, double m_pri, double sigma, double clip_radius, float* out);

}  // namespace secpe
