// Tests for core/ir/input_limits.h: files and inflated .pb.gz bytes over
// -max-input-size are refused before they are held in memory whole.

#include <unistd.h>

#include <cstdio>
#include <string>

#include "absl/strings/str_cat.h"
#include "core/ir/input_limits.h"
#include "core/ir/mapped_file.h"
#include "core/ir/parser.h"
#include "core/ir/proto_io.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "unittests/test_util.h"

namespace hopt {
namespace {

using ::testing::HasSubstr;
using testing_util::ParseOrFail;

constexpr char kModule[] = R"(HloModule small

ENTRY e {
  p = f32[4] parameter(0)
  ROOT n = f32[4] negate(p)
}
)";

// Restores the process-wide limit whatever a test set.
class InputLimitsTest : public ::testing::Test {
 protected:
  void TearDown() override { SetMaxInputBytes(kDefaultMaxInputBytes); }

  std::string WriteFile(absl::string_view name, absl::string_view bytes) {
    std::string path = absl::StrCat(::testing::TempDir(), "/input_limits_", getpid(), "_", name);
    FILE* f = std::fopen(path.c_str(), "wb");
    EXPECT_NE(f, nullptr);
    std::fwrite(bytes.data(), 1, bytes.size(), f);
    std::fclose(f);
    return path;
  }
};

TEST_F(InputLimitsTest, DefaultIsFourGibibytes) {
  EXPECT_EQ(MaxInputBytes(), uint64_t{4} << 30);
}

TEST_F(InputLimitsTest, FileAtTheLimitIsReadOneByteOverIsNot) {
  std::string path = WriteFile("exact.hlo", kModule);
  SetMaxInputBytes(sizeof(kModule) - 1);
  auto file = MappedFile::Open(path);
  ASSERT_TRUE(file.ok()) << file.status();
  EXPECT_EQ((*file)->bytes().size(), sizeof(kModule) - 1);
  SetMaxInputBytes(sizeof(kModule) - 2);
  file = MappedFile::Open(path);
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(file.status().message(),
            absl::StrCat("'", path, "' is ", sizeof(kModule) - 1,
                         " bytes, over the input limit of ", sizeof(kModule) - 2,
                         " bytes (-max-input-size)"));
  // The text parser and the proto reader go through the same check.
  EXPECT_EQ(ParseHloModuleFromFile(path, "x.hlo").status().code(),
            absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(ReadHloModuleFile(path, "x.pb", HloFileFormat::kProto).status().code(),
            absl::StatusCode::kResourceExhausted);
}

TEST_F(InputLimitsTest, ZeroMeansNoLimit) {
  std::string path = WriteFile("nolimit.hlo", kModule);
  SetMaxInputBytes(0);
  EXPECT_TRUE(ParseHloModuleFromFile(path, "x.hlo").ok());
}

TEST_F(InputLimitsTest, GzipThatInflatesPastTheLimitIsRefused) {
  auto module = ParseOrFail(kModule);
  ASSERT_NE(module, nullptr);
  auto plain = ModuleToProtoBinary(*module);
  auto gzipped = ModuleToProtoBinary(*module, /*gzip=*/true);
  ASSERT_TRUE(plain.ok() && gzipped.ok());
  // The compressed bytes are within the limit, what they inflate to is not.
  SetMaxInputBytes(plain->size() - 1);
  ASSERT_LT(gzipped->size(), plain->size() - 1);
  auto read = ModuleFromProtoBinary(*gzipped, "m.pb.gz");
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(read.status().message(),
              HasSubstr(absl::StrCat("m.pb.gz: error: the gzip data inflates past the input limit of ",
                                     plain->size() - 1, " bytes (-max-input-size)")));
  SetMaxInputBytes(plain->size());
  EXPECT_TRUE(ModuleFromProtoBinary(*gzipped, "m.pb.gz").ok());
}

}  // namespace
}  // namespace hopt
