// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_EVAL_OPAQUE_CALLS_H_
#define HOPT_EVAL_OPAQUE_CALLS_H_

// Custom-calls whose target has no registered semantics (a vendor kernel in
// a real dump, say a vendor's ring transfer) run as opaque functions:
// the result is a deterministic function of what the call is given, so
// the same call on the same values gives the same result before and after a
// pass, and every device logs the calls it made, so that dropping,
// duplicating or rewiring one is noticed even when its result is unused.
// docs/hlo-run.md, "Opaque custom-calls", is the contract.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "hopt/eval/custom_call_table.h"
#include "hopt/ir/instruction.h"
#include "hopt/ir/literal.h"
#include "hopt/ir/module.h"

namespace hopt {
namespace eval {

// SHA-256 of what identifies a call: its target, its backend_config, each
// operand's shape (dimensions and element type, no layout) and values, and
// the result's shape. Not the instruction's name, metadata or layout.
using OpaqueCallDigest = std::array<uint8_t, 32>;
OpaqueCallDigest DigestOpaqueCall(const HloInstruction& call,
                                  absl::Span<const Literal* const> operands);

// The call's result: element k of leaf L (tuple leaves numbered depth-first
// from 0) is drawn from bytes of SHA-256(digest, L, k / 4); floats are
// multiples of 1/64 in [-2, 2) (never NaN or infinite), signed integers in
// [-128, 128), unsigned in [0, 256) (wrapped to narrower types), pred a fair
// coin, complex both parts as floats, tokens tokens.
Literal OpaqueCallResult(const Shape& shape, const OpaqueCallDigest& digest);

// One call a device made, for the log.
struct OpaqueCall {
  std::string target;
  OpaqueCallDigest digest;
  std::string name;  // the instruction that made it, for messages only
};

// Empty when the two logs hold the same calls the same number of times
// (a multiset: passes may legitimately reorder independent calls);
// otherwise what differs, e.g. "opaque custom-call 'T' (%c) on operands
// 1a2b3c4d5e6f7a8b ran 1 time(s) before, 0 after".
std::string CompareOpaqueCallLogs(const std::vector<OpaqueCall>& first,
                                  const std::vector<OpaqueCall>& second,
                                  absl::string_view first_label = "before",
                                  absl::string_view second_label = "after");

// The first 8 bytes of a digest in hex, as messages print it.
std::string ShortDigest(const OpaqueCallDigest& digest);

// The custom-call targets of `module` that have no registered semantics, in
// order of first appearance, and where the first call of each stands.
struct OpaqueTarget {
  std::string target;
  const HloInstruction* first_call = nullptr;
};
std::vector<OpaqueTarget> FindOpaqueTargets(const HloModule& module,
                                            const CustomCallTable* custom_calls);

// OK when every custom-call of `module` has registered semantics; otherwise
// the first one that has none, at its place in the input when the module
// knows it (FILE:LINE:COL: error: ...).
absl::Status RefuseOpaqueCustomCalls(const HloModule& module, const CustomCallTable* custom_calls);

// "T1, T2 (and N more)": the targets, for one-line notes.
std::string OpaqueTargetList(const std::vector<OpaqueTarget>& targets);

}  // namespace eval
}  // namespace hopt

#endif  // HOPT_EVAL_OPAQUE_CALLS_H_
