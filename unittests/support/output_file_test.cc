// SPDX-License-Identifier: Apache-2.0
// include/hopt/support/output_file.h, deferred_outputs.h and signal_cleanup.h:
// what a write does to its target, its temporaries and, on a signal, to
// what it leaves behind.

#include "hopt/support/output_file.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hopt/support/deferred_outputs.h"
#include "hopt/support/signal_cleanup.h"
#include "llvm/Support/FileSystem.h"

namespace hopt {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

class OutputFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = absl::StrCat(::testing::TempDir(), "/output_file_", getpid(), "_",
                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    RemoveTree();
    ASSERT_FALSE(llvm::sys::fs::create_directories(dir_));
  }
  void TearDown() override { RemoveTree(); }

  // Every kind of file the tests make, FIFOs included (a leftover FIFO in
  // a directory of a reused pid would make mkfifo fail).
  void RemoveTree() const {
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }

  std::string Path(const std::string& name) const { return dir_ + "/" + name; }

  std::vector<std::string> Listing(const std::string& dir) const {
    std::vector<std::string> names;
    if (DIR* handle = opendir(dir.c_str())) {
      while (dirent* entry = readdir(handle))
        if (entry->d_name[0] != '.' ||
            (std::string(entry->d_name) != "." && std::string(entry->d_name) != ".."))
          names.push_back(entry->d_name);
      closedir(handle);
    }
    std::sort(names.begin(), names.end());
    return names;
  }

  static std::string Read(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

  static mode_t Mode(const std::string& path) {
    struct stat info;
    EXPECT_EQ(stat(path.c_str(), &info), 0) << path;
    return info.st_mode;
  }

  std::string dir_;
};

TEST_F(OutputFileTest, ANewFileGetsTheUmasksMode) {
  mode_t old = umask(027);
  absl::Status written = WriteOutputFile(Path("new.hlo"), "text");
  umask(old);
  ASSERT_TRUE(written.ok()) << written;
  EXPECT_EQ(Read(Path("new.hlo")), "text");
  EXPECT_EQ(Mode(Path("new.hlo")) & 07777, 0640u);
  EXPECT_THAT(Listing(dir_), ElementsAre("new.hlo"));
}

TEST_F(OutputFileTest, AnExistingFileKeepsItsMode) {
  ASSERT_TRUE(WriteOutputFile(Path("out.hlo"), "old").ok());
  ASSERT_EQ(chmod(Path("out.hlo").c_str(), 0604), 0);
  ASSERT_TRUE(WriteOutputFile(Path("out.hlo"), "new").ok());
  EXPECT_EQ(Read(Path("out.hlo")), "new");
  EXPECT_EQ(Mode(Path("out.hlo")) & 07777, 0604u);
}

TEST_F(OutputFileTest, ASymlinkIsWrittenThroughAndStaysALink) {
  ASSERT_TRUE(llvm::sys::fs::create_directories(Path("real")) == std::error_code());
  ASSERT_TRUE(WriteOutputFile(Path("real/target.hlo"), "old").ok());
  ASSERT_EQ(symlink("real/target.hlo", Path("link.hlo").c_str()), 0);
  absl::Status written = WriteOutputFile(Path("link.hlo"), "new");
  ASSERT_TRUE(written.ok()) << written;
  struct stat info;
  ASSERT_EQ(lstat(Path("link.hlo").c_str(), &info), 0);
  EXPECT_TRUE(S_ISLNK(info.st_mode));
  EXPECT_EQ(Read(Path("real/target.hlo")), "new");
  // The temporary lived next to the target, and is gone.
  EXPECT_THAT(Listing(Path("real")), ElementsAre("target.hlo"));
  EXPECT_THAT(Listing(dir_), ElementsAre("link.hlo", "real"));
}

TEST_F(OutputFileTest, ALinkToAMissingFileIsRefused) {
  ASSERT_EQ(symlink("elsewhere.hlo", Path("dangling.hlo").c_str()), 0);
  absl::Status written = WriteOutputFile(Path("dangling.hlo"), "x");
  ASSERT_FALSE(written.ok());
  EXPECT_THAT(written.message(), HasSubstr("symbolic link to a missing file"));
  EXPECT_THAT(Listing(dir_), ElementsAre("dangling.hlo"));
}

TEST_F(OutputFileTest, AFifoIsWrittenInPlace) {
  const std::string fifo = Path("fifo");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  std::string received;
  std::thread reader([&] { received = Read(fifo); });
  absl::Status written = WriteOutputFile(fifo, "through the pipe");
  reader.join();
  ASSERT_TRUE(written.ok()) << written;
  EXPECT_EQ(received, "through the pipe");
  EXPECT_TRUE(S_ISFIFO(Mode(fifo)));
  EXPECT_THAT(Listing(dir_), ElementsAre("fifo"));
}

TEST_F(OutputFileTest, AFullDeviceIsAnErrorNamingThePath) {
  if (access("/dev/full", W_OK) != 0) GTEST_SKIP() << "no writable /dev/full";
  absl::Status written = WriteOutputFile("/dev/full", "x");
  ASSERT_FALSE(written.ok());
  EXPECT_EQ(written.message(), "cannot write '/dev/full': No space left on device");
  EXPECT_TRUE(S_ISCHR(Mode("/dev/full")));
}

TEST_F(OutputFileTest, AnUncommittedOutputLeavesTheOldFileAndNoTemporary) {
  ASSERT_TRUE(WriteOutputFile(Path("out.hlo"), "old").ok());
  {
    auto file = OutputFile::Open(Path("out.hlo"));
    ASSERT_TRUE(file.ok()) << file.status();
    (*file)->Write("half");
    EXPECT_NE((*file)->working_path(), Path("out.hlo"));
    EXPECT_THAT((*file)->working_path(), HasSubstr("out.hlo.tmp-"));
  }
  EXPECT_EQ(Read(Path("out.hlo")), "old");
  EXPECT_THAT(Listing(dir_), ElementsAre("out.hlo"));
}

TEST_F(OutputFileTest, ADirectoryIsRefused) {
  absl::Status written = WriteOutputFile(dir_, "x");
  ASSERT_FALSE(written.ok());
  EXPECT_THAT(written.message(), HasSubstr("is a directory"));
}

// Runs `body` in a child process, which must die of `signal_number`.
void ExpectDiesOf(int signal_number, const std::function<void()>& body) {
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    body();
    _exit(0);  // not reached when the signal did its work
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status)) << "exit status " << status;
  EXPECT_EQ(WTERMSIG(status), signal_number);
}

TEST_F(OutputFileTest, ASignalRemovesTheTemporary) {
  ASSERT_TRUE(WriteOutputFile(Path("out.hlo"), "old").ok());
  ExpectDiesOf(SIGTERM, [&] {
    auto file = OutputFile::Open(Path("out.hlo"));
    if (!file.ok()) _exit(2);
    (*file)->Write("half");
    kill(getpid(), SIGTERM);
    pause();
  });
  EXPECT_EQ(Read(Path("out.hlo")), "old");
  EXPECT_THAT(Listing(dir_), ElementsAre("out.hlo"));
}

TEST_F(OutputFileTest, ASignalRemovesAStagingDirectoryAndKillsTheChild) {
  const std::string pid_file = Path("child.pid");
  ExpectDiesOf(SIGINT, [&] {
    auto staging = MakeStagingDirectory(Path("split"));
    if (!staging.ok()) _exit(2);
    if (!WriteNewFile(*staging + "/manifest.json", "{}").ok()) _exit(3);
    pid_t child = fork();
    if (child == 0) {
      pause();
      _exit(0);
    }
    KillProcessOnSignal(child);
    if (!WriteNewFile(pid_file, std::to_string(child)).ok()) _exit(4);
    kill(getpid(), SIGINT);
    pause();
  });
  EXPECT_THAT(Listing(dir_), ElementsAre("child.pid"));
  pid_t child = std::stoi(Read(pid_file));
  // Reaped by the handler: no such process any more.
  EXPECT_EQ(kill(child, 0), -1);
}

TEST_F(OutputFileTest, ADeferredDirectoryAppearsOnlyWhenCommitted) {
  const std::string target = Path("split");
  auto staging = MakeStagingDirectory(target);
  ASSERT_TRUE(staging.ok()) << staging.status();
  ASSERT_TRUE(WriteNewFile(*staging + "/manifest.json", "{}").ok());
  ASSERT_TRUE(DeferDirectoryCommit(*staging, target, "manifest.json", "-split-output-dir").ok());
  absl::Status again =
      DeferDirectoryCommit(*staging, target + "/", "manifest.json", "-split-output-dir");
  EXPECT_THAT(again.message(), HasSubstr("already receives an earlier output of this run"));
  EXPECT_FALSE(llvm::sys::fs::exists(target));
  ASSERT_TRUE(CommitDeferredOutputs().ok());
  EXPECT_THAT(Listing(target), ElementsAre("manifest.json"));
  EXPECT_THAT(Listing(dir_), ElementsAre("split"));

  // An earlier split is replaced whole.
  staging = MakeStagingDirectory(target);
  ASSERT_TRUE(staging.ok());
  ASSERT_TRUE(WriteNewFile(*staging + "/manifest.json", "{\"new\": 1}").ok());
  ASSERT_TRUE(DeferDirectoryCommit(*staging, target, "manifest.json", "-split-output-dir").ok());
  ASSERT_TRUE(CommitDeferredOutputs().ok());
  EXPECT_EQ(Read(target + "/manifest.json"), "{\"new\": 1}");
  EXPECT_THAT(Listing(dir_), ElementsAre("split"));
}

TEST_F(OutputFileTest, ADirectoryThatIsNoSplitIsNotReplaced) {
  ASSERT_TRUE(WriteOutputFile(Path("notes.txt"), "mine").ok());
  absl::Status replaceable = CheckReplaceableDirectory(dir_, "manifest.json", "-split-output-dir");
  EXPECT_THAT(replaceable.message(), HasSubstr("is a directory with other files"));

  auto staging = MakeStagingDirectory(Path("other"));
  ASSERT_TRUE(staging.ok());
  ASSERT_TRUE(llvm::sys::fs::create_directories(Path("other/keep")) == std::error_code());
  ASSERT_TRUE(DeferDirectoryCommit(*staging, Path("other"), "manifest.json", "-x").ok());
  EXPECT_FALSE(CommitDeferredOutputs().ok());
  EXPECT_THAT(Listing(Path("other")), ElementsAre("keep"));
  EXPECT_THAT(Listing(dir_), ElementsAre("notes.txt", "other"));
}

TEST_F(OutputFileTest, DiscardedOutputsLeaveNothing) {
  auto staging = MakeStagingDirectory(Path("split"));
  ASSERT_TRUE(staging.ok());
  ASSERT_TRUE(WriteNewFile(*staging + "/stage.hlo", "x").ok());
  ASSERT_TRUE(DeferDirectoryCommit(*staging, Path("split"), "manifest.json", "-x").ok());
  DiscardDeferredOutputs();
  EXPECT_THAT(Listing(dir_), IsEmpty());
}

}  // namespace
}  // namespace hopt
