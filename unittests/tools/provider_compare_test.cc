// SPDX-License-Identifier: Apache-2.0
// The pure helpers of hopt -compare-with (tools/common/provider_compare.h): its
// exit statuses, how it is spotted on the command line, and the names of
// the files -compare-keep writes.

#include "tools/common/provider_compare.h"

#include <vector>

#include "absl/status/status.h"
#include "gtest/gtest.h"

namespace hopt {
namespace tools {
namespace {

TEST(CompareExitStatusTest, DifferenceIsOneAndEveryOtherErrorTwo) {
  EXPECT_EQ(CompareExitStatus(absl::OkStatus()), 0);
  absl::Status differs = CompareDifferenceError("compare: 1 differ: 'p'");
  EXPECT_EQ(differs.message(), "compare: 1 differ: 'p'");
  EXPECT_EQ(CompareExitStatus(differs), 1);
  // The same code and message without the mark: a failure to run.
  EXPECT_EQ(CompareExitStatus(absl::FailedPreconditionError("compare: 1 differ: 'p'")), 2);
  EXPECT_EQ(CompareExitStatus(absl::InvalidArgumentError("-compare-sets ...")), 2);
  EXPECT_EQ(CompareExitStatus(absl::InternalError("crashed")), 2);
}

bool Given(std::vector<const char*> args) {
  args.insert(args.begin(), "hopt");
  return CompareWithGiven(static_cast<int>(args.size()), args.data());
}

TEST(CompareWithGivenTest, EverySpelling) {
  EXPECT_TRUE(Given({"-compare-with=x.so", "in.hlo"}));
  EXPECT_TRUE(Given({"--compare-with=x.so"}));
  EXPECT_TRUE(Given({"in.hlo", "-compare-with", "x.so"}));
  EXPECT_FALSE(Given({"in.hlo"}));
  EXPECT_FALSE(Given({"-compare-with="}));
  EXPECT_FALSE(Given({"-compare-with"}));
  EXPECT_FALSE(Given({"-compare-with", ""}));
  EXPECT_FALSE(Given({"-compare-sets=2", "-compare-keep=d"}));
  EXPECT_FALSE(Given({"-compare-without=x"}));
  EXPECT_FALSE(Given({"--", "-compare-with=x.so"}));
}

TEST(KeepFileNameTest, NumberedFromOneWithSafeNames) {
  EXPECT_EQ(KeepFileName(0, "test-noop", "ours"), "01-test-noop.ours.hlo");
  EXPECT_EQ(KeepFileName(11, "neuron_add_boundary_marker", "theirs"),
            "12-neuron_add_boundary_marker.theirs.hlo");
  EXPECT_EQ(KeepFileName(99, "a", "ours"), "100-a.ours.hlo");
  EXPECT_EQ(KeepFileName(1, "../x/y{k=v}", "ours"), "02-.._x_y_k_v_.ours.hlo");
  EXPECT_EQ(KeepFileName(1, "", "ours"), "02-_.ours.hlo");
}

}  // namespace
}  // namespace tools
}  // namespace hopt
