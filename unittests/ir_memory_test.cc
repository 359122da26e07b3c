// The IR's compact storage: pointer lists in one word, attribute lists at
// their size, attribute values shared while they recur and never collected
// in a table that grows with every unique value. Each behaves as the plain
// container it replaces.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/ir/builder.h"
#include "core/ir/module.h"
#include "core/ir/parser.h"
#include "core/ir/pointer_list.h"
#include "core/ir/string_arena.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

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
  for (int k = 0; k < 20000; ++k) saved.push_back(arena.InternValue(absl::StrCat("channel_id=", 1000000 + k)));
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
  HloInstruction* built = entry->AddInstruction(HloOpcode::kAllGather, Shape(PrimitiveType::F32, {32}), {p});
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

}  // namespace
}  // namespace hopt
