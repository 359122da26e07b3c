// SPDX-License-Identifier: Apache-2.0
// NameTable: the (stem, number) split must keep every distinct name distinct,
// and fresh names must never collide with parsed ones.
#include "core/ir/name_table.h"

#include <string>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "core/proto/convert.h"
#include "gtest/gtest.h"
#include "hopt/ir/module.h"
#include "hopt/ir/parser.h"

namespace hopt {
namespace {

TEST(NameTableTest, NamesThatSplitAlikeStayDistinct) {
  StringArena arena;
  NameTable table(&arena);
  // Each pair differs only in how its digits would be read.
  const char* names[] = {"v0",
                         "v00",
                         "v000",
                         "v7",
                         "v07",
                         "v007",
                         "v",
                         "v.",
                         "v.0",
                         "v.00",
                         "a1.2",
                         "a1.02",
                         "a12",
                         "a1",
                         "1",
                         "01",
                         "",
                         "x.99999999999999999999",
                         "x.99999999999999999998"};
  for (const char* name : names) EXPECT_TRUE(table.Insert(name)) << name;
  for (const char* name : names) EXPECT_FALSE(table.Insert(name)) << name;
  for (const char* name : names) EXPECT_TRUE(table.Contains(name)) << name;
  for (const char* other : {"v1", "v0000", "v.1", "a1.1", "a2", "0", "001", "x.9"})
    EXPECT_FALSE(table.Contains(other)) << other;
}

TEST(NameTableTest, NextNumberSkipsTakenNumbersAndNeverRepeats) {
  StringArena arena;
  NameTable table(&arena);
  for (const char* name : {"add.1", "add.2", "add.4", "add.1000000"}) table.Insert(name);
  std::string stem = "add.";
  EXPECT_EQ(table.TakeNextNumber(stem), 3);
  stem = "junk";  // the table keeps its own copy of the stem
  EXPECT_EQ(table.TakeNextNumber("add."), 5);
  EXPECT_TRUE(table.Contains("add.5"));
  EXPECT_FALSE(table.Insert("add.3"));
  EXPECT_TRUE(table.Contains("add.1000000"));
  EXPECT_FALSE(table.Contains("add.999999"));
}

TEST(NameTableTest, SparseAndDenseNumbersMix) {
  StringArena arena;
  NameTable table(&arena);
  absl::flat_hash_set<std::string> inserted;
  // Far-apart numbers go to the sparse set, then the bitmap grows past them.
  for (int64_t n : {int64_t{5}, int64_t{1} << 40, int64_t{70000}, int64_t{3}, int64_t{100000}}) {
    std::string name = absl::StrCat("p.", n);
    EXPECT_TRUE(table.Insert(name));
    inserted.insert(name);
  }
  for (int i = 0; i < 20000; ++i) {
    std::string name = absl::StrCat("p.", table.TakeNextNumber("p."));
    EXPECT_TRUE(inserted.insert(name).second) << name;
  }
  for (const std::string& name : inserted) EXPECT_TRUE(table.Contains(name)) << name;
  EXPECT_FALSE(table.Contains("p.20006"));
}

TEST(NameTableTest, ModuleNamesNeverCollideWithParsedOnes) {
  auto module = ParseHloModule(R"(
HloModule m
ENTRY main {
  add = f32[] parameter(0)
  add.1 = f32[] add(add, add)
  add.3 = f32[] add(add.1, add.1)
  add.01 = f32[] add(add.3, add.3)
  ROOT add.1.1 = f32[] add(add.01, add.01)
})");
  ASSERT_TRUE(module.ok()) << module.status();
  HloModule& m = **module;
  EXPECT_EQ(m.UniqueName("add"), "add.2");
  EXPECT_EQ(m.UniqueName("add"), "add.4");
  EXPECT_EQ(m.UniqueName("add.1"), "add.1.2");
  EXPECT_EQ(m.UniqueName("add.01"), "add.01.1");
  EXPECT_EQ(m.UniqueName("mul"), "mul");
  EXPECT_EQ(m.UniqueName("mul"), "mul.1");
  EXPECT_EQ(m.UniqueName("main"), "main.1");
}

TEST(NameTableTest, ModulesReadFromProtosKnowTheirNames) {
  // Readers record each name as they create it; a module read from a proto
  // must avoid its names as one read from text does.
  auto parsed = ParseHloModule(R"(
HloModule m
ENTRY main {
  add = f32[] parameter(0)
  add.1 = f32[] add(add, add)
  ROOT mul = f32[] multiply(add.1, add.1)
})");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  xla::HloModuleProto proto;
  ASSERT_TRUE(ModuleToProto(**parsed, &proto).ok());
  auto read = ModuleFromProto(&proto);
  ASSERT_TRUE(read.ok()) << read.status();
  HloModule& m = **read;
  EXPECT_EQ(m.UniqueName("add"), "add.2");
  EXPECT_EQ(m.UniqueName("mul"), "mul.1");
  EXPECT_EQ(m.UniqueName("main"), "main.1");
  EXPECT_EQ(m.UniqueName("sub"), "sub");
}

TEST(NameTableTest, RunsOfNamesWithManyStems) {
  // Names in runs that share a stem (the table remembers the last stems)
  // across more stems than the table starts with (it grows and moves them).
  StringArena arena;
  NameTable table(&arena);
  for (int stem = 0; stem < 2000; ++stem)
    for (int k = 1; k <= 5; ++k) EXPECT_TRUE(table.Insert(absl::StrCat("c", stem, "_", k)));
  for (int stem = 0; stem < 2000; stem += 7) {
    EXPECT_TRUE(table.Contains(absl::StrCat("c", stem, "_5")));
    EXPECT_FALSE(table.Contains(absl::StrCat("c", stem, "_6")));
    EXPECT_EQ(table.TakeNextNumber(absl::StrCat("c", stem, "_")), 6);
    EXPECT_FALSE(table.Insert(absl::StrCat("c", stem, "_3")));
  }
}

}  // namespace
}  // namespace hopt
