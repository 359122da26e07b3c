// SPDX-License-Identifier: Apache-2.0
// Builders: inferred shapes, attribute texts in XLA's order, clear errors.

#include "hopt/ir/builder.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hopt/ir/parser.h"
#include "hopt/ir/printer.h"
#include "hopt/ir/verifier.h"
#include "unittests/test_util.h"

namespace hopt {
namespace {

using ::testing::HasSubstr;
using testing_util::ParseOrFail;

constexpr char kModule[] = R"(HloModule b, replica_count=4

ENTRY main {
  x = f32[8,16]{1,0} parameter(0)
  i = s32[] parameter(1)
  ROOT n = f32[8,16]{1,0} negate(x)
}
)";

class BuilderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    module_ = ParseOrFail(kModule);
    ASSERT_NE(module_, nullptr);
    entry_ = module_->entry_computation();
    x_ = entry_->parameter_instruction(0);
    i_ = entry_->parameter_instruction(1);
  }
  std::string Line(const HloInstruction* instruction) {
    return PrintInstruction(*instruction, PrintOptions::Short());
  }
  std::unique_ptr<HloModule> module_;
  HloComputation* entry_ = nullptr;
  HloInstruction* x_ = nullptr;
  HloInstruction* i_ = nullptr;
};

TEST_F(BuilderTest, ElementwiseAndCompare) {
  auto add = MakeBinary(HloOpcode::kAdd, x_, x_);
  ASSERT_TRUE(add.ok()) << add.status();
  EXPECT_EQ(Line(*add), "add = f32[8,16]{1,0} add(x, x)");
  auto cmp = MakeCompare(*add, x_, "GT");
  ASSERT_TRUE(cmp.ok()) << cmp.status();
  EXPECT_EQ(Line(*cmp), "compare = pred[8,16]{1,0} compare(add, x), direction=GT");
  auto sel = MakeSelect(*cmp, x_, *add);
  ASSERT_TRUE(sel.ok());
  EXPECT_EQ((*sel)->shape().ToString(), "f32[8,16]{1,0}");
  EXPECT_FALSE(MakeBinary(HloOpcode::kAdd, x_, i_).ok());
  EXPECT_FALSE(MakeCompare(x_, x_, "BIGGER").ok());
  EXPECT_FALSE(MakeBinary(HloOpcode::kNegate, x_, x_).ok());
}

TEST_F(BuilderTest, ShapeChangingOps) {
  auto reshape = MakeReshape(x_, {128});
  ASSERT_TRUE(reshape.ok());
  EXPECT_EQ(Line(*reshape), "reshape = f32[128]{0} reshape(x)");
  EXPECT_FALSE(MakeReshape(x_, {100}).ok());

  auto bcast = MakeBroadcast(x_, {4, 8, 16}, {1, 2});
  ASSERT_TRUE(bcast.ok()) << bcast.status();
  EXPECT_EQ(Line(*bcast), "broadcast = f32[4,8,16]{2,1,0} broadcast(x), dimensions={1,2}");
  EXPECT_FALSE(MakeBroadcast(x_, {4, 8, 16}, {0, 1}).ok());

  auto transpose = MakeTranspose(x_, {1, 0});
  ASSERT_TRUE(transpose.ok());
  EXPECT_EQ((*transpose)->shape().ToString(), "f32[16,8]{1,0}");

  auto slice = MakeSlice(x_, {0, 4}, {8, 16}, {2, 3});
  ASSERT_TRUE(slice.ok()) << slice.status();
  EXPECT_EQ(Line(*slice), "slice = f32[4,4]{1,0} slice(x), slice={[0:8:2], [4:16:3]}");
  EXPECT_FALSE(MakeSlice(x_, {0, 0}, {9, 16}).ok());

  auto ds = MakeDynamicSlice(x_, {i_, i_}, {1, 16});
  ASSERT_TRUE(ds.ok()) << ds.status();
  EXPECT_EQ(Line(*ds),
            "dynamic-slice = f32[1,16]{1,0} dynamic-slice(x, i, i), dynamic_slice_sizes={1,16}");
  EXPECT_FALSE(MakeDynamicSlice(x_, {i_}, {1, 16}).ok());

  auto cat = MakeConcatenate({x_, x_}, 0);
  ASSERT_TRUE(cat.ok());
  EXPECT_EQ(Line(*cat), "concatenate = f32[16,16]{1,0} concatenate(x, x), dimensions={0}");
  EXPECT_FALSE(MakeConcatenate({x_, i_}, 0).ok());
}

TEST_F(BuilderTest, ReduceConstantsAndTuples) {
  auto add = MakeScalarReduction(module_.get(), HloOpcode::kAdd, PrimitiveType::F32);
  ASSERT_TRUE(add.ok()) << add.status();
  EXPECT_EQ((*add)->num_parameters(), 2);
  auto zero = MakeScalarConstant(entry_, PrimitiveType::F32, 0);
  ASSERT_TRUE(zero.ok());
  EXPECT_EQ(Line(*zero), "constant = f32[] constant(0)");
  auto reduce = MakeReduce(x_, *zero, {1}, *add);
  ASSERT_TRUE(reduce.ok()) << reduce.status();
  EXPECT_EQ(Line(*reduce), "reduce = f32[8]{0} reduce(x, constant), dimensions={1}, to_apply=" +
                               std::string((*add)->name()));

  Literal values(Shape(PrimitiveType::S32, {2, 2}));
  for (int k = 0; k < 4; ++k) values.SetFromInt64(k, k + 1);
  auto matrix = MakeConstant(entry_, values);
  ASSERT_TRUE(matrix.ok());
  EXPECT_EQ((*matrix)->literal_text(), "{ { 1, 2 }, { 3, 4 } }");
  auto read_back = (*matrix)->literal();
  ASSERT_TRUE(read_back.ok());
  EXPECT_EQ(*read_back, values);

  auto tuple = MakeTuple(entry_, {x_, i_});
  ASSERT_TRUE(tuple.ok());
  EXPECT_EQ((*tuple)->shape().ToString(), "(f32[8,16]{1,0}, s32[])");
  auto gte = MakeGetTupleElement(*tuple, 1);
  ASSERT_TRUE(gte.ok());
  EXPECT_EQ(Line(*gte), "get-tuple-element = s32[] get-tuple-element(tuple), index=1");
  EXPECT_FALSE(MakeGetTupleElement(*tuple, 2).ok());

  auto iota = MakeIota(entry_, Shape(PrimitiveType::S32, {4, 3}), 1);
  ASSERT_TRUE(iota.ok());
  EXPECT_EQ(Line(*iota), "iota = s32[4,3]{1,0} iota(), iota_dimension=1");
  EXPECT_FALSE(MakeIota(entry_, Shape(PrimitiveType::S32, {4}), 1).ok());
  EXPECT_EQ(MakeReplicaId(entry_)->shape().ToString(), "u32[]");
  EXPECT_EQ(MakePartitionId(entry_)->shape().ToString(), "u32[]");
}

TEST_F(BuilderTest, Collectives) {
  auto add = MakeScalarReduction(module_.get(), HloOpcode::kAdd, PrimitiveType::F32);
  ASSERT_TRUE(add.ok());
  CollectiveOptions options;
  options.replica_groups = ReplicaGroupList::FromGroups({{0, 1}, {2, 3}});
  options.channel_id = 3;
  options.use_global_device_ids = true;

  auto ag = MakeAllGather(x_, 0, 2, options);
  ASSERT_TRUE(ag.ok()) << ag.status();
  EXPECT_EQ(Line(*ag),
            "all-gather = f32[16,16]{1,0} all-gather(x), channel_id=3, "
            "replica_groups={{0,1},{2,3}}, dimensions={0}, use_global_device_ids=true");

  auto rs = MakeReduceScatter(x_, 1, 2, *add, options);
  ASSERT_TRUE(rs.ok()) << rs.status();
  EXPECT_EQ((*rs)->shape().ToString(), "f32[8,8]{1,0}");
  EXPECT_EQ((*rs)->to_apply(), *add);
  EXPECT_FALSE(MakeReduceScatter(x_, 1, 3, *add, options).ok());  // 16 % 3 != 0

  auto ar = MakeAllReduce({x_}, *add, CollectiveOptions{});
  ASSERT_TRUE(ar.ok());
  EXPECT_EQ(Line(*ar), "all-reduce = f32[8,16]{1,0} all-reduce(x), replica_groups={}, to_apply=" +
                           std::string((*add)->name()));

  auto cc =
      MakeCustomCall(entry_, {x_}, x_->shape(), "AwsNeuronAllGather_f32", R"({"dimension":0})");
  ASSERT_TRUE(cc.ok());
  EXPECT_EQ((*cc)->custom_call_target(), "AwsNeuronAllGather_f32");
  EXPECT_EQ((*cc)->backend_config(), R"({"dimension":0})");
  EXPECT_EQ(
      Line(*cc),
      R"(custom-call = f32[8,16]{1,0} custom-call(x), custom_call_target="AwsNeuronAllGather_f32", backend_config="{\"dimension\":0}")");

  // Everything built above forms a module that verifies and round-trips.
  ASSERT_TRUE(entry_->set_root_instruction(*ag, /*accept_different_shape=*/true).ok());
  module_->set_entry_computation_layout(std::nullopt);
  EXPECT_TRUE(VerifyModule(*module_).ok()) << VerifyModule(*module_);
  std::string printed = PrintModule(*module_);
  auto reparsed = ParseHloModule(printed, "printed");
  ASSERT_TRUE(reparsed.ok()) << reparsed.status() << "\n" << printed;
  EXPECT_EQ(PrintModule(**reparsed), printed);
}

TEST(LiteralTest, IntDataIsTheWrappedValuesOfIntegerArraysOnly) {
  Literal s8(Shape(PrimitiveType::S8, {3}));
  ASSERT_NE(s8.int_data(), nullptr);
  s8.SetFromInt64(1, 200);  // wraps to -56
  EXPECT_EQ(s8.int_data()[1], -56);
  s8.mutable_int_data()[2] = -7;
  EXPECT_EQ(s8.GetAsInt64(2), -7);
  Literal pred(Shape(PrimitiveType::PRED, {2}));
  pred.SetFromInt64(0, 5);
  ASSERT_NE(pred.int_data(), nullptr);
  EXPECT_EQ(pred.int_data()[0], 1);
  // Not an integer array: no int data.
  Literal f32(Shape(PrimitiveType::F32, {2}));
  EXPECT_EQ(f32.int_data(), nullptr);
  EXPECT_EQ(f32.mutable_int_data(), nullptr);
  EXPECT_NE(f32.real_data(), nullptr);
  Literal tuple(Shape::MakeTuple({Shape(PrimitiveType::S32, {2})}));
  EXPECT_EQ(tuple.int_data(), nullptr);
}

TEST(LiteralTest, TupleMovesItsElementsInAndTakesTheShapesLayouts) {
  auto row = Literal::Parse(Shape(PrimitiveType::S32, {2, 2}), "{ { 1, 2 }, { 3, 4 } }");
  auto scalar = Literal::Parse(Shape(PrimitiveType::F32, {}), "1.5");
  ASSERT_TRUE(row.ok() && scalar.ok());
  auto shape = ParseShape("(s32[2,2]{0,1}, f32[])");
  ASSERT_TRUE(shape.ok());
  std::vector<Literal> elements;
  elements.push_back(*std::move(row));
  elements.push_back(*std::move(scalar));
  auto tuple = Literal::Tuple(*shape, std::move(elements));
  ASSERT_TRUE(tuple.ok()) << tuple.status();
  EXPECT_EQ(tuple->shape().ToString(), "(s32[2,2]{0,1}, f32[])");
  // Values stay in logical order: the layout moves none of them.
  EXPECT_EQ(tuple->ToText(), "( { { 1, 2 }, { 3, 4 } }, 1.5 )");
  // Another element type, count or dimension is refused.
  std::vector<Literal> wrong;
  wrong.push_back(Literal(Shape(PrimitiveType::S32, {4})));
  wrong.push_back(Literal(Shape(PrimitiveType::F32, {})));
  EXPECT_THAT(Literal::Tuple(*shape, std::move(wrong)).status().message(),
              HasSubstr("a value of shape s32[4] cannot take shape s32[2,2]"));
  EXPECT_THAT(Literal::Tuple(*shape, {}).status().message(),
              HasSubstr("a tuple of 0 element(s) cannot have shape"));
  Literal plain(Shape(PrimitiveType::F32, {2}));
  EXPECT_FALSE(plain.SetLayoutFrom(Shape(PrimitiveType::F64, {2})).ok());
}

TEST(LiteralTest, ParseFormatAndRound) {
  struct Case {
    const char* shape;
    const char* text;
    const char* printed;
  } cases[] = {
      {"f32[]", "42", "42"},
      {"f32[]", "0.1", "0.1"},
      {"f32[3]", "{1, 2.5, -inf}", "{1, 2.5, -inf}"},
      {"f32[6]", "{nan, 7, nan, -1, inf, -inf}", "{nan, 7, nan, -1, inf, -inf}"},
      {"bf16[]", "500", "500"},
      {"s32[2,3]", "{ { 1, 2, 3 }, { 4, 5, 6 } }", "{ { 1, 2, 3 }, { 4, 5, 6 } }"},
      {"f32[3,2,1,1]",
       "{ { /*i0=0*/ { /*i1=0*/ {-1} }, { /*i1=1*/ {4.1} } }, { /*i0=1*/ { /*i1=0*/ {2} }, { "
       "/*i1=1*/ {4.1} } }, { /*i0=2*/ { /*i1=0*/ {5} }, { /*i1=1*/ {4.4} } } }",
       "{ { /*i0=0*/ { /*i1=0*/ {-1} }, { /*i1=1*/ {4.1} } }, { /*i0=1*/ { /*i1=0*/ {2} }, { "
       "/*i1=1*/ {4.1} } }, { /*i0=2*/ { /*i1=0*/ {5} }, { /*i1=1*/ {4.4} } } }"},
      {"f32[2,0,4,3]", "{ { /*i0=0*/ }, { /*i0=1*/ } }", "{ { /*i0=0*/ }, { /*i0=1*/ } }"},
      {"pred[2]", "{true, false}", "{1, 0}"},
      {"pred[]", "true", "true"},
      {"pred[2,3]", "{ { 0, 1, 0 }, { 1, 0, 1 } }", "{ { 0, 1, 0 }, { 1, 0, 1 } }"},
      {"s32[1,2,3]", "{ { { 1, 2, 3 }, { 4, 5, 6 } } }", "{ { { 1, 2, 3 }, { 4, 5, 6 } } }"},
      {"(f32[2,1], f32[2])", "( { {1}, {2} }, {2, 42} )", "( { {1}, {2} }, {2, 42} )"},
      {"bf16[2]", "{-3.39e+38, 3.39e+38}", "{-3.39e+38, 3.39e+38}"},
      {"bf16[]", "0.0078125", "0.007812"},
      {"f16[2]", "{-65504, 65504}", "{-65504, 65504}"},
      {"c64[]", "(1, -2)", "(1, -2)"},
      {"u64[]", "18446744073709551615", "18446744073709551615"},
      {"s8[2]", "{127, -128}", "{127, -128}"},
      {"f32[2,2]", "7", "{ { 7, 7 }, { 7, 7 } }"},
  };
  for (const Case& c : cases) {
    auto shape = ParseShape(c.shape);
    ASSERT_TRUE(shape.ok()) << c.shape;
    auto literal = Literal::Parse(*shape, c.text);
    ASSERT_TRUE(literal.ok()) << c.shape << " " << c.text << ": " << literal.status();
    EXPECT_EQ(literal->ToText(), c.printed) << c.shape;
    EXPECT_TRUE(Literal::Validate(*shape, c.text).ok());
  }
  // A token holds no element; a literal of one (an interpreter result
  // carrying send-done's token) prints as XLA prints it.
  auto token_tuple = ParseShape("(token[], f32[1])");
  ASSERT_TRUE(token_tuple.ok());
  Literal with_token(*token_tuple);
  EXPECT_EQ(with_token.ToText(), "( token, {0} )");
  // Values round to their element type.
  EXPECT_EQ(RoundToFloatType(1.0 / 3.0, PrimitiveType::BF16), 0.333984375);
  EXPECT_EQ(RoundToFloatType(65520.0, PrimitiveType::F16), INFINITY);
  EXPECT_EQ(RoundToFloatType(65519.0, PrimitiveType::F16), 65504.0);
  EXPECT_TRUE(std::isnan(RoundToFloatType(1000.0, PrimitiveType::F8E4M3FN)));
  EXPECT_EQ(RoundToFloatType(448.0, PrimitiveType::F8E4M3FN), 448.0);
  EXPECT_EQ(WrapToIntegralType(300, PrimitiveType::U8), 44);
  EXPECT_EQ(WrapToIntegralType(200, PrimitiveType::S8), -56);
  EXPECT_EQ(WrapToIntegralType(9, PrimitiveType::S4), -7);
  EXPECT_EQ(FormatFloat(RoundToFloatType(0.1, PrimitiveType::F32), PrimitiveType::F32), "0.1");
  EXPECT_EQ(FormatFloat(RoundToFloatType(1234567.1, PrimitiveType::F32), PrimitiveType::F32),
            "1234567.12");

  // Malformed literals name the problem.
  auto shape = ParseShape("s32[3]");
  ASSERT_TRUE(shape.ok());
  EXPECT_FALSE(Literal::Parse(*shape, "{1, 2}").ok());
  EXPECT_FALSE(Literal::Parse(*shape, "{1, 2, 3, 4}").ok());
  EXPECT_FALSE(Literal::Parse(*shape, "{1, x, 3}").ok());
  auto elided = Literal::Parse(*shape, "{...}");
  ASSERT_TRUE(elided.ok());
  EXPECT_TRUE(elided->is_elided());
}

}  // namespace
}  // namespace hopt

namespace hopt {
namespace {

TEST(AttributeAccessorTest, BackendConfigAndApiVersion) {
  auto module = testing_util::ParseOrFail(R"(HloModule m
ENTRY e {
  p = f32[4]{0} parameter(0)
  ROOT c = f32[4]{0} custom-call(p), custom_call_target="t", api_version=API_VERSION_STATUS_RETURNING
})");
  ASSERT_NE(module, nullptr);
  HloInstruction* call = module->entry_computation()->root_instruction();
  EXPECT_EQ(call->api_version(), "API_VERSION_STATUS_RETURNING");
  EXPECT_EQ(module->entry_computation()->parameter_instruction(0)->api_version(),
            "API_VERSION_ORIGINAL");
  call->set_backend_config(R"({"k":1})", /*raw=*/true);
  bool raw = false;
  EXPECT_EQ(call->backend_config(&raw), R"({"k":1})");
  EXPECT_TRUE(raw);
  EXPECT_NE(PrintInstruction(*call, PrintOptions::Short()).find(R"(backend_config={"k":1})"),
            std::string::npos);
  call->set_backend_config(R"({"k":1})");
  EXPECT_EQ(call->backend_config(&raw), R"({"k":1})");
  EXPECT_FALSE(raw);
}

TEST(AttributeAccessorTest, IotaReplicaGroupsAreBounded) {
  EXPECT_FALSE(ParseReplicaGroups("[65536,65536]<=[65536,65536]").ok());
  auto groups = ParseReplicaGroups("[2,4]<=[4,2]T(1,0)");
  ASSERT_TRUE(groups.ok());
  EXPECT_EQ(groups->ExpandedGroups(),
            (std::vector<std::vector<int64_t>>{{0, 2, 4, 6}, {1, 3, 5, 7}}));
}

}  // namespace
}  // namespace hopt
