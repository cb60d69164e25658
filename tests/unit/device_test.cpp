// --device: parsing, and what auto and cuda do here. On a machine without a GPU (or a build
// without CUDA) auto falls back to the CPU with a note and cuda is a clear error; with a GPU both
// give the CUDA kernel.
#include <gtest/gtest.h>

#include "compute/cuda/cuda_backend.hpp"
#include "compute/nearest.hpp"
#include "core/error.hpp"

namespace secpe {
namespace {

TEST(Device, ParsesItsThreeNames) {
  for (const Device d : {Device::kCpu, Device::kCuda, Device::kAuto}) EXPECT_EQ(parse_device(device_name(d)), d);
  EXPECT_THROW(parse_device("gpu"), InputError);
}

TEST(Device, CpuIsAlwaysTheCpu) {
  EXPECT_EQ(resolve_device(Device::kCpu), Device::kCpu);
  EXPECT_EQ(make_kernel("blas", 1, Device::kCpu)->name(), "blas");
  EXPECT_THROW(make_kernel("magic", 1, Device::kCuda), InputError);  // the name is checked first, on every device
}

TEST(Device, AutoAndCudaFollowTheGpus) {
  std::string note;
  if (cuda_device_count() == 0) {
    EXPECT_EQ(resolve_device(Device::kAuto, &note), Device::kCpu);
    EXPECT_NE(note.find("the CPU kernels run instead"), std::string::npos) << note;
    EXPECT_THROW(resolve_device(Device::kCuda), InputError);
    EXPECT_EQ(make_kernel("blas", 1, Device::kAuto)->name(), "blas");
    EXPECT_THROW(make_kernel("blas", 1, Device::kCuda), InputError);
    EXPECT_THROW(make_cuda_kernel({}), InputError);
  } else {
    EXPECT_EQ(resolve_device(Device::kAuto, &note), Device::kCuda);
    EXPECT_TRUE(note.empty());
    EXPECT_EQ(make_kernel("reference", 1, Device::kCuda)->name(), "cuda");
  }
}

}  // namespace
}  // namespace secpe
