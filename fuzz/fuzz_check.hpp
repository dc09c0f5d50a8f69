// fuzz_check.hpp: the property checks of the fuzz targets.
//
// A target returns normally for every input the SDK rejects with a Status;
// it aborts (a crash to libFuzzer and to the replay driver) only when a
// property that must hold for every input is violated: a Status code the
// call may not return, two reads of the same rows that disagree, a lookup
// that contradicts the decoded values.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>

#include "l3/status.hpp"

#define L3_FUZZ_CHECK(cond, what)                                                      \
  do {                                                                                 \
    if (!(cond)) {                                                                     \
      std::fprintf(stderr, "%s:%d: fuzz property violated: %s (%s)\n", __FILE__,       \
                   __LINE__, #cond, std::string(what).c_str());                        \
      std::abort();                                                                    \
    }                                                                                  \
  } while (0)

namespace l3::fuzz {

/// Whether `code` is one of the spec's error classes (spec §10.1), the only
/// codes a hostile file may produce.
inline bool IsSpecClass(StatusCode code) {
  return code >= StatusCode::kIoError && code <= StatusCode::kResourceLimit;
}

}  // namespace l3::fuzz
