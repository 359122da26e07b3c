#include "core/eval/ops.h"

namespace hopt {
namespace eval {

int64_t LinearIndex(const Shape& shape, absl::Span<const int64_t> index) {
  int64_t linear = 0;
  for (int64_t d = 0; d < shape.rank(); ++d) linear = linear * shape.dimensions(d) + index[d];
  return linear;
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
