// SPDX-License-Identifier: Apache-2.0

#include "core/eval/gather_scatter.h"

#include <algorithm>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "core/eval/device_evaluator.h"
#include "core/eval/ops.h"
#include "hopt/ir/attributes.h"
#include "hopt/support/status_macros.h"

// The interpreter's gather and scatter (docs/interpreter-semantics.md, "Gather and
// scatter").

namespace hopt {
namespace eval {
namespace {

template <typename... Args>
absl::Status InvalidIndexing(const Args&... args) {
  return absl::InvalidArgumentError(absl::StrCat(args...));
}

// Each entry in [0, bound), none twice, and ascending when `sorted`.
absl::Status CheckDimList(absl::string_view op, absl::string_view name,
                          absl::Span<const int64_t> list, int64_t bound, bool sorted) {
  for (size_t k = 0; k < list.size(); ++k) {
    if (list[k] < 0 || list[k] >= bound)
      return InvalidIndexing(op, ": ", name, "=", DimsText(list), " has ", list[k], ", out of [0, ",
                             bound, ")");
    if (ContainsValue(list.subspan(0, k), list[k]))
      return InvalidIndexing(op, ": ", name, "=", DimsText(list), " repeats ", list[k]);
    if (sorted && k > 0 && list[k] < list[k - 1])
      return InvalidIndexing(op, ": ", name, "=", DimsText(list), " must be ascending");
  }
  return absl::OkStatus();
}

absl::Status CheckDisjoint(absl::string_view op, absl::string_view name_a,
                           absl::Span<const int64_t> a, absl::string_view name_b,
                           absl::Span<const int64_t> b) {
  for (int64_t d : a)
    if (ContainsValue(b, d))
      return InvalidIndexing(op, ": dimension ", d, " is in both ", name_a, " and ", name_b);
  return absl::OkStatus();
}

// What gather and scatter share about their indices: the index vector
// along `index_vector_dim` (an implicit trailing dimension of size 1 when it
// equals the rank) and the other dimensions, the batch (gather) or scatter
// dimensions, in order.
struct IndexLayout {
  int64_t vector_size = 1;
  int64_t vector_stride = 0;
  std::vector<int64_t> batch_dims;  // dimensions of the indices, index vector's excluded

  static absl::StatusOr<IndexLayout> Make(absl::string_view op, const Shape& indices,
                                          int64_t index_vector_dim) {
    if (!indices.IsArray() || !IsIntegralType(indices.element_type()))
      return InvalidIndexing(op, ": the indices must be an integer array, got ",
                             indices.ToString(false));
    if (index_vector_dim < 0 || index_vector_dim > indices.rank())
      return InvalidIndexing(op, ": index_vector_dim=", index_vector_dim, " is out of [0, ",
                             indices.rank(), "] for indices ", indices.ToString(false));
    IndexLayout layout;
    int64_t stride = 1;
    for (int64_t d = indices.rank() - 1; d >= 0; --d) {
      if (d == index_vector_dim) {
        layout.vector_size = indices.dimensions(d);
        layout.vector_stride = stride;
      }
      stride *= indices.dimensions(d);
    }
    for (int64_t d = 0; d < indices.rank(); ++d)
      if (d != index_vector_dim) layout.batch_dims.push_back(d);
    return layout;
  }

  // The position among batch_dims of dimension `d` of the indices.
  int64_t BatchPosition(int64_t d) const { return PositionOf(batch_dims, d); }
};

// Checks the batching dimension pairs and the map from index vector
// entries to operand dimensions, which gather and scatter spell
// differently but check alike.
struct BatchingAndMapNames {
  absl::string_view op, operand_batching, indices_batching, index_map;
};

absl::Status CheckBatchingAndMap(const BatchingAndMapNames& names, const Shape& operand,
                                 const Shape& indices, int64_t index_vector_dim,
                                 const IndexLayout& layout,
                                 absl::Span<const int64_t> operand_batching,
                                 absl::Span<const int64_t> indices_batching,
                                 absl::Span<const int64_t> index_map) {
  HOPT_RETURN_IF_ERROR(CheckDimList(names.op, names.indices_batching, indices_batching,
                                    indices.rank(), /*sorted=*/false));
  if (ContainsValue(indices_batching, index_vector_dim))
    return InvalidIndexing(names.op, ": ", names.indices_batching, "=", DimsText(indices_batching),
                           " has the index_vector_dim ", index_vector_dim);
  if (indices_batching.size() != operand_batching.size())
    return InvalidIndexing(names.op, ": ", names.operand_batching, "=", DimsText(operand_batching),
                           " and ", names.indices_batching, "=", DimsText(indices_batching),
                           " differ in length");
  for (size_t k = 0; k < operand_batching.size(); ++k)
    if (operand.dimensions(operand_batching[k]) != indices.dimensions(indices_batching[k]))
      return InvalidIndexing(names.op, ": batching dimension ", operand_batching[k],
                             " of the operand (", operand.dimensions(operand_batching[k]), ") and ",
                             indices_batching[k], " of the indices (",
                             indices.dimensions(indices_batching[k]), ") differ in size");
  if (static_cast<int64_t>(index_map.size()) != layout.vector_size)
    return InvalidIndexing(names.op, ": ", names.index_map, "=", DimsText(index_map), " has ",
                           index_map.size(), " entries for an index vector of ",
                           layout.vector_size);
  HOPT_RETURN_IF_ERROR(
      CheckDimList(names.op, names.index_map, index_map, operand.rank(), /*sorted=*/false));
  return CheckDisjoint(names.op, names.index_map, index_map, names.operand_batching,
                       operand_batching);
}

// A row-major walk over the positions of `sizes`, carrying linear offsets
// into two arrays that move by their own stride per dimension (the two
// arrays gather or scatter copy between).
class Walk {
 public:
  void AddDimension(int64_t size, int64_t stride_a, int64_t stride_b) {
    sizes_.push_back(size);
    stride_a_.push_back(stride_a);
    stride_b_.push_back(stride_b);
    position_.push_back(0);
  }
  bool empty() const { return std::find(sizes_.begin(), sizes_.end(), 0) != sizes_.end(); }
  void Reset() {
    std::fill(position_.begin(), position_.end(), 0);
    a_ = b_ = 0;
  }
  // Moves to the next position; false (and back at the first) after the last.
  bool Next() {
    for (int64_t d = static_cast<int64_t>(sizes_.size()) - 1; d >= 0; --d) {
      if (++position_[d] < sizes_[d]) {
        a_ += stride_a_[d];
        b_ += stride_b_[d];
        return true;
      }
      position_[d] = 0;
      a_ -= stride_a_[d] * (sizes_[d] - 1);
      b_ -= stride_b_[d] * (sizes_[d] - 1);
    }
    return false;
  }
  int64_t a() const { return a_; }
  int64_t b() const { return b_; }
  const std::vector<int64_t>& position() const { return position_; }

 private:
  std::vector<int64_t> sizes_, stride_a_, stride_b_, position_;
  int64_t a_ = 0, b_ = 0;
};

// The operand-space start of the slice or window at the current position of
// `batch` (whose b() is the linear offset into the indices): the index
// vector's entries where `index_map` sends them, the batch coordinate on
// each operand batching dimension, 0 elsewhere.
void StartAt(const Literal& indices, const IndexLayout& layout, const Walk& batch,
             absl::Span<const int64_t> index_map, absl::Span<const int64_t> operand_batching,
             absl::Span<const int64_t> batching_positions, std::vector<int64_t>* start) {
  std::fill(start->begin(), start->end(), 0);
  for (size_t k = 0; k < index_map.size(); ++k)
    (*start)[index_map[k]] =
        indices.GetAsInt64(batch.b() + static_cast<int64_t>(k) * layout.vector_stride);
  for (size_t k = 0; k < operand_batching.size(); ++k)
    (*start)[operand_batching[k]] = batch.position()[batching_positions[k]];
}

// The walks a gather or scatter makes. `big` is the array indexed by both
// the batch and the window positions (gather's result, scatter's updates),
// `window_dims` its window dimensions (offset_dims, update_window_dims),
// which pair in order with the operand dimensions that are neither in
// `squeezed` (collapsed or inserted) nor batching.
struct SliceWalks {
  Walk batch;                   // a: offset into `big`; b: offset into the indices
  Walk window;                  // a: offset into `big`; b: offset into the operand
  std::vector<int64_t> extent;  // per operand dimension: the window's size, 1 if squeezed
  std::vector<int64_t> batching_positions;  // of the indices' batching dims in `batch`
};

SliceWalks MakeSliceWalks(const Shape& operand, const Shape& indices, const Shape& big,
                          const IndexLayout& layout, absl::Span<const int64_t> window_dims,
                          absl::Span<const int64_t> squeezed,
                          absl::Span<const int64_t> operand_batching,
                          absl::Span<const int64_t> indices_batching) {
  const std::vector<int64_t> big_strides = RowMajorStrides(big);
  const std::vector<int64_t> operand_strides = RowMajorStrides(operand);
  const std::vector<int64_t> indices_strides = RowMajorStrides(indices);
  SliceWalks walks;
  walks.extent.assign(operand.rank(), 1);
  size_t next_window = 0, next_batch = 0;
  for (int64_t d = 0; d < operand.rank(); ++d) {
    if (ContainsValue(squeezed, d) || ContainsValue(operand_batching, d)) continue;
    const int64_t w = window_dims[next_window++];
    walks.extent[d] = big.dimensions(w);
    walks.window.AddDimension(big.dimensions(w), big_strides[w], operand_strides[d]);
  }
  for (int64_t b = 0; b < big.rank(); ++b)
    if (!ContainsValue(window_dims, b))
      walks.batch.AddDimension(big.dimensions(b), big_strides[b],
                               indices_strides[layout.batch_dims[next_batch++]]);
  for (int64_t d : indices_batching) walks.batching_positions.push_back(layout.BatchPosition(d));
  return walks;
}

}  // namespace

absl::StatusOr<Shape> GatherShape(const Shape& operand, const Shape& indices,
                                  const GatherDimensionNumbers& dims) {
  constexpr absl::string_view kOp = "gather";
  if (!operand.IsArray()) return InvalidIndexing("gather: the operand must be an array");
  HOPT_ASSIGN_OR_RETURN(IndexLayout layout, IndexLayout::Make(kOp, indices, dims.index_vector_dim));
  if (static_cast<int64_t>(dims.slice_sizes.size()) != operand.rank())
    return InvalidIndexing("gather: slice_sizes=", DimsText(dims.slice_sizes),
                           " needs one size per "
                           "dimension of the operand ",
                           operand.ToString(false));
  for (int64_t d = 0; d < operand.rank(); ++d)
    if (dims.slice_sizes[d] < 0 || dims.slice_sizes[d] > operand.dimensions(d))
      return InvalidIndexing("gather: slice size ", dims.slice_sizes[d], " of dimension ", d,
                             " is out of [0, ", operand.dimensions(d), "]");
  HOPT_RETURN_IF_ERROR(CheckDimList(kOp, "collapsed_slice_dims", dims.collapsed_slice_dims,
                                    operand.rank(), /*sorted=*/true));
  HOPT_RETURN_IF_ERROR(CheckDimList(kOp, "operand_batching_dims", dims.operand_batching_dims,
                                    operand.rank(), /*sorted=*/true));
  HOPT_RETURN_IF_ERROR(CheckDisjoint(kOp, "collapsed_slice_dims", dims.collapsed_slice_dims,
                                     "operand_batching_dims", dims.operand_batching_dims));
  for (int64_t d : dims.collapsed_slice_dims)
    if (dims.slice_sizes[d] > 1)
      return InvalidIndexing("gather: collapsed dimension ", d, " has slice size ",
                             dims.slice_sizes[d], ", more than 1");
  for (int64_t d : dims.operand_batching_dims)
    if (dims.slice_sizes[d] > 1)
      return InvalidIndexing("gather: operand batching dimension ", d, " has slice size ",
                             dims.slice_sizes[d], ", more than 1");
  HOPT_RETURN_IF_ERROR(CheckBatchingAndMap(
      {kOp, "operand_batching_dims", "start_indices_batching_dims", "start_index_map"}, operand,
      indices, dims.index_vector_dim, layout, dims.operand_batching_dims,
      dims.start_indices_batching_dims, dims.start_index_map));
  std::vector<int64_t> offset_sizes;
  for (int64_t d = 0; d < operand.rank(); ++d)
    if (!ContainsValue(dims.collapsed_slice_dims, d) &&
        !ContainsValue(dims.operand_batching_dims, d))
      offset_sizes.push_back(dims.slice_sizes[d]);
  if (dims.offset_dims.size() != offset_sizes.size())
    return InvalidIndexing("gather: offset_dims=", DimsText(dims.offset_dims), " has ",
                           dims.offset_dims.size(), " entries for the ", offset_sizes.size(),
                           " slice dimensions neither collapsed nor batching");
  const int64_t rank = static_cast<int64_t>(layout.batch_dims.size() + offset_sizes.size());
  HOPT_RETURN_IF_ERROR(CheckDimList(kOp, "offset_dims", dims.offset_dims, rank, /*sorted=*/true));
  std::vector<int64_t> result_dims;
  size_t next_offset = 0, next_batch = 0;
  for (int64_t d = 0; d < rank; ++d)
    result_dims.push_back(ContainsValue(dims.offset_dims, d)
                              ? offset_sizes[next_offset++]
                              : indices.dimensions(layout.batch_dims[next_batch++]));
  return Shape(operand.element_type(), result_dims);
}

absl::StatusOr<Literal> Gather(const Literal& operand, const Literal& indices,
                               const GatherDimensionNumbers& dims) {
  HOPT_ASSIGN_OR_RETURN(Shape shape, GatherShape(operand.shape(), indices.shape(), dims));
  Literal result(shape);
  // With no operand elements every slice is empty (XLA's evaluator leaves
  // the result zero, which is all a slice of size 0 on a collapsed
  // dimension can give).
  if (result.element_count() == 0 || operand.element_count() == 0) return result;
  HOPT_ASSIGN_OR_RETURN(IndexLayout layout,
                        IndexLayout::Make("gather", indices.shape(), dims.index_vector_dim));
  const Shape& operand_shape = operand.shape();
  const std::vector<int64_t> operand_strides = RowMajorStrides(operand_shape);
  SliceWalks walks = MakeSliceWalks(operand_shape, indices.shape(), shape, layout, dims.offset_dims,
                                    dims.collapsed_slice_dims, dims.operand_batching_dims,
                                    dims.start_indices_batching_dims);
  Walk& batch = walks.batch;
  Walk& window = walks.window;

  std::vector<int64_t> start(operand_shape.rank());
  do {
    StartAt(indices, layout, batch, dims.start_index_map, dims.operand_batching_dims,
            walks.batching_positions, &start);
    int64_t base = 0;
    for (int64_t d = 0; d < operand_shape.rank(); ++d)
      base += std::clamp<int64_t>(start[d], 0, operand_shape.dimensions(d) - walks.extent[d]) *
              operand_strides[d];
    window.Reset();
    do {
      result.CopyElementFrom(operand, base + window.b(), batch.a() + window.a());
    } while (window.Next());
  } while (batch.Next());
  return result;
}

absl::Status CheckScatter(absl::Span<const Shape* const> operands, const Shape& indices,
                          absl::Span<const Shape* const> updates,
                          const ScatterDimensionNumbers& dims) {
  constexpr absl::string_view kOp = "scatter";
  if (operands.empty() || operands.size() != updates.size())
    return InvalidIndexing("scatter takes N operands, the indices and N updates (N >= 1), got ",
                           operands.size(), " operand(s) and ", updates.size(), " update(s)");
  const Shape& operand = *operands[0];
  const Shape& update = *updates[0];
  for (size_t k = 0; k < operands.size(); ++k) {
    if (!operands[k]->IsArray() || !updates[k]->IsArray())
      return InvalidIndexing("scatter's operands and updates must be arrays");
    if (!operands[k]->SameDimensions(operand))
      return InvalidIndexing("scatter: operands ", operand.ToString(false), " and ",
                             operands[k]->ToString(false), " differ in dimensions");
    if (!updates[k]->SameDimensions(update))
      return InvalidIndexing("scatter: updates ", update.ToString(false), " and ",
                             updates[k]->ToString(false), " differ in dimensions");
    if (updates[k]->element_type() != operands[k]->element_type())
      return InvalidIndexing("scatter: update ", k, " (", updates[k]->ToString(false),
                             ") differs in element type from its operand (",
                             operands[k]->ToString(false), ")");
  }
  HOPT_ASSIGN_OR_RETURN(IndexLayout layout, IndexLayout::Make(kOp, indices, dims.index_vector_dim));
  HOPT_RETURN_IF_ERROR(CheckDimList(kOp, "update_window_dims", dims.update_window_dims,
                                    update.rank(), /*sorted=*/true));
  HOPT_RETURN_IF_ERROR(CheckDimList(kOp, "inserted_window_dims", dims.inserted_window_dims,
                                    operand.rank(), /*sorted=*/true));
  HOPT_RETURN_IF_ERROR(CheckDimList(kOp, "input_batching_dims", dims.input_batching_dims,
                                    operand.rank(), /*sorted=*/true));
  HOPT_RETURN_IF_ERROR(CheckDisjoint(kOp, "inserted_window_dims", dims.inserted_window_dims,
                                     "input_batching_dims", dims.input_batching_dims));
  HOPT_RETURN_IF_ERROR(CheckBatchingAndMap(
      {kOp, "input_batching_dims", "scatter_indices_batching_dims", "scatter_dims_to_operand_dims"},
      operand, indices, dims.index_vector_dim, layout, dims.input_batching_dims,
      dims.scatter_indices_batching_dims, dims.scatter_dims_to_operand_dims));
  const size_t window_rank = dims.update_window_dims.size() + dims.inserted_window_dims.size() +
                             dims.input_batching_dims.size();
  if (static_cast<int64_t>(window_rank) != operand.rank())
    return InvalidIndexing(
        "scatter: update_window_dims, inserted_window_dims and input_batching_dims "
        "have ",
        window_rank, " entries in all for an operand of rank ", operand.rank());
  const size_t update_rank = dims.update_window_dims.size() + layout.batch_dims.size();
  if (static_cast<int64_t>(update_rank) != update.rank())
    return InvalidIndexing("scatter: updates ", update.ToString(false), " must have rank ",
                           update_rank, " (", dims.update_window_dims.size(), " window and ",
                           layout.batch_dims.size(), " scatter dimensions)");
  size_t next_window = 0, next_scatter = 0;
  for (int64_t d = 0; d < operand.rank(); ++d) {
    if (ContainsValue(dims.inserted_window_dims, d) || ContainsValue(dims.input_batching_dims, d))
      continue;
    const int64_t u = dims.update_window_dims[next_window++];
    if (update.dimensions(u) > operand.dimensions(d))
      return InvalidIndexing("scatter: window dimension ", u, " of the updates (",
                             update.dimensions(u), ") is larger than dimension ", d,
                             " of the operand (", operand.dimensions(d), ")");
  }
  for (int64_t u = 0; u < update.rank(); ++u) {
    if (ContainsValue(dims.update_window_dims, u)) continue;
    const int64_t d = layout.batch_dims[next_scatter++];
    if (update.dimensions(u) != indices.dimensions(d))
      return InvalidIndexing("scatter: scatter dimension ", u, " of the updates (",
                             update.dimensions(u), ") and dimension ", d, " of the indices (",
                             indices.dimensions(d), ") differ in size");
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<Literal>> Scatter(absl::Span<const Literal* const> operands,
                                             const Literal& indices,
                                             absl::Span<const Literal* const> updates,
                                             const ScatterDimensionNumbers& dims,
                                             const ScalarCombiner& combine,
                                             const ElementCombiner* element_combiner) {
  std::vector<const Shape*> operand_shapes, update_shapes;
  for (const Literal* operand : operands) operand_shapes.push_back(&operand->shape());
  for (const Literal* update : updates) update_shapes.push_back(&update->shape());
  HOPT_RETURN_IF_ERROR(CheckScatter(operand_shapes, indices.shape(), update_shapes, dims));
  if (element_combiner != nullptr && operands.size() != 1)
    return InvalidIndexing("scatter: an element combiner takes one operand, got ", operands.size());
  std::vector<Literal> results;
  for (const Literal* operand : operands) results.push_back(*operand);
  if (updates[0]->element_count() == 0) return results;
  HOPT_ASSIGN_OR_RETURN(IndexLayout layout,
                        IndexLayout::Make("scatter", indices.shape(), dims.index_vector_dim));
  const Shape& operand_shape = operands[0]->shape();
  const std::vector<int64_t> operand_strides = RowMajorStrides(operand_shape);
  SliceWalks walks = MakeSliceWalks(operand_shape, indices.shape(), updates[0]->shape(), layout,
                                    dims.update_window_dims, dims.inserted_window_dims,
                                    dims.input_batching_dims, dims.scatter_indices_batching_dims);
  Walk& scatter = walks.batch;
  Walk& window = walks.window;

  const size_t n = operands.size();
  std::vector<Literal> args(2 * n);
  std::vector<int64_t> start(operand_shape.rank());
  do {
    StartAt(indices, layout, scatter, dims.scatter_dims_to_operand_dims, dims.input_batching_dims,
            walks.batching_positions, &start);
    bool inside = true;
    for (int64_t d = 0; d < operand_shape.rank() && inside; ++d)
      inside = start[d] >= 0 && start[d] <= operand_shape.dimensions(d) - walks.extent[d];
    if (!inside) continue;  // XLA skips a window that is not wholly in bounds
    int64_t base = 0;
    for (int64_t d = 0; d < operand_shape.rank(); ++d) base += start[d] * operand_strides[d];
    window.Reset();
    do {
      const int64_t to = base + window.b(), from = scatter.a() + window.a();
      if (element_combiner != nullptr) {
        (*element_combiner)(results[0], to, *updates[0], from);
        continue;
      }
      for (size_t k = 0; k < n; ++k) {
        args[k] = ElementAt(results[k], to);
        args[n + k] = ElementAt(*updates[k], from);
      }
      HOPT_ASSIGN_OR_RETURN(std::vector<Literal> combined, combine(args));
      if (combined.size() != n)
        return InvalidIndexing("scatter: the update computation returned ", combined.size(),
                               " value(s) for ", n, " operand(s)");
      for (size_t k = 0; k < n; ++k) {
        if (!combined[k].shape().IsScalar() ||
            combined[k].shape().element_type() != results[k].shape().element_type())
          return InvalidIndexing("scatter: the update computation returned ",
                                 combined[k].shape().ToString(false), " for operand ",
                                 results[k].shape().ToString(false));
        results[k].CopyElementFrom(combined[k], 0, to);
      }
    } while (window.Next());
  } while (scatter.Next());
  return results;
}

// ---- The instructions

namespace {

// An integer-list attribute; `required` ones must be present, others
// default to empty.
absl::StatusOr<std::vector<int64_t>> ListAttribute(const HloInstruction& i, absl::string_view name,
                                                   bool required) {
  std::optional<absl::string_view> text = i.GetAttributeText(name);
  if (!text) {
    if (required) return UnsupportedInstruction(i, absl::StrCat("needs ", name, "="));
    return std::vector<int64_t>{};
  }
  absl::StatusOr<std::vector<int64_t>> list = ParseIntList(*text);
  if (!list.ok()) return UnsupportedInstruction(i, absl::StrCat("malformed ", name, "=", *text));
  return list;
}

absl::StatusOr<int64_t> IndexVectorDim(const HloInstruction& i) {
  std::optional<int64_t> dim = i.IntAttribute("index_vector_dim");
  if (!dim) return UnsupportedInstruction(i, "needs index_vector_dim=");
  return *dim;
}

absl::StatusOr<GatherDimensionNumbers> GatherAttributes(const HloInstruction& i) {
  GatherDimensionNumbers dims;
  HOPT_ASSIGN_OR_RETURN(dims.offset_dims, ListAttribute(i, "offset_dims", true));
  HOPT_ASSIGN_OR_RETURN(dims.collapsed_slice_dims, ListAttribute(i, "collapsed_slice_dims", true));
  HOPT_ASSIGN_OR_RETURN(dims.start_index_map, ListAttribute(i, "start_index_map", true));
  HOPT_ASSIGN_OR_RETURN(dims.operand_batching_dims,
                        ListAttribute(i, "operand_batching_dims", false));
  HOPT_ASSIGN_OR_RETURN(dims.start_indices_batching_dims,
                        ListAttribute(i, "start_indices_batching_dims", false));
  HOPT_ASSIGN_OR_RETURN(dims.slice_sizes, ListAttribute(i, "slice_sizes", true));
  HOPT_ASSIGN_OR_RETURN(dims.index_vector_dim, IndexVectorDim(i));
  return dims;
}

absl::StatusOr<ScatterDimensionNumbers> ScatterAttributes(const HloInstruction& i) {
  ScatterDimensionNumbers dims;
  HOPT_ASSIGN_OR_RETURN(dims.update_window_dims, ListAttribute(i, "update_window_dims", true));
  HOPT_ASSIGN_OR_RETURN(dims.inserted_window_dims, ListAttribute(i, "inserted_window_dims", true));
  HOPT_ASSIGN_OR_RETURN(dims.scatter_dims_to_operand_dims,
                        ListAttribute(i, "scatter_dims_to_operand_dims", true));
  HOPT_ASSIGN_OR_RETURN(dims.input_batching_dims, ListAttribute(i, "input_batching_dims", false));
  HOPT_ASSIGN_OR_RETURN(dims.scatter_indices_batching_dims,
                        ListAttribute(i, "scatter_indices_batching_dims", false));
  HOPT_ASSIGN_OR_RETURN(dims.index_vector_dim, IndexVectorDim(i));
  return dims;
}

// The update computation must take 2N scalars of the operands' types and
// return N of them (one alone may be bare): anything else would make the
// interpreter convert values where XLA's verifier refuses the module.
absl::Status CheckUpdateComputation(const HloInstruction& i, const HloComputation& computation,
                                    absl::Span<const Literal* const> operands) {
  const size_t n = operands.size();
  auto why = [&](absl::string_view what) {
    return UnsupportedInstruction(
        i, absl::StrCat("the update computation ", computation.name(), " ", what));
  };
  if (computation.num_parameters() != static_cast<int64_t>(2 * n))
    return why(absl::StrCat("takes ", computation.num_parameters(), " parameters, not ", 2 * n));
  for (size_t k = 0; k < 2 * n; ++k) {
    const Shape& parameter = computation.parameter_instruction(k)->shape();
    PrimitiveType type = operands[k % n]->shape().element_type();
    if (!parameter.IsScalar() || parameter.element_type() != type)
      return why(absl::StrCat("has parameter ", k, " of ", parameter.ToString(false),
                              ", not a scalar of ", PrimitiveTypeString(type)));
  }
  const Shape& root = computation.root_instruction()->shape();
  std::vector<const Shape*> results;
  if (root.IsTuple()) {
    for (const Shape& element : root.tuple_shapes()) results.push_back(&element);
  } else {
    results.push_back(&root);
  }
  bool fits = results.size() == n;
  for (size_t k = 0; fits && k < n; ++k)
    fits =
        results[k]->IsScalar() && results[k]->element_type() == operands[k]->shape().element_type();
  if (!fits)
    return why(absl::StrCat("returns ", root.ToString(false), ", not ", n,
                            " scalar(s) of the operands' types"));
  return absl::OkStatus();
}

// When the update computation only picks one of its two parameters
// (overwrite: p1, keep: p0), that choice made directly.
std::optional<ElementCombiner> ParameterChoice(const HloComputation& computation) {
  const HloInstruction* root = computation.root_instruction();
  if (root->opcode() != HloOpcode::kParameter) return std::nullopt;
  if (root->parameter_number() == 1)
    return ElementCombiner(
        [](Literal& acc, int64_t a, const Literal& x, int64_t i) { acc.CopyElementFrom(x, i, a); });
  return ElementCombiner([](Literal&, int64_t, const Literal&, int64_t) {});
}

}  // namespace

DeviceEvaluator::FamilyResult DeviceEvaluator::EvaluateGatherScatter(
    const HloInstruction& i, const std::vector<const Literal*>& ops) {
  switch (i.opcode()) {
    case HloOpcode::kGather: {
      if (ops.size() != 2) return UnsupportedInstruction(i, "takes 2 operands");
      HOPT_ASSIGN_OR_RETURN(GatherDimensionNumbers dims, GatherAttributes(i));
      absl::StatusOr<Literal> gathered = Gather(*ops[0], *ops[1], dims);
      if (!gathered.ok()) return NameInstruction(i, gathered.status());
      Literal result = *std::move(gathered);
      if (!result.shape().Compatible(i.shape()))
        return UnsupportedInstruction(
            i, absl::StrCat("its shape ", i.shape().ToString(false), " is not the gather's ",
                            result.shape().ToString(false)));
      return result;
    }
    case HloOpcode::kScatter: {
      if (ops.size() < 3 || ops.size() % 2 == 0)
        return UnsupportedInstruction(i, "takes N operands, the indices and N updates");
      const size_t n = (ops.size() - 1) / 2;
      std::vector<const Literal*> operands(ops.begin(), ops.begin() + n);
      std::vector<const Literal*> updates(ops.begin() + n + 1, ops.end());
      HOPT_ASSIGN_OR_RETURN(ScatterDimensionNumbers dims, ScatterAttributes(i));
      const HloComputation* to_apply = i.to_apply();
      if (to_apply == nullptr) return UnsupportedInstruction(i, "needs to_apply=");
      HOPT_RETURN_IF_ERROR(CheckUpdateComputation(i, *to_apply, operands));
      std::optional<ElementCombiner> element_combiner;
      if (n == 1) {
        element_combiner = ParameterChoice(*to_apply);
        if (!element_combiner) element_combiner = PlainBinaryCombiner(*to_apply, *operands[0]);
      }
      absl::StatusOr<std::vector<Literal>> scattered = Scatter(
          operands, *ops[n], updates, dims,
          [&](const std::vector<Literal>& scalars) { return CallScalars(*to_apply, scalars); },
          element_combiner ? &*element_combiner : nullptr);
      if (!scattered.ok()) return NameInstruction(i, scattered.status());
      std::vector<Literal> results = *std::move(scattered);
      Literal result;
      if (n == 1) {
        result = std::move(results[0]);
      } else {
        std::vector<Shape> shapes;
        for (const Literal& r : results) shapes.push_back(r.shape());
        result = Literal(Shape::MakeTuple(std::move(shapes)));
        for (size_t k = 0; k < n; ++k) result.mutable_tuple_elements()[k] = std::move(results[k]);
      }
      if (!result.shape().Compatible(i.shape()))
        return UnsupportedInstruction(
            i, absl::StrCat("its shape ", i.shape().ToString(false), " is not the scatter's ",
                            result.shape().ToString(false)));
      return result;
    }
    default: return std::nullopt;
  }
}

}  // namespace eval
}  // namespace hopt
