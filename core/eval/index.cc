// SPDX-License-Identifier: Apache-2.0

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/eval/ops.h"

namespace hopt {
namespace eval {

absl::Status OperationError(absl::string_view op, absl::string_view message) {
  return absl::InvalidArgumentError(absl::StrCat(op, ": ", message));
}

int64_t LinearIndex(const Shape& shape, absl::Span<const int64_t> index) {
  int64_t linear = 0;
  for (int64_t d = 0; d < shape.rank(); ++d) linear = linear * shape.dimensions(d) + index[d];
  return linear;
}

std::string DimsText(absl::Span<const int64_t> dims) {
  return absl::StrCat("{", absl::StrJoin(dims, ","), "}");
}

bool IsSynchronousCollective(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllGather:
    case HloOpcode::kReduceScatter:
    case HloOpcode::kAllToAll:
    case HloOpcode::kRaggedAllToAll:
    case HloOpcode::kCollectivePermute:
    case HloOpcode::kCollectiveBroadcast: return true;
    default: return false;
  }
}

std::vector<HloComputation*> ConditionalBranches(const HloInstruction& conditional) {
  if (const HloAttribute* list = conditional.FindAttribute("branch_computations"))
    return list->computations;
  const HloAttribute* t = conditional.FindAttribute("true_computation");
  const HloAttribute* f = conditional.FindAttribute("false_computation");
  if (t == nullptr || f == nullptr || t->computations.empty() || f->computations.empty()) return {};
  return {t->computations[0], f->computations[0]};
}

bool ContainsValue(absl::Span<const int64_t> list, int64_t value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

int64_t PositionOf(absl::Span<const int64_t> list, int64_t value) {
  return std::find(list.begin(), list.end(), value) - list.begin();
}

int64_t ProductOf(absl::Span<const int64_t> dims, size_t from, size_t to) {
  int64_t product = 1;
  for (size_t k = from; k < to; ++k) product *= dims[k];
  return product;
}

absl::Status InOperation(absl::string_view op, const absl::Status& status) {
  if (status.ok()) return status;
  return absl::Status(status.code(), absl::StrCat(op, ": ", status.message()));
}

std::vector<int64_t> RowMajorStrides(const Shape& shape) {
  std::vector<int64_t> strides(shape.rank(), 1);
  for (int64_t d = shape.rank() - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape.dimensions(d + 1);
  return strides;
}

bool NextIndex(std::vector<int64_t>& index, absl::Span<const int64_t> dims) {
  for (int64_t d = static_cast<int64_t>(index.size()) - 1; d >= 0; --d) {
    if (++index[d] < dims[d]) return true;
    index[d] = 0;
  }
  return false;
}

void MultiIndex(const Shape& shape, int64_t linear, std::vector<int64_t>* index) {
  index->assign(shape.rank(), 0);
  for (int64_t d = shape.rank() - 1; d >= 0; --d) {
    int64_t size = shape.dimensions(d);
    (*index)[d] = size == 0 ? 0 : linear % size;
    linear = size == 0 ? 0 : linear / size;
  }
}

Literal ElementAt(const Literal& literal, int64_t linear) {
  Literal scalar(Shape(literal.shape().element_type(), {}));
  scalar.CopyElementFrom(literal, linear, 0);
  return scalar;
}

void CopyElement(const Literal& source, int64_t from, Literal* target, int64_t to) {
  target->CopyElementFrom(source, from, to);
}

}  // namespace eval
}  // namespace hopt
