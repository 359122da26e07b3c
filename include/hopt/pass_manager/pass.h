// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_PASS_MANAGER_PASS_H_
#define HOPT_PASS_MANAGER_PASS_H_

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "hopt/ir/module.h"

namespace hopt {

// A transformation of a module, XLA style: a name and Run, which reports
// whether the module changed.
class Pass {
 public:
  virtual ~Pass() = default;
  virtual absl::string_view name() const = 0;
  virtual absl::StatusOr<bool> Run(HloModule& module) = 0;
};

// A pass that rewrites single instructions: the matcher picks them, the
// expander builds the replacement. Every computation is walked in post
// order; matches are collected first and rewritten after, so a rewrite never
// disturbs the walk.
class OpExpanderPass : public Pass {
 public:
  absl::StatusOr<bool> Run(HloModule& module) final;

 protected:
  virtual bool InstructionMatchesPattern(HloInstruction* instruction) = 0;
  // The opcodes InstructionMatchesPattern can accept, when it accepts only
  // a few: the walk then reads only those instructions (and none at all in
  // a computation without them). Empty: every instruction is asked.
  virtual absl::Span<const HloOpcode> PatternOpcodes() const { return {}; }
  // Returns the instruction that replaces `instruction` (same shape; the
  // driver replaces all uses and removes what is left unused), or null to
  // leave it alone.
  virtual absl::StatusOr<HloInstruction*> ExpandInstruction(HloInstruction* instruction) = 0;
};

}  // namespace hopt

#endif  // HOPT_PASS_MANAGER_PASS_H_
