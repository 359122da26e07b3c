// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_SUPPORT_STATUS_MACROS_H_
#define HOPT_SUPPORT_STATUS_MACROS_H_

// Early returns for absl::Status / absl::StatusOr, in the spirit of XLA's
// TF_RETURN_IF_ERROR and TF_ASSIGN_OR_RETURN (this Abseil has no such
// macros of its own).

#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define HOPT_RETURN_IF_ERROR(expr)               \
  do {                                           \
    absl::Status hopt_status_ = (expr);          \
    if (!hopt_status_.ok()) return hopt_status_; \
  } while (false)

#define HOPT_STATUS_CONCAT_INNER(a, b) a##b
#define HOPT_STATUS_CONCAT(a, b) HOPT_STATUS_CONCAT_INNER(a, b)
#define HOPT_ASSIGN_OR_RETURN_IMPL(statusor, lhs, expr) \
  auto statusor = (expr);                               \
  if (!statusor.ok()) return statusor.status();         \
  lhs = *std::move(statusor)

// `lhs` may declare a variable: HOPT_ASSIGN_OR_RETURN(Shape s, ParseShape(t));
#define HOPT_ASSIGN_OR_RETURN(lhs, expr) \
  HOPT_ASSIGN_OR_RETURN_IMPL(HOPT_STATUS_CONCAT(hopt_statusor_, __LINE__), lhs, expr)

#endif  // HOPT_SUPPORT_STATUS_MACROS_H_
