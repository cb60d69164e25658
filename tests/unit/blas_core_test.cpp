// OpenBLAS core detection: a generic core on a newer CPU is reported with the fix; the self-test
// passes for the core loaded here.
#include <gtest/gtest.h>

#include "compute/cpu/blas_core.hpp"

namespace secpe {
namespace {

TEST(BlasCore, TiersOfKnownCores) {
  EXPECT_EQ(core_tier("Prescott"), IsaTier::kSse);
  EXPECT_EQ(core_tier("Sandybridge"), IsaTier::kAvx);
  EXPECT_EQ(core_tier("Haswell"), IsaTier::kAvx2);
  EXPECT_EQ(core_tier("Zen"), IsaTier::kAvx2);
  EXPECT_EQ(core_tier("SkylakeX"), IsaTier::kAvx512);
  EXPECT_EQ(core_tier("Cooperlake"), IsaTier::kAvx512Bf16);
  EXPECT_EQ(core_tier("ARMV8"), IsaTier::kUnknown);
}

// The machine: a Xeon with AVX512-BF16 on which OpenBLAS 0.3.21 runs Prescott.
TEST(BlasCore, GenericCoreOnANewerCpuIsReportedWithTheFix) {
  EXPECT_EQ(faster_cores(IsaTier::kAvx512Bf16, IsaTier::kSse),
            (std::vector<std::string>{"Cooperlake", "SkylakeX", "Haswell", "Sandybridge"}));
  const BlasCore slow{.name = "Prescott", .tier = IsaTier::kSse, .cpu_tier = IsaTier::kAvx512Bf16, .source = "test"};
  const auto warning = blas_core_warning(slow);
  ASSERT_TRUE(warning.has_value());
  EXPECT_NE(warning->find("Prescott"), std::string::npos);
  EXPECT_NE(warning->find("jobs/blas-core.sh"), std::string::npos);
  EXPECT_NE(warning->find("OPENBLAS_CORETYPE=Cooperlake"), std::string::npos);
  // A core set in the environment (which the script keeps) is named, with how to let the script choose.
  const auto set = blas_core_warning({.name = "Haswell", .tier = IsaTier::kAvx2, .cpu_tier = IsaTier::kAvx512Bf16,
                                      .source = kCoreFromEnvironment});
  ASSERT_TRUE(set.has_value());
  EXPECT_NE(set->find("OPENBLAS_CORETYPE=Haswell is set in this environment"), std::string::npos) << *set;
  EXPECT_NE(set->find("unset it"), std::string::npos) << *set;
  // Already the best core, an unknown core, or a CPU older than the core: nothing to say.
  EXPECT_FALSE(blas_core_warning({.name = "Cooperlake", .tier = IsaTier::kAvx512Bf16, .cpu_tier = IsaTier::kAvx512Bf16, .source = ""}));
  EXPECT_FALSE(blas_core_warning({.name = "ARMV8", .tier = IsaTier::kUnknown, .cpu_tier = IsaTier::kSse, .source = ""}));
  EXPECT_TRUE(faster_cores(IsaTier::kAvx2, IsaTier::kAvx2).empty());
  EXPECT_EQ(faster_cores(IsaTier::kAvx512, IsaTier::kAvx2), std::vector<std::string>{"SkylakeX"});
}

TEST(BlasCore, SelfTestPassesForTheLoadedCore) {
  std::string report;
  EXPECT_TRUE(blas_self_test(&report)) << report;
  EXPECT_FALSE(blas_core().name.empty());
}

}  // namespace
}  // namespace secpe
