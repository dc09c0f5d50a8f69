// Internal helpers for propagating l3::Status and l3::Result<T>.
#pragma once

#include <string>
#include <utility>

#include "l3/status.hpp"

#define L3_CONCAT_INNER(a, b) a##b
#define L3_CONCAT(a, b) L3_CONCAT_INNER(a, b)

/// Returns the Status of `expr` from the enclosing function if it is not OK.
#define L3_RETURN_NOT_OK(expr)                 \
  do {                                         \
    ::l3::Status l3_status_ = (expr);          \
    if (!l3_status_.ok()) return l3_status_;   \
  } while (false)

#define L3_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                             \
  if (!tmp.ok()) return tmp.status();            \
  lhs = std::move(tmp).value()

/// `L3_ASSIGN_OR_RETURN(auto x, MakeX());` unwraps a Result or returns its error.
#define L3_ASSIGN_OR_RETURN(lhs, expr) \
  L3_ASSIGN_OR_RETURN_IMPL(L3_CONCAT(l3_result_, __LINE__), lhs, expr)

namespace l3::internal {

/// Shorthand for a failed Status.
inline Status Fail(StatusCode code, std::string message) {
  return Status(code, std::move(message));
}

}  // namespace l3::internal
