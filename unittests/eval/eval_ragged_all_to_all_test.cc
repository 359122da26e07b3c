// SPDX-License-Identifier: Apache-2.0
// Tests for ragged-all-to-all on the multi-device interpreter
// (core/eval/ragged_all_to_all.h): whole modules on 2- and 4-device meshes
// with s32 and s64 metadata, several updates per peer, replica groups in
// their order, zero sizes, overlapping updates, and every refusal. The
// expected values are worked out by hand in the comments.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "core/eval/ragged_all_to_all.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hopt/eval/evaluator.h"
#include "hopt/ir/literal.h"
#include "hopt/ir/module.h"
#include "hopt/ir/shape.h"
#include "unittests/eval/collective_test_util.h"
#include "unittests/test_util.h"

namespace hopt {
namespace eval {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// One device's six operands: data as f32 unless the shapes say otherwise.
struct RaggedArgs {
  Literal input, output;
  Literal input_offsets, send_sizes, output_offsets, recv_sizes;

  std::vector<Literal> AsArguments() const {
    return {input, output, input_offsets, send_sizes, output_offsets, recv_sizes};
  }
};

Literal Metadata(PrimitiveType type, const Values& values) {
  return MakeArray(type, {static_cast<int64_t>(values.size())}, values);
}

// A module whose entry passes its six parameters to one ragged-all-to-all.
std::string RaggedModule(const std::string& header, const std::string& data_in,
                         const std::string& data_out, const std::string& metadata,
                         const std::string& attributes) {
  return absl::StrCat("HloModule m, ", header, "\n\nENTRY e {\n  input = ", data_in,
                      " parameter(0)\n  output = ", data_out, " parameter(1)\n  io = ", metadata,
                      " parameter(2)\n  ss = ", metadata, " parameter(3)\n  oo = ", metadata,
                      " parameter(4)\n  rs = ", metadata, " parameter(5)\n  ROOT r = ", data_out,
                      " ragged-all-to-all(input, output, io, ss, oo, rs), ", attributes, "\n}\n");
}

std::vector<std::vector<Literal>> Arguments(const std::vector<RaggedArgs>& devices) {
  std::vector<std::vector<Literal>> arguments;
  for (const RaggedArgs& d : devices) arguments.push_back(d.AsArguments());
  return arguments;
}

absl::Status RunError(const std::string& text, const std::vector<RaggedArgs>& devices,
                      int64_t replicas, int64_t partitions) {
  std::unique_ptr<HloModule> module = testing_util::ParseOrFail(text);
  if (module == nullptr) return absl::InternalError("no module");
  absl::StatusOr<std::vector<Literal>> outputs =
      RunModule(*module, Arguments(devices), MeshOptions(replicas, partitions));
  return outputs.status();
}

// ---------------------------------------------------------------------------
// Two devices, one update per peer, rows of two elements

// Device 0 input rows {0,1} {2,3} {4,5} {6,7}; device 1 the same + 100.
// Device 0 sends row 0 to itself at row 0 and rows 1..3 to device 1 at
// row 0; device 1 sends rows 2..3 to device 0 at row 1 and row 0 to itself
// at row 3. Outputs start as -1 (device 0) and -2 (device 1).
std::vector<RaggedArgs> TwoDeviceArgs(PrimitiveType metadata) {
  std::vector<RaggedArgs> devices;
  devices.push_back({MakeArray(PrimitiveType::F32, {4, 2}, DeviceIota(0, 8)),
                     MakeArray(PrimitiveType::F32, {5, 2}, Values(10, -1)),
                     Metadata(metadata, {0, 1}), Metadata(metadata, {1, 3}),
                     Metadata(metadata, {0, 0}), Metadata(metadata, {1, 2})});
  devices.push_back({MakeArray(PrimitiveType::F32, {4, 2}, DeviceIota(1, 8)),
                     MakeArray(PrimitiveType::F32, {5, 2}, Values(10, -2)),
                     Metadata(metadata, {2, 0}), Metadata(metadata, {2, 1}),
                     Metadata(metadata, {1, 3}), Metadata(metadata, {3, 1})});
  return devices;
}

const std::vector<Values> kTwoDeviceExpected = {
    {0, 1, 104, 105, 106, 107, -1, -1, -1, -1},
    {2, 3, 4, 5, 6, 7, 100, 101, -2, -2},
};

TEST(RaggedAllToAllTest, TwoDevicesS32Metadata) {
  std::string text =
      RaggedModule("replica_count=2", "f32[4,2]", "f32[5,2]", "s32[2]", "replica_groups={{0,1}}");
  ExpectPerDevice(RunOrFail(text, Arguments(TwoDeviceArgs(PrimitiveType::S32)), 2, 1),
                  kTwoDeviceExpected);
}

TEST(RaggedAllToAllTest, TwoDevicesS64MetadataAndEmptyGroups) {
  std::string text =
      RaggedModule("replica_count=2", "f32[4,2]", "f32[5,2]", "s64[2]", "replica_groups={}");
  ExpectPerDevice(RunOrFail(text, Arguments(TwoDeviceArgs(PrimitiveType::S64)), 2, 1),
                  kTwoDeviceExpected);
}

// ---------------------------------------------------------------------------
// Four devices, two updates per peer, s64 metadata

// Device d's input is 100d + {0..7}. To peer j it sends update 0, one row at
// input row j, and update 1, (d + j) % 2 rows at input row 4 + j; they land
// at rows d and 4 + d of j's output (which starts as -1). Entry j * 2 + u of
// the metadata is update u to peer j, so
//   io = {0,4, 1,5, 2,6, 3,7}, ss = {1,(d+0)%2, 1,(d+1)%2, ...},
//   oo = {d,4+d, d,4+d, ...}, rs = {1,(0+d)%2, 1,(1+d)%2, ...} (from sender s).
// Receiver j: row s = 100s + j; row 4 + s = 100s + 4 + j when s + j is odd.
TEST(RaggedAllToAllTest, FourDevicesTwoUpdatesPerPeer) {
  std::vector<RaggedArgs> devices;
  for (int64_t d = 0; d < 4; ++d) {
    Values io, ss, oo, rs;
    for (int64_t j = 0; j < 4; ++j) {
      io.insert(io.end(), {double(j), double(4 + j)});
      ss.insert(ss.end(), {1, double((d + j) % 2)});
      oo.insert(oo.end(), {double(d), double(4 + d)});
      rs.insert(rs.end(), {1, double((j + d) % 2)});
    }
    devices.push_back({F32(DeviceIota(d, 8)), F32(Values(8, -1)), Metadata(PrimitiveType::S64, io),
                       Metadata(PrimitiveType::S64, ss), Metadata(PrimitiveType::S64, oo),
                       Metadata(PrimitiveType::S64, rs)});
  }
  std::string text =
      RaggedModule("replica_count=4", "f32[8]", "f32[8]", "s64[8]", "replica_groups={{0,1,2,3}}");
  ExpectPerDevice(RunOrFail(text, Arguments(devices), 4, 1), {{0, 100, 200, 300, -1, 104, -1, 304},
                                                              {1, 101, 201, 301, 5, -1, 205, -1},
                                                              {2, 102, 202, 302, -1, 106, -1, 306},
                                                              {3, 103, 203, 303, 7, -1, 207, -1}});
}

// ---------------------------------------------------------------------------
// Groups, channels and the group order

// channel_id on a 1x4 mesh: groups of partition ids, {2,0} in that order
// and {1,3}. Device d's input is {10d, 10d+1}; the member at position p
// sends input row q to position q at output row p (io = {0,1}, ss = rs =
// {1,1}, oo = {p,p}). Position q's output: row p = position p's input[q].
//   group {2,0}: device 2 (q=0) {20, 0}, device 0 (q=1) {21, 1}
//   group {1,3}: device 1 (q=0) {10, 30}, device 3 (q=1) {11, 31}
TEST(RaggedAllToAllTest, CrossPartitionGroupsKeepTheirOrder) {
  const int64_t position[4] = {1, 0, 0, 1};
  std::vector<RaggedArgs> devices;
  for (int64_t d = 0; d < 4; ++d) {
    double p = double(position[d]);
    devices.push_back({F32({10.0 * d, 10.0 * d + 1}), F32(Values(4, -1)), S32({0, 1}), S32({1, 1}),
                       S32({p, p}), S32({1, 1})});
  }
  std::string text = RaggedModule("num_partitions=4", "f32[2]", "f32[4]", "s32[2]",
                                  "channel_id=1, replica_groups={{2,0},{1,3}}");
  ExpectPerDevice(RunOrFail(text, Arguments(devices), 1, 4),
                  {{21, 1, -1, -1}, {10, 30, -1, -1}, {20, 0, -1, -1}, {11, 31, -1, -1}});
}

// Without a channel the groups are of replica ids, within each partition:
// on a 2x2 mesh devices {0,2} (partition 0) and {1,3} (partition 1). Each
// sends its one row to the other member's row 0 and nothing to itself.
TEST(RaggedAllToAllTest, CrossReplicaOn2x2) {
  std::vector<RaggedArgs> devices;
  for (int64_t d = 0; d < 4; ++d) {
    bool first = d < 2;  // replica 0: position 0 of its group
    devices.push_back({F32({7.0 + d}), F32(Values(2, -1)), S32({0, 0}),
                       S32({first ? 0.0 : 1.0, first ? 1.0 : 0.0}), S32({0, 0}),
                       S32({first ? 0.0 : 1.0, first ? 1.0 : 0.0})});
  }
  std::string text = RaggedModule("replica_count=2, num_partitions=2", "f32[1]", "f32[2]", "s32[2]",
                                  "replica_groups={}");
  ExpectPerDevice(RunOrFail(text, Arguments(devices), 2, 2), {{9, -1}, {10, -1}, {7, -1}, {8, -1}});
}

// ---------------------------------------------------------------------------
// Zero sizes, overlaps, element types

// All sizes zero: the output comes back as it was, whatever the offsets
// (an empty update reads and writes nothing).
TEST(RaggedAllToAllTest, ZeroSizesLeaveTheOutputWithAnyOffsets) {
  std::vector<RaggedArgs> devices;
  for (int64_t d = 0; d < 2; ++d)
    devices.push_back({F32({1, 2}), F32({5.0 + d, 6.0 + d, 7.0 + d}), S32({-9, 99}), S32({0, 0}),
                       S32({42, -1}), S32({0, 0})});
  std::string text =
      RaggedModule("replica_count=2", "f32[2]", "f32[3]", "s32[2]", "replica_groups={{0,1}}");
  ExpectPerDevice(RunOrFail(text, Arguments(devices), 2, 1), {{5, 6, 7}, {6, 7, 8}});
}

// Both devices write row 0 of device 0's output: the later sender in group
// order (device 1) wins; device 1's output is untouched.
TEST(RaggedAllToAllTest, OverlappingUpdatesTheLaterSenderWins) {
  std::vector<RaggedArgs> devices;
  devices.push_back({F32({3}), F32({-1, -1}), S32({0, 0}), S32({1, 0}), S32({0, 0}), S32({1, 0})});
  devices.push_back({F32({4}), F32({-2, -2}), S32({0, 0}), S32({1, 0}), S32({0, 0}), S32({1, 0})});
  // Device 0 receives one row from each of 0 and 1.
  devices[0].recv_sizes = S32({1, 1});
  devices[1].recv_sizes = S32({0, 0});
  std::string text =
      RaggedModule("replica_count=2", "f32[1]", "f32[2]", "s32[2]", "replica_groups={{0,1}}");
  ExpectPerDevice(RunOrFail(text, Arguments(devices), 2, 1), {{4, -1}, {-2, -2}});
}

// Integer data with rank-3 rows (each row is a 2x2 block) and a group of
// one: the op is then a dynamic-update-slice of dynamic size. Rows 1..2 of
// the input land at rows 0..1 of the output.
TEST(RaggedAllToAllTest, SingletonGroupWithS8RowsOfRankTwo) {
  RaggedArgs args{MakeArray(PrimitiveType::S8, {3, 2, 2}, DeviceIota(0, 12)),
                  MakeArray(PrimitiveType::S8, {3, 2, 2}, Values(12, -5)),
                  S32({1}),
                  S32({2}),
                  S32({0}),
                  S32({2})};
  std::string text =
      RaggedModule("replica_count=1", "s8[3,2,2]", "s8[3,2,2]", "s32[1]", "replica_groups={{0}}");
  ExpectPerDevice(RunOrFail(text, Arguments({args}), 1, 1),
                  {{4, 5, 6, 7, 8, 9, 10, 11, -5, -5, -5, -5}});
}

// The array function on its own: pred data, u32 metadata, a group of two
// where only device 1's result is made.
TEST(RaggedAllToAllTest, ArrayFunctionWithPredData) {
  Literal in0 = MakeArray(PrimitiveType::PRED, {3}, {1, 0, 0});
  Literal in1 = MakeArray(PrimitiveType::PRED, {3}, {0, 1, 1});
  Literal out = MakeArray(PrimitiveType::PRED, {3}, {1, 0, 0});
  // Device 0 sends rows 0 and 2 (two updates) to device 1 at rows 2 and 0;
  // device 1 sends itself row 1 at row 1.
  auto u32 = [](const Values& values) { return Metadata(PrimitiveType::U32, values); };
  Literal io0 = u32({0, 0, 0, 2}), ss0 = u32({0, 0, 1, 1}), oo0 = u32({0, 0, 2, 0}),
          rs0 = u32({0, 0, 0, 0});
  Literal io1 = u32({0, 0, 1, 0}), ss1 = u32({0, 0, 1, 0}), oo1 = u32({0, 0, 1, 0}),
          rs1 = u32({1, 1, 1, 0});
  std::vector<RaggedAllToAllOperands> group = {{&in0, &out, &io0, &ss0, &oo0, &rs0},
                                               {&in1, &out, &io1, &ss1, &oo1, &rs1}};
  std::vector<int64_t> devices = {0, 1};
  absl::StatusOr<Literal> result = RaggedAllToAll("ra", group, devices, 1);
  ASSERT_TRUE(result.ok()) << result.status();
  // Output {1,0,0}: row 2 <- device 0 row 0 (1), row 0 <- device 0 row 2 (0),
  // row 1 <- device 1 row 1 (1).
  EXPECT_THAT(ValuesOf(*result), ElementsAre(0, 1, 1));
  EXPECT_EQ(result->shape().element_type(), PrimitiveType::PRED);
}

// ---------------------------------------------------------------------------
// Refusals

std::vector<RaggedArgs> OneRowEach() {
  std::vector<RaggedArgs> devices;
  for (int64_t d = 0; d < 2; ++d)
    devices.push_back(
        {F32({1, 2, 3, 4}), F32(Values(4, 0)), S32({0, 0}), S32({1, 1}), S32({0, 1}), S32({1, 1})});
  return devices;
}

const std::string kOneRowEach =
    RaggedModule("replica_count=2", "f32[4]", "f32[4]", "s32[2]", "replica_groups={{0,1}}");

TEST(RaggedAllToAllTest, OneRowEachRunsBeforeItIsBroken) {
  // Each device sends row 0 to both: to device 0 at row 0, to device 1 at row 1.
  ExpectPerDevice(RunOrFail(kOneRowEach, Arguments(OneRowEach()), 2, 1),
                  {{1, 0, 0, 0}, {0, 1, 0, 0}});
}

TEST(RaggedAllToAllTest, InputRowsOutOfRangeAreRefused) {
  std::vector<RaggedArgs> devices = OneRowEach();
  devices[0].input_offsets = S32({0, 3});
  devices[0].send_sizes = S32({1, 2});
  devices[1].recv_sizes = S32({2, 1});
  absl::Status status = RunError(kOneRowEach, devices, 2, 1);
  EXPECT_THAT(status.message(),
              HasSubstr("interpreter: r (ragged-all-to-all): update 0 from device 0 to device 1: "
                        "input_offsets[1]=3 and send_sizes[1]=2 on device 0 leave the 4 rows "
                        "of its input"));
}

TEST(RaggedAllToAllTest, NegativeInputOffsetsAreRefused) {
  std::vector<RaggedArgs> devices = OneRowEach();
  devices[1].input_offsets = S32({-1, 0});
  EXPECT_THAT(RunError(kOneRowEach, devices, 2, 1).message(),
              HasSubstr("input_offsets[0]=-1 and send_sizes[0]=1 on device 1 leave the 4 rows"));
}

TEST(RaggedAllToAllTest, OutputRowsOutOfRangeAreRefused) {
  std::vector<RaggedArgs> devices = OneRowEach();
  devices[1].output_offsets = S32({4, 1});
  EXPECT_THAT(RunError(kOneRowEach, devices, 2, 1).message(),
              HasSubstr("update 0 from device 1 to device 0: output_offsets[0]=4 on device 1 "
                        "and 1 rows leave the 4 rows of device 0's output"));
}

TEST(RaggedAllToAllTest, NegativeSizesAreRefused) {
  std::vector<RaggedArgs> devices = OneRowEach();
  devices[0].send_sizes = S32({-1, 1});
  devices[0].recv_sizes = S32({-1, 1});
  EXPECT_THAT(RunError(kOneRowEach, devices, 2, 1).message(),
              HasSubstr("send_sizes[0]=-1 on device 0 is negative"));
}

TEST(RaggedAllToAllTest, SendAndReceiveSizesMustAgree) {
  std::vector<RaggedArgs> devices = OneRowEach();
  devices[1].recv_sizes = S32({2, 1});
  EXPECT_THAT(RunError(kOneRowEach, devices, 2, 1).message(),
              HasSubstr("update 0 from device 0 to device 1: device 0 sends 1 rows "
                        "(send_sizes[1]) where device 1 receives 2 (recv_sizes[0])"));
}

TEST(RaggedAllToAllTest, EntriesMustSplitAmongTheMembers) {
  std::vector<RaggedArgs> devices;
  for (int64_t d = 0; d < 2; ++d)
    devices.push_back(
        {F32({1}), F32({0}), S32({0, 0, 0}), S32({0, 0, 0}), S32({0, 0, 0}), S32({0, 0, 0})});
  std::string text =
      RaggedModule("replica_count=2", "f32[1]", "f32[1]", "s32[3]", "replica_groups={{0,1}}");
  EXPECT_THAT(RunError(text, devices, 2, 1).message(),
              HasSubstr("the offsets and sizes hold 3 entries, not a multiple of the 2 members"));
}

TEST(RaggedAllToAllTest, RankTwoMetadataIsRefused) {
  RaggedArgs args{F32({1}),
                  F32({0}),
                  MakeArray(PrimitiveType::S32, {1, 1}, {0}),
                  MakeArray(PrimitiveType::S32, {1, 1}, {1}),
                  MakeArray(PrimitiveType::S32, {1, 1}, {0}),
                  MakeArray(PrimitiveType::S32, {1, 1}, {1})};
  std::string text =
      RaggedModule("replica_count=1", "f32[1]", "f32[1]", "s32[1,1]", "replica_groups={}");
  EXPECT_THAT(RunError(text, {args}, 1, 1).message(),
              HasSubstr("input_offsets s32[1,1] is not a vector: only rank-1 offsets and sizes "
                        "are run"));
}

TEST(RaggedAllToAllTest, MismatchedRowsAndMetadataAreRefused) {
  Literal in = MakeArray(PrimitiveType::F32, {2, 3}, Values(6, 1));
  Literal out = MakeArray(PrimitiveType::F32, {2, 2}, Values(4, 0));
  Literal s32 = S32({0}), s64 = Metadata(PrimitiveType::S64, {0, 0}), f = F32({0});
  std::vector<int64_t> devices = {0};
  std::vector<RaggedAllToAllOperands> rows = {{&in, &out, &s32, &s32, &s32, &s32}};
  EXPECT_THAT(RaggedAllToAll("ra", rows, devices, 0).status().message(),
              HasSubstr("ra: the input f32[2,3] and output f32[2,2] must have one element type "
                        "and the same dimensions after dimension 0"));
  std::vector<RaggedAllToAllOperands> shapes = {{&out, &out, &s32, &s32, &s64, &s32}};
  EXPECT_THAT(RaggedAllToAll("ra", shapes, devices, 0).status().message(),
              HasSubstr("output_offsets s64[2] and input_offsets s32[1] must have one shape"));
  std::vector<RaggedAllToAllOperands> floats = {{&out, &out, &s32, &f, &s32, &s32}};
  EXPECT_THAT(RaggedAllToAll("ra", floats, devices, 0).status().message(),
              HasSubstr("send_sizes must be an integer array, got f32[1]"));
  Literal scalar(Shape(PrimitiveType::F32, {}));
  std::vector<RaggedAllToAllOperands> scalars = {{&scalar, &scalar, &s32, &s32, &s32, &s32}};
  EXPECT_THAT(RaggedAllToAll("ra", scalars, devices, 0).status().message(),
              HasSubstr("must be arrays of rank 1 or more"));
}

}  // namespace
}  // namespace eval
}  // namespace hopt
