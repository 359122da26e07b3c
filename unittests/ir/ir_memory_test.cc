// SPDX-License-Identifier: Apache-2.0
// The IR's compact storage: pointer lists in one word, attribute lists at
// their size, attribute values shared while they recur and never collected
// in a table that grows with every unique value. Each behaves as the plain
// container it replaces.
#include <malloc.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/ir/string_arena.h"
#include "core/support/tooling/heap_policy.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hopt/ir/builder.h"
#include "hopt/ir/module.h"
#include "hopt/ir/parser.h"
#include "hopt/ir/pointer_list.h"

namespace hopt {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

int a, b, c, d, e;  // addresses to store

TEST(PointerListTest, BehavesAsAVectorOfPointers) {
  static_assert(sizeof(PointerList<int*>) == sizeof(void*));
  PointerList<int*> list;
  EXPECT_TRUE(list.empty());
  EXPECT_EQ(list.begin(), list.end());
  for (int* p : {&a, &b, &c, &d, &e}) list.push_back(p);
  ASSERT_EQ(list.size(), 5u);
  EXPECT_EQ(list[0], &a);
  EXPECT_EQ(list.front(), &a);
  EXPECT_EQ(list.back(), &e);
  std::vector<int*> as_vector = list;
  EXPECT_THAT(as_vector, ElementsAre(&a, &b, &c, &d, &e));

  // The erase-remove idiom, as the control-edge code uses it.
  list.erase(std::remove_if(list.begin(), list.end(), [](int* p) { return p == &b || p == &d; }),
             list.end());
  EXPECT_THAT(std::vector<int*>(list), ElementsAre(&a, &c, &e));

  PointerList<int*> copy = list;
  copy[0] = &d;
  EXPECT_EQ(list[0], &a);  // a deep copy
  PointerList<int*> moved = std::move(copy);
  EXPECT_THAT(std::vector<int*>(moved), ElementsAre(&d, &c, &e));

  moved = std::vector<int*>{&b};
  EXPECT_THAT(std::vector<int*>(moved), ElementsAre(&b));
  moved = {};
  EXPECT_TRUE(moved.empty());
  list.clear();
  EXPECT_THAT(std::vector<int*>(list), IsEmpty());
}

TEST(PointerListTest, GrowsPastManyItems) {
  PointerList<int*> list;
  std::vector<int*> expected;
  for (int k = 0; k < 1000; ++k) {
    int* p = (k % 2) ? &a : &b;
    list.push_back(p);
    expected.push_back(p);
  }
  EXPECT_EQ(std::vector<int*>(list), expected);
}

TEST(StringArenaTest, RecurringValuesShareTheirBytes) {
  StringArena arena;
  std::string long_value = "{replica_groups=[[0,1,2,3],[4,5,6,7]]}";
  absl::string_view first = arena.InternValue(long_value);
  absl::string_view again = arena.InternValue(std::string(long_value));
  EXPECT_EQ(first, long_value);
  EXPECT_EQ(first.data(), again.data());
}

TEST(StringArenaTest, UniqueValuesKeepTheirTextWhateverTheCacheHolds) {
  // Far more unique values than the cache has slots, then the first ones
  // again: every text reads back as it was given, whether its bytes were
  // shared or saved anew.
  StringArena arena;
  std::vector<absl::string_view> saved;
  for (int k = 0; k < 20000; ++k)
    saved.push_back(arena.InternValue(absl::StrCat("channel_id=", 1000000 + k)));
  for (int k = 0; k < 20000; ++k) {
    ASSERT_EQ(saved[k], absl::StrCat("channel_id=", 1000000 + k));
    ASSERT_EQ(arena.InternValue(absl::StrCat("channel_id=", 1000000 + k)), saved[k]);
  }
}

TEST(AttributeStorageTest, ListsHoldNoMoreSlotsThanAttributes) {
  auto module = ParseHloModule(R"(
HloModule m, replica_count=4

ENTRY main {
  p = f32[8] parameter(0)
  ROOT g = f32[32] all-gather(p), channel_id=1, replica_groups={{0,1,2,3}}, constrain_layout=true, dimensions={0}, use_global_device_ids=true
}
)");
  ASSERT_TRUE(module.ok()) << module.status();
  const HloInstruction* parsed = (*module)->entry_computation()->root_instruction();
  EXPECT_EQ(parsed->attributes().size(), 5u);
  EXPECT_EQ(parsed->attributes().capacity(), 5u);

  // Built by a pass: attributes placed one by one where XLA prints them.
  HloComputation* entry = (*module)->entry_computation();
  HloInstruction* p = entry->parameter_instruction(0);
  HloInstruction* built =
      entry->AddInstruction(HloOpcode::kAllGather, Shape(PrimitiveType::F32, {32}), {p});
  built->SetAttributeText("dimensions", "{0}");
  built->SetAttributeText("channel_id", "2");
  built->SetAttributeText("use_global_device_ids", "true");
  built->SetAttributeText("replica_groups", "{{0,1,2,3}}");
  built->SetAttributeText("constrain_layout", "true");
  EXPECT_EQ(built->attributes().size(), 5u);
  EXPECT_EQ(built->attributes().capacity(), 5u);
  std::vector<std::string> names;
  for (const HloAttribute& attr : built->attributes()) names.emplace_back(attr.name);
  std::vector<std::string> parsed_names;
  for (const HloAttribute& attr : parsed->attributes()) parsed_names.emplace_back(attr.name);
  EXPECT_EQ(names, parsed_names);  // still in XLA's print order
}

TEST(OpcodeColumnTest, FindsByOpcodeThroughAddsSwapsRemovalsAndCompaction) {
  auto module = ParseHloModule(R"(
HloModule m

ENTRY main {
  p = f32[4] parameter(0)
  a = f32[4] negate(p)
  b = f32[4] custom-call(a), custom_call_target="x"
  ROOT c = f32[4] negate(b)
}
)");
  ASSERT_TRUE(module.ok()) << module.status();
  HloComputation* entry = (*module)->entry_computation();
  auto names = [&](std::initializer_list<HloOpcode> opcodes) {
    std::vector<std::string> out;
    for (const HloInstruction* i : entry->InstructionsWithOpcode(opcodes))
      out.emplace_back(i->name());
    return out;
  };
  EXPECT_THAT(names({HloOpcode::kNegate}), ElementsAre("a", "c"));
  EXPECT_THAT(names({HloOpcode::kCustomCall, HloOpcode::kParameter}), ElementsAre("p", "b"));

  // In place of `a`: the new instruction takes a's slot, so list order holds.
  HloInstruction* a = entry->GetInstructionWithName("a");
  HloInstruction* p = entry->parameter_instruction(0);
  HloInstruction* call = entry->AddInstructionInPlaceOf(a, HloOpcode::kCustomCall, a->shape(), {p});
  ASSERT_TRUE(a->ReplaceAllUsesWith(call).ok());
  ASSERT_TRUE(entry->RemoveInstruction(a).ok());
  EXPECT_THAT(names({HloOpcode::kNegate}), ElementsAre("c"));
  EXPECT_THAT(names({HloOpcode::kCustomCall}), ElementsAre("a", "b"));  // the call keeps a's name

  // Enough removals to compact the list (more holes than instructions).
  std::vector<HloInstruction*> added;
  for (int k = 0; k < 200; ++k)
    added.push_back(entry->AddInstruction(HloOpcode::kCopy, p->shape(), {p}));
  for (int k = 0; k < 190; ++k) ASSERT_TRUE(entry->RemoveInstruction(added[k]).ok());
  EXPECT_EQ(entry->InstructionsWithOpcode({HloOpcode::kCopy}).size(), 10u);
  EXPECT_EQ(entry->InstructionsWithOpcode({HloOpcode::kCopy}).front(), added[190]);
  EXPECT_THAT(names({HloOpcode::kCustomCall, HloOpcode::kNegate}), ElementsAre("a", "b", "c"));
  size_t live = 0;
  for (HloInstruction* i : entry->instructions()) live += i != nullptr;
  EXPECT_EQ(live, 14u);
}

// Sanitizer runtimes replace malloc, so glibc's statistics say nothing there.
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HOPT_MALLOC_IS_REPLACED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || !defined(__GLIBC__)
#define HOPT_MALLOC_IS_REPLACED 1
#endif
TEST(HeapPolicyTest, LargeBlocksComeFromTheHeapAndAreReused) {
#if defined(HOPT_MALLOC_IS_REPLACED)
  KeepFreedMemoryForReuse();  // must at least be harmless
  GTEST_SKIP() << "malloc is not glibc's here (sanitizer runtime): nothing to measure";
#else
  // glibc maps a 64 MB block of its own (one more mmapped chunk) unless
  // the policy is in force; with it the block is heap memory, and freeing
  // it keeps the memory for the next one.
  constexpr size_t kLarge = size_t{64} << 20;
  KeepFreedMemoryForReuse();
  size_t mapped_before = mallinfo2().hblks;
  void* block = std::malloc(kLarge);
  ASSERT_NE(block, nullptr);
  static_cast<volatile char*>(block)[kLarge - 1] = 1;
  EXPECT_EQ(mallinfo2().hblks, mapped_before);
  size_t arena_with_block = mallinfo2().arena;
  std::free(block);
  void* again = std::malloc(kLarge);
  ASSERT_NE(again, nullptr);
  EXPECT_EQ(mallinfo2().arena, arena_with_block);  // not grown: the freed block was reused
  std::free(again);
#endif
}

TEST(HeapPolicyTest, SmallFreedBlocksAreNotLeftForALaterSweep) {
#if defined(HOPT_MALLOC_IS_REPLACED)
  KeepFreedMemoryForReuse();  // must at least be harmless
  GTEST_SKIP() << "malloc is not glibc's here (sanitizer runtime): nothing to measure";
#else
  // glibc's fast bins would keep these (past the few its per-thread cache
  // takes) unmerged until a large request sweeps them all.
  KeepFreedMemoryForReuse();
  std::vector<void*> blocks;
  for (int k = 0; k < 200; ++k) blocks.push_back(std::malloc(40));
  for (void* block : blocks) std::free(block);
  EXPECT_EQ(mallinfo2().fsmblks, 0u);
#endif
}

}  // namespace
}  // namespace hopt
