// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_IR_PRINTER_H_
#define HOPT_IR_PRINTER_H_

#include <functional>
#include <string>

#include "absl/strings/string_view.h"
#include "hopt/ir/module.h"

namespace hopt {

struct PrintOptions {
  enum class Style {
    kLong,   // XLA's default: `%` names, computation signatures
    kShort,  // XLA's ShortParsable: bare names, no signatures
  };
  Style style = Style::kLong;
  // `add(f32[2]{0} %a, ...)` instead of `add(%a, ...)`; long style only.
  bool print_operand_shapes = false;

  static PrintOptions Long(bool operand_shapes = false) {
    PrintOptions o;
    o.print_operand_shapes = operand_shapes;
    return o;
  }
  static PrintOptions Short() {
    PrintOptions o;
    o.style = Style::kShort;
    return o;
  }
};

std::string PrintModule(const HloModule& module, const PrintOptions& options = {});
// Streams the text in pieces of about `chunk_bytes` to `sink`, so printing a
// large module does not hold its whole text in memory.
void PrintModule(const HloModule& module, const PrintOptions& options,
                 const std::function<void(absl::string_view)>& sink, size_t chunk_bytes = 1 << 20);
std::string PrintComputation(const HloComputation& computation, const PrintOptions& options = {});
// One instruction line, without indentation or newline.
std::string PrintInstruction(const HloInstruction& instruction, const PrintOptions& options = {});

}  // namespace hopt

#endif  // HOPT_IR_PRINTER_H_
