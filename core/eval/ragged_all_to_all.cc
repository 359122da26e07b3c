// SPDX-License-Identifier: Apache-2.0
// ragged-all-to-all as an array function (ragged_all_to_all.h). Facts from
// XLA: operands (input, output, input_offsets, send_sizes, output_offsets,
// recv_sizes); the result has the output's shape and starts as it; the
// ragged dimension is dimension 0, a row being everything below it; the
// metadata holds n * k entries, entry j * k + u being update u to peer j;
// a sender's output_offsets entry is the offset in the peer's output (XLA's
// GPU runtime all-to-alls output_offsets before its sends for this reason).

#include "core/eval/ragged_all_to_all.h"

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "hopt/ir/shape.h"

namespace hopt {
namespace eval {
namespace {

constexpr const char* kMetadataNames[] = {"input_offsets", "send_sizes", "output_offsets",
                                          "recv_sizes"};

absl::Status Error(absl::string_view name, absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat(name, ": ", why));
}

// Rows of `shape` (its dimension 0) and the elements in one row.
struct Rows {
  int64_t count = 0;
  int64_t width = 0;
};

Rows RowsOf(const Shape& shape) {
  Rows rows{shape.dimensions(0), 1};
  for (int64_t d = 1; d < shape.rank(); ++d) rows.width *= shape.dimensions(d);
  return rows;
}

// The shapes every member's operands must have (XLA's verifier checks the
// metadata; the rows must match for a row to move as a whole).
absl::Status CheckShapes(absl::string_view name, const RaggedAllToAllOperands& ops) {
  const Shape& input = ops.input->shape();
  const Shape& output = ops.output->shape();
  if (!input.IsArray() || !output.IsArray() || input.rank() == 0 || output.rank() == 0)
    return Error(name, absl::StrCat("the input and output must be arrays of rank 1 or more (the "
                                    "ragged dimension is dimension 0), got ",
                                    input.ToString(false), " and ", output.ToString(false)));
  bool rows_match = input.element_type() == output.element_type() && input.rank() == output.rank();
  for (int64_t d = 1; rows_match && d < input.rank(); ++d)
    rows_match = input.dimensions(d) == output.dimensions(d);
  if (!rows_match)
    return Error(name, absl::StrCat("the input ", input.ToString(false), " and output ",
                                    output.ToString(false),
                                    " must have one element type and the same dimensions "
                                    "after dimension 0"));
  const Literal* metadata[] = {ops.input_offsets, ops.send_sizes, ops.output_offsets,
                               ops.recv_sizes};
  for (int m = 0; m < 4; ++m) {
    const Shape& shape = metadata[m]->shape();
    if (!shape.IsArray() || !IsIntegralType(shape.element_type()))
      return Error(name, absl::StrCat(kMetadataNames[m], " must be an integer array, got ",
                                      shape.ToString(false)));
    // XLA's verifier also takes rank 2, but its runtimes read only
    // dimension 0 of it: what such metadata means is open, so it is refused.
    if (shape.rank() != 1)
      return Error(name, absl::StrCat(kMetadataNames[m], " ", shape.ToString(false),
                                      " is not a vector: only rank-1 offsets and sizes are run"));
    if (!shape.Compatible(metadata[0]->shape()))
      return Error(
          name, absl::StrCat(kMetadataNames[m], " ", shape.ToString(false), " and input_offsets ",
                             metadata[0]->shape().ToString(false), " must have one shape"));
  }
  return absl::OkStatus();
}

// Whether rows [offset, offset + size) lie within `rows` rows.
bool RowsWithin(int64_t offset, int64_t size, int64_t rows) {
  return offset >= 0 && offset <= rows && size <= rows - offset;
}

}  // namespace

absl::StatusOr<Literal> RaggedAllToAll(absl::string_view name,
                                       absl::Span<const RaggedAllToAllOperands> group,
                                       absl::Span<const int64_t> devices, int64_t me) {
  const int64_t n = static_cast<int64_t>(group.size());
  if (n == 0 || me < 0 || me >= n || static_cast<int64_t>(devices.size()) != n)
    return Error(name, "needs a group that holds this device");
  for (const RaggedAllToAllOperands& member : group) {
    absl::Status shapes = CheckShapes(name, member);
    if (!shapes.ok()) return shapes;
  }
  const RaggedAllToAllOperands& mine = group[me];
  const int64_t entries = mine.input_offsets->element_count();
  if (entries % n != 0)
    return Error(name,
                 absl::StrCat("the offsets and sizes hold ", entries,
                              " entries, not a multiple of the ", n, " members of the group"));
  const int64_t k = entries / n;

  Literal result = *mine.output;
  const Rows out_rows = RowsOf(result.shape());
  for (int64_t sender = 0; sender < n; ++sender) {
    const RaggedAllToAllOperands& from = group[sender];
    if (from.input_offsets->element_count() != entries)
      return Error(
          name,
          absl::StrCat("device ", devices[sender], " has ", from.input_offsets->element_count(),
                       " offsets and sizes where device ", devices[me], " has ", entries));
    if (from.input->shape().element_type() != result.shape().element_type() ||
        RowsOf(from.input->shape()).width != out_rows.width)
      return Error(name, absl::StrCat("device ", devices[sender], "'s input ",
                                      from.input->shape().ToString(false), " does not fit rows of ",
                                      result.shape().ToString(false)));
    const Rows in_rows = RowsOf(from.input->shape());
    for (int64_t u = 0; u < k; ++u) {
      const int64_t sent = me * k + u, received = sender * k + u;
      const int64_t in_offset = from.input_offsets->GetAsInt64(sent);
      const int64_t size = from.send_sizes->GetAsInt64(sent);
      const int64_t out_offset = from.output_offsets->GetAsInt64(sent);
      const int64_t expected = mine.recv_sizes->GetAsInt64(received);
      const std::string update =
          absl::StrCat("update ", u, " from device ", devices[sender], " to device ", devices[me]);
      if (size < 0)
        return Error(name, absl::StrCat(update, ": send_sizes[", sent, "]=", size, " on device ",
                                        devices[sender], " is negative"));
      if (size != expected)
        return Error(name, absl::StrCat(update, ": device ", devices[sender], " sends ", size,
                                        " rows (send_sizes[", sent, "]) where device ", devices[me],
                                        " receives ", expected, " (recv_sizes[", received, "])"));
      // An empty update reads and writes nothing, whatever its offsets.
      if (size == 0) continue;
      if (!RowsWithin(in_offset, size, in_rows.count))
        return Error(
            name, absl::StrCat(update, ": input_offsets[", sent, "]=", in_offset,
                               " and send_sizes[", sent, "]=", size, " on device ", devices[sender],
                               " leave the ", in_rows.count, " rows of its input"));
      if (!RowsWithin(out_offset, size, out_rows.count))
        return Error(
            name, absl::StrCat(update, ": output_offsets[", sent, "]=", out_offset, " on device ",
                               devices[sender], " and ", size, " rows leave the ", out_rows.count,
                               " rows of device ", devices[me], "'s output"));
      result.CopyElementsFrom(*from.input, in_offset * in_rows.width, out_offset * out_rows.width,
                              size * out_rows.width);
    }
  }
  return result;
}

}  // namespace eval
}  // namespace hopt
