// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_TEST_PLUGINS_MUTANT_OPERATORS_H_
#define HOPT_TEST_PLUGINS_MUTANT_OPERATORS_H_

// Corruption operators of the mutation tests (test/plugins/mutants.def,
// docs/testing.md "Mutation testing"). Each takes what a real pass created
// or rewired and breaks it in one targeted way that keeps the module valid
// for the verifier: the wrong value must reach the prover, not be stopped
// before it.

#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "hopt/ir/instruction.h"
#include "hopt/ir/module.h"

namespace hopt_test_mutants {

enum class Corruption {
  kWrongGroup,          // replica groups: two devices change groups (or places)
  kWrongDimension,      // gather / concatenate / scatter dimension moved, reshaped back
  kWrongReduceOp,       // the reducer (and a custom-call's target) computes another op
  kWrongElementwiseOp,  // add -> maximum, maximum -> add, ...
  kShiftedSlice,        // slice window or dynamic-slice start off by one
  kSwappedOperands,     // two same-shaped operands of a non-commutative op swapped
  kWrongDtype,          // s32 <-> u32: the collective runs on the other signedness
  kPairsReversed,       // source_target_pairs (or the send/recv attribute) reversed
  kPairsRotated,        // each target receives from the next pair's source
  kWrongTable,          // a constant table (ids, masks): two entries swapped
  kStaleOperand,        // an operand replaced by its own same-shaped operand
  kStaleTupleElement,   // a tuple operand rebuilt with one element stale
  kWrongTupleIndex,     // get-tuple-element of another same-shaped element
  kWrongInit,           // a reduce's init value one step inside the type's range
  kOverflow,            // a 32-bit add saturates in 64 bits instead of wrapping
};

absl::string_view CorruptionName(Corruption corruption);

// Applies `corruption` to the first of `touched` that matches `site` and
// where it applies. `site` is "" (any), an opcode spelling ("all-gather"),
// optionally with ":TYPE" for the element type ("constant:pred"), or a
// custom-call target prefix ("AwsNeuronAllGather"). Returns the name of the
// instruction corrupted, or an error naming the site when none fits (a
// mutant that silently did nothing would pass for a caught one).
absl::StatusOr<std::string> Corrupt(Corruption corruption, absl::string_view site,
                                    const std::vector<hopt::HloInstruction*>& touched);

}  // namespace hopt_test_mutants

#endif  // HOPT_TEST_PLUGINS_MUTANT_OPERATORS_H_
