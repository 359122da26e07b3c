// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_IR_VERIFIER_H_
#define HOPT_IR_VERIFIER_H_

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "hopt/ir/module.h"

namespace hopt {

struct VerifyOptions {
  // Report a problem with an instruction that the parsed input wrote at
  // its place in that input: `FILE:LINE:COL: error: verifier: ...`
  // (include/hopt/support/diagnostic.h). Off where the message becomes part of
  // another (a pass that broke the module).
  bool locate = false;
  // XLA's HloVerifierOpts::allow_mixed_precision. On (hopt's default, as in
  // XLA's test bases): an instruction may combine or produce floating-point
  // types of different precisions where XLA's shape inference allows it
  // (`add(f16, f32)`, a bf16 result of f32 operands). Off (HloVerifierOpts'
  // own default): only the opcodes that move, group or convert values may.
  bool allow_mixed_precision = true;
};

// Checks the module's structure (use/def and user lists, unique names that
// the printer can write and the parser read back, one root per
// computation, called computations belong to the module, operand counts)
// and the shapes of the instructions hopt builds. The first problem found
// is returned as `verifier: [rule] computation 'c', instruction 'i':
// detail`.
absl::Status VerifyModule(const HloModule& module, VerifyOptions options = {});

// VerifyModule of a module just read from `file`, as the tools report it:
// at the instruction's place when the parser recorded one, else
// `FILE: error: verifier: ...`.
absl::Status VerifyInput(const HloModule& module, absl::string_view file);

}  // namespace hopt

#endif  // HOPT_IR_VERIFIER_H_
