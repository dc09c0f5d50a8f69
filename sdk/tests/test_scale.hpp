// How much data the long tests use. A build under AddressSanitizer and
// UndefinedBehaviorSanitizer (CMake option L3_SANITIZE, which defines
// L3_TESTS_UNDER_SANITIZERS for l3_tests) runs the few bulk and
// randomized tests that dominate its run time on less data: there they look
// for memory errors and undefined behaviour along the same code paths, and
// the normal build runs every test at full size.
#pragma once

#include <cstdint>

namespace l3::testing {

#if defined(L3_TESTS_UNDER_SANITIZERS)
inline constexpr bool kUnderSanitizers = true;
#else
inline constexpr bool kUnderSanitizers = false;
#endif

/// `full` in the normal build, `reduced` under the sanitizers.
constexpr uint64_t SanitizerScaled(uint64_t full, uint64_t reduced) {
  return kUnderSanitizers ? reduced : full;
}

}  // namespace l3::testing
