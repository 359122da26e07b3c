// SPDX-License-Identifier: Apache-2.0
// Tests for core/ir/tooling/input_limits.h: files and inflated .pb.gz bytes over
// -max-input-size are refused before they are held in memory whole; text
// that starts as binary data is refused at its first bytes.

#include "core/ir/tooling/input_limits.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/ir/growing_bytes.h"
#include "core/ir/tooling/mapped_file.h"
#include "core/proto/tooling/io.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hopt/ir/parser.h"
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
  void TearDown() override {
    SetMaxInputBytes(kDefaultMaxInputBytes);
    for (const std::string& path : written_) unlink(path.c_str());
  }

  // A file in the test's temporary directory, removed when the test ends.
  std::string WriteFile(absl::string_view name, absl::string_view bytes) {
    std::string path = absl::StrCat(::testing::TempDir(), "/input_limits_", getpid(), "_", name);
    FILE* f = std::fopen(path.c_str(), "wb");
    EXPECT_NE(f, nullptr);
    if (f == nullptr) return path;
    std::fwrite(bytes.data(), 1, bytes.size(), f);
    std::fclose(f);
    written_.push_back(path);
    return path;
  }

 private:
  std::vector<std::string> written_;
};

TEST_F(InputLimitsTest, DefaultIsTwoGibibytes) { EXPECT_EQ(MaxInputBytes(), uint64_t{2} << 30); }

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
  EXPECT_EQ(file.status().message(), absl::StrCat("'", path, "' is ", sizeof(kModule) - 1,
                                                  " bytes, over the input limit of ",
                                                  sizeof(kModule) - 2, " bytes (-max-input-size)"));
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
  EXPECT_THAT(
      read.status().message(),
      HasSubstr(absl::StrCat("m.pb.gz: error: the gzip data inflates past the input limit of ",
                             plain->size() - 1, " bytes (-max-input-size)")));
  SetMaxInputBytes(plain->size());
  EXPECT_TRUE(ModuleFromProtoBinary(*gzipped, "m.pb.gz").ok());
}

TEST_F(InputLimitsTest, TextWithANulByteIsRefusedAtOnce) {
  std::string binary("HloModule m\n\0rest", 17);
  std::string path = WriteFile("nul.hlo", binary);
  auto file = MappedFile::Open(path, MappedFile::Content::kText);
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(file.status().message(),
            absl::StrCat("cannot read '", path,
                         "' as HLO text: it has a NUL byte at offset 12 "
                         "(binary data; a binary HloProto needs -input-format=pb)"));
  EXPECT_EQ(ParseHloModuleFromFile(path, "x.hlo").status().code(), absl::StatusCode::kDataLoss);
  // The same bytes as anything else are read.
  EXPECT_TRUE(MappedFile::Open(path).ok());
}

TEST_F(InputLimitsTest, ABinaryProtoStartingWithFieldZeroIsRefusedAtOnce) {
  std::string path = WriteFile("zero.pb", std::string("\x02\x0a\x00", 3));
  auto file = MappedFile::Open(path, MappedFile::Content::kProto);
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.status().message(),
            absl::StrCat("cannot read '", path,
                         "' as a binary HloProto: its first byte, 2, starts no protobuf message"));
  EXPECT_EQ(ReadHloModuleFile(path, "zero.pb", HloFileFormat::kProto).status().code(),
            absl::StatusCode::kDataLoss);
  // gzip (0x1f) and a field-1 tag (0x0a) pass.
  EXPECT_TRUE(MappedFile::Open(WriteFile("gz.pb", "\x1f\x8b"), MappedFile::Content::kProto).ok());
  EXPECT_TRUE(MappedFile::Open(WriteFile("f1.pb", "\x0a\x00"), MappedFile::Content::kProto).ok());
}

TEST_F(InputLimitsTest, DevZeroAsTextStopsAtTheFirstChunk) {
  auto file = MappedFile::Open("/dev/zero", MappedFile::Content::kText);
  ASSERT_FALSE(file.ok());
  EXPECT_THAT(file.status().message(), HasSubstr("NUL byte at offset 0"));
}

TEST_F(InputLimitsTest, DevZeroAsBytesStopsOneByteOverTheLimit) {
  SetMaxInputBytes(3 << 20);
  auto file = MappedFile::Open("/dev/zero");
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.status().message(),
            "'/dev/zero' is longer than the input limit of 3145728 bytes (-max-input-size)");
}

TEST_F(InputLimitsTest, FifoIsReadWhole) {
  std::string path = absl::StrCat(::testing::TempDir(), "/input_limits_", getpid(), "_fifo");
  unlink(path.c_str());
  ASSERT_EQ(mkfifo(path.c_str(), 0600), 0);
  pid_t writer = fork();
  if (writer == 0) {
    int fd = open(path.c_str(), O_WRONLY);
    ssize_t written = write(fd, kModule, sizeof(kModule) - 1);
    _exit(written == static_cast<ssize_t>(sizeof(kModule) - 1) ? 0 : 1);
  }
  auto file = MappedFile::Open(path, MappedFile::Content::kText);
  ASSERT_TRUE(file.ok()) << file.status();
  EXPECT_EQ((*file)->bytes(), absl::string_view(kModule));
  int status = 0;
  waitpid(writer, &status, 0);
  unlink(path.c_str());
}

TEST(GrowingBytesTest, GrowsUpToTheCapacityAskedAndKeepsTheBytes) {
  GrowingBytes bytes;
  EXPECT_EQ(bytes.capacity(), 0u);
  const size_t cap = (size_t{200} << 20) + 3;
  std::vector<size_t> starts;  // each block's first byte, marked
  while (bytes.capacity() < cap) {
    ASSERT_TRUE(bytes.Grow(cap).ok());
    starts.push_back(bytes.size());
    *bytes.end() = static_cast<char>(starts.size());
    bytes.Commit(bytes.available());
  }
  EXPECT_EQ(bytes.capacity(), cap);
  EXPECT_EQ(bytes.size(), cap);
  GrowingBytes moved = std::move(bytes);
  EXPECT_EQ(bytes.size(), 0u);
  ASSERT_EQ(moved.view().size(), cap);
  // Every mark survived the moves of the mapping.
  for (size_t k = 0; k < starts.size(); ++k)
    EXPECT_EQ(moved.view()[starts[k]], static_cast<char>(k + 1));
}

}  // namespace
}  // namespace hopt
