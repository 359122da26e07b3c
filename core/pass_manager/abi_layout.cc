// SPDX-License-Identifier: Apache-2.0
// Ties HOPT_ABI_VERSION (hopt/hopt-config.h, part of every plugin's build
// tag and of libhopt_core's soname) to the layout of the types a plugin
// compiles against. A plugin is refused unless its build tag equals the
// host's, so a public type whose size or alignment changes under an
// unchanged ABI number would let an old plugin read the new type with the
// old layout. This file stops that at compile time: when a static_assert
// below fires, add a row for a new ABI number with the new figures and
// bump hopt_abi_version in the top-level meson.build.

#include <cstddef>

#include "hopt/eval/custom_call_table.h"
#include "hopt/ir/attributes.h"
#include "hopt/ir/computation.h"
#include "hopt/ir/instruction.h"
#include "hopt/ir/literal.h"
#include "hopt/ir/module.h"
#include "hopt/ir/shape.h"
#include "hopt/pass_manager/pass.h"
#include "hopt/pass_manager/pass_options.h"
#include "hopt/pass_manager/pass_registry.h"
#include "hopt/pass_manager/plugin_api.h"
#include "hopt/pass_manager/registrar.h"

namespace hopt {
namespace {

struct Layout {
  int abi;
  size_t module, computation, instruction, shape, literal;
  size_t plugin_info, registrar, pass_options, pass_info, option_spec;
};

// The figures of each ABI number on LP64 (x86-64, AArch64 Linux), newest
// last. Older rows stay: a change that returned to an old layout would
// still need a new number, since plugins of that number may be anywhere.
constexpr Layout kLayouts[] = {
    {1, 376, 152, 104, 168, 280, 40, 8, 48, 296, 104},
    {2, 392, 152, 104, 168, 280, 40, 8, 48, 296, 104},  // HloModule: stack frames
};
constexpr Layout kCurrent = kLayouts[sizeof(kLayouts) / sizeof(kLayouts[0]) - 1];

static_assert(sizeof(void*) == 8, "the ABI figures are for LP64 targets");
static_assert(kCurrent.abi == HOPT_ABI_VERSION,
              "the newest row of kLayouts must be the ABI number hopt-config.h states");

// Shows the actual and the expected size in the compiler's message.
template <size_t kActual, size_t kExpected>
constexpr bool SameSize() {
  static_assert(kActual == kExpected,
                "a public type's size changed: bump HOPT_ABI_VERSION (see the top of this file)");
  return true;
}

static_assert(SameSize<sizeof(HloModule), kCurrent.module>());
static_assert(SameSize<sizeof(HloComputation), kCurrent.computation>());
static_assert(SameSize<sizeof(HloInstruction), kCurrent.instruction>());
static_assert(SameSize<sizeof(Shape), kCurrent.shape>());
static_assert(SameSize<sizeof(Literal), kCurrent.literal>());
static_assert(SameSize<sizeof(HoptPluginInfo), kCurrent.plugin_info>());
static_assert(SameSize<sizeof(PluginRegistrar), kCurrent.registrar>());
static_assert(SameSize<sizeof(PassOptions), kCurrent.pass_options>());
static_assert(SameSize<sizeof(PassInfo), kCurrent.pass_info>());
static_assert(SameSize<sizeof(PassOptionSpec), kCurrent.option_spec>());

}  // namespace
}  // namespace hopt
