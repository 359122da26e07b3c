// SPDX-License-Identifier: Apache-2.0
// ComputationToDot (include/hopt/support/graph_dot.h): nodes, edges, highlight
// classes, control edges, the summarised form of large computations.

#include "hopt/support/graph_dot.h"

#include <algorithm>
#include <cstdint>
#include <deque>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hopt/support/graphviz.h"
#include "unittests/test_util.h"

namespace hopt {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing_util::ParseOrFail;

// The drawn graph, read back: node id -> label, and the edges.
struct ParsedDot {
  std::map<std::string, std::string> labels;      // n12 / s3 -> label text
  std::map<std::string, std::string> attributes;  // node id -> its whole [...] text
  std::map<std::string, std::string> by_name;     // instruction name -> node id
  std::vector<std::pair<std::string, std::string>> edges;
  std::vector<std::string> edge_lines;
};

// The label text as Graphviz shows it (\n a line break).
std::string Unescape(const std::string& text) {
  std::string out;
  for (size_t k = 0; k < text.size(); ++k) {
    if (text[k] == '\\' && k + 1 < text.size()) {
      ++k;
      out.push_back(text[k] == 'n' ? '\n' : text[k]);
    } else {
      out.push_back(text[k]);
    }
  }
  return out;
}

ParsedDot Parse(const std::string& dot) {
  ParsedDot parsed;
  static const std::regex kNode(R"(^  ([ns][0-9]+) \[(.*)\];$)");
  static const std::regex kEdge(R"(^  ([ns][0-9]+) -> ([ns][0-9]+)( \[.*\])?;$)");
  static const std::regex kLabel(R"(label="((?:[^"\\]|\\.)*)\")");
  for (absl::string_view line_view : absl::StrSplit(dot, '\n')) {
    std::string line(line_view);
    std::smatch match;
    if (std::regex_match(line, match, kEdge)) {
      parsed.edges.push_back({match[1], match[2]});
      parsed.edge_lines.push_back(line);
    } else if (std::regex_match(line, match, kNode)) {
      std::string id = match[1], body = match[2];
      std::smatch label;
      if (std::regex_search(body, label, kLabel)) {
        std::string text = Unescape(label[1]);
        parsed.labels[id] = text;
        if (id[0] == 'n') {
          std::string first_line = text.substr(0, text.find('\n'));
          if (first_line.rfind("ROOT ", 0) == 0) first_line = first_line.substr(5);
          parsed.by_name[first_line] = id;
        }
      }
      parsed.attributes[id] = body;
    }
  }
  return parsed;
}

constexpr char kSmall[] = R"(
HloModule small, replica_count=2

add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

ENTRY main {
  a = f32[4] parameter(0)
  b = f32[4] parameter(1)
  n = f32[4] negate(a)
  m = f32[4] multiply(n, b)
  ar = f32[4] all-reduce(m), replica_groups={}, to_apply=add
  cc = f32[4] custom-call(ar), custom_call_target="MyKernel"
  nc = f32[4] custom-call(cc), custom_call_target="VendorAllGather_f32"
  mk = f32[4] custom-call(nc), custom_call_target="VendorMarkerStart"
  c = f32[4] copy(mk), control-predecessors={n}
  ROOT r = f32[4] add(c, a)
}
)";

TEST(GraphDotTest, NodesAndEdges) {
  auto module = ParseOrFail(kSmall);
  ASSERT_NE(module, nullptr);
  DotGraphStats stats;
  std::string dot = ComputationToDot(*module->entry_computation(), {}, &stats);
  EXPECT_THAT(dot, HasSubstr("digraph \"main\" {"));
  EXPECT_THAT(dot, HasSubstr("computation 'main' of module 'small': 10 instructions"));
  EXPECT_FALSE(stats.summarised);
  EXPECT_EQ(stats.instructions, 10);
  EXPECT_EQ(stats.kept, 10);
  ParsedDot parsed = Parse(dot);
  ASSERT_EQ(parsed.by_name.size(), 10u);
  EXPECT_EQ(parsed.labels[parsed.by_name["n"]], "n\nnegate\nf32[4]");
  EXPECT_EQ(parsed.labels[parsed.by_name["a"]], "a\nparameter(0)\nf32[4]");
  EXPECT_THAT(parsed.attributes[parsed.by_name["a"]], HasSubstr("shape=ellipse"));
  EXPECT_EQ(parsed.labels[parsed.by_name["r"]], "ROOT r\nadd\nf32[4]");
  EXPECT_THAT(parsed.attributes[parsed.by_name["r"]], HasSubstr("peripheries=2"));
  EXPECT_THAT(parsed.attributes[parsed.by_name["n"]], Not(HasSubstr("peripheries")));

  // One edge per operand; several operands: labelled with the index.
  auto edge = [&](const std::string& from, const std::string& to) {
    return absl::StrCat("  ", parsed.by_name[from], " -> ", parsed.by_name[to]);
  };
  EXPECT_THAT(dot, HasSubstr(edge("a", "n") + ";\n"));
  EXPECT_THAT(dot, HasSubstr(edge("n", "m") + " [label=\"0\"];\n"));
  EXPECT_THAT(dot, HasSubstr(edge("b", "m") + " [label=\"1\"];\n"));
  EXPECT_THAT(dot, HasSubstr(edge("c", "r") + " [label=\"0\"];\n"));
  EXPECT_THAT(dot, HasSubstr(edge("a", "r") + " [label=\"1\"];\n"));
  // The control edge, dashed.
  EXPECT_THAT(dot, HasSubstr(edge("n", "c") + " [style=dashed];\n"));
  // 10 operand uses and one control edge.
  EXPECT_EQ(stats.edges, 11);
  EXPECT_EQ(parsed.edges.size(), 11u);
}

// The classes a plugin declares (core knows no target names).
DotHighlightTable VendorHighlights() {
  DotHighlightTable table;
  table.AddPrefix("Vendor", DotHighlight::kCustomCall);
  table.AddPrefix("VendorAll", DotHighlight::kCollective);  // longer prefix wins
  table.AddTarget("VendorMarkerStart", DotHighlight::kMarker);
  return table;
}

TEST(GraphDotTest, HighlightTableByTargetAndLongestPrefix) {
  DotHighlightTable table = VendorHighlights();
  EXPECT_EQ(table.Of("VendorAllGather_f32"), DotHighlight::kCollective);
  EXPECT_EQ(table.Of("VendorMarkerStart"), DotHighlight::kMarker);
  EXPECT_EQ(table.Of("VendorMarkerStartX"), DotHighlight::kCustomCall);
  EXPECT_EQ(table.Of("Other"), DotHighlight::kCustomCall);
  // Without a table every custom-call is a plain custom-call.
  auto module = ParseOrFail(kSmall);
  ASSERT_NE(module, nullptr);
  for (const HloInstruction* instruction : module->entry_computation()->instructions())
    if (instruction->opcode() == HloOpcode::kCustomCall)
      EXPECT_EQ(DotHighlightOf(*instruction), DotHighlight::kCustomCall) << instruction->name();
}

TEST(GraphDotTest, HighlightClassesAndLegend) {
  auto module = ParseOrFail(kSmall);
  ASSERT_NE(module, nullptr);
  DotHighlightTable table = VendorHighlights();
  DotGraphOptions options;
  options.highlights = &table;
  std::string dot = ComputationToDot(*module->entry_computation(), options);
  ParsedDot parsed = Parse(dot);
  EXPECT_THAT(parsed.attributes[parsed.by_name["ar"]], HasSubstr("#ffd8a8"));
  EXPECT_THAT(parsed.attributes[parsed.by_name["nc"]], HasSubstr("#ffd8a8"));
  EXPECT_THAT(parsed.attributes[parsed.by_name["cc"]], HasSubstr("#e5dbff"));
  EXPECT_THAT(parsed.attributes[parsed.by_name["mk"]], HasSubstr("#b2f2bb"));
  EXPECT_THAT(parsed.attributes[parsed.by_name["m"]], Not(HasSubstr("fillcolor")));
  EXPECT_EQ(parsed.labels[parsed.by_name["cc"]], "cc\ncustom-call\n\"MyKernel\"\nf32[4]");
  EXPECT_THAT(dot, HasSubstr("subgraph cluster_legend"));
  EXPECT_THAT(dot, HasSubstr("legend_collective [label=\"collective\", fillcolor=\"#ffd8a8\"]"));
  EXPECT_THAT(dot, HasSubstr("legend_marker [label=\"boundary marker\""));
  EXPECT_THAT(dot, HasSubstr("legend_control_flow [label=\"while / call / conditional\""));
  // No summary, no summary in the legend.
  EXPECT_THAT(dot, Not(HasSubstr("legend_summary")));

  for (const HloInstruction* instruction : module->entry_computation()->instructions()) {
    DotHighlight expected = DotHighlight::kNone;
    if (instruction->name() == "ar" || instruction->name() == "nc")
      expected = DotHighlight::kCollective;
    if (instruction->name() == "cc") expected = DotHighlight::kCustomCall;
    if (instruction->name() == "mk") expected = DotHighlight::kMarker;
    EXPECT_EQ(DotHighlightOf(*instruction, &table), expected) << instruction->name();
  }
}

TEST(GraphDotTest, CollectiveOpcodesAndAsyncForms) {
  auto module = ParseOrFail(R"(
HloModule m, replica_count=2

add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

ENTRY main {
  a = f32[4] parameter(0)
  ags = (f32[4], f32[8]) all-gather-start(a), dimensions={0}, replica_groups={{0,1}}
  agd = f32[8] all-gather-done(ags)
  ars = f32[4] all-reduce-start(a), replica_groups={}, to_apply=add
  ard = f32[4] all-reduce-done(ars)
  rs = f32[2] reduce-scatter(a), dimensions={0}, replica_groups={{0,1}}, to_apply=add
  a2a = f32[4] all-to-all(a), dimensions={0}, replica_groups={{0,1}}
  cp = f32[4] collective-permute(a), source_target_pairs={{0,1},{1,0}}
  tok = token[] after-all()
  rv = (f32[4], u32[], token[]) recv(tok), channel_id=1
  rvd = (f32[4], token[]) recv-done(rv), channel_id=1
  sd = (f32[4], u32[], token[]) send(a, tok), channel_id=2
  sdd = token[] send-done(sd), channel_id=2
  ROOT t = (f32[8], f32[4], f32[2], f32[4], f32[4], (f32[4], token[]), token[]) tuple(agd, ard, rs, a2a, cp, rvd, sdd)
}
)");
  ASSERT_NE(module, nullptr);
  std::set<std::string> plain = {"a", "tok", "t"};
  for (const HloInstruction* instruction : module->entry_computation()->instructions())
    EXPECT_EQ(DotHighlightOf(*instruction), plain.count(std::string(instruction->name()))
                                                ? DotHighlight::kNone
                                                : DotHighlight::kCollective)
        << instruction->name();
}

constexpr char kControlFlow[] = R"(
HloModule loops

cond {
  p = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}

body {
  p = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  one = s32[] constant(1)
  next = s32[] add(i, one)
  v = f32[4] get-tuple-element(p), index=1
  ROOT t = (s32[], f32[4]) tuple(next, v)
}

twice {
  x = f32[4] parameter(0)
  ROOT y = f32[4] add(x, x)
}

yes {
  x = f32[4] parameter(0)
  ROOT y = f32[4] negate(x)
}

no {
  x = f32[4] parameter(0)
  ROOT y = f32[4] copy(x)
}

ENTRY main {
  x = f32[4] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[4]) tuple(zero, x)
  loop = (s32[], f32[4]) while(init), condition=cond, body=body
  out = f32[4] get-tuple-element(loop), index=1
  c = f32[4] call(out), to_apply=twice
  flag = pred[] constant(true)
  ROOT k = f32[4] conditional(flag, c, c), true_computation=yes, false_computation=no
}
)";

TEST(GraphDotTest, ControlFlowNamesItsComputations) {
  auto module = ParseOrFail(kControlFlow);
  ASSERT_NE(module, nullptr);
  std::string dot = ComputationToDot(*module->entry_computation());
  ParsedDot parsed = Parse(dot);
  EXPECT_EQ(parsed.labels[parsed.by_name["loop"]],
            "loop\nwhile\ncondition=%cond\nbody=%body\n(s32[], f32[4])");
  EXPECT_EQ(parsed.labels[parsed.by_name["c"]], "c\ncall\nto_apply=%twice\nf32[4]");
  EXPECT_EQ(parsed.labels[parsed.by_name["k"]],
            "ROOT k\nconditional\ntrue_computation=%yes\nfalse_computation=%no\nf32[4]");
  for (const char* name : {"loop", "c", "k"})
    EXPECT_THAT(parsed.attributes[parsed.by_name[name]], HasSubstr("#a5d8ff")) << name;

  // Any computation can be drawn; a wrong name lists them.
  auto body = FindComputationToDraw(*module, "body");
  ASSERT_TRUE(body.ok());
  EXPECT_THAT(ComputationToDot(**body), HasSubstr("computation 'body' of module 'loops'"));
  auto entry = FindComputationToDraw(*module, "");
  ASSERT_TRUE(entry.ok());
  EXPECT_EQ(*entry, module->entry_computation());
  auto missing = FindComputationToDraw(*module, "bdoy");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().message(),
            "no computation 'bdoy' in module 'loops'; its computations: cond, body, twice, yes, "
            "no, main");
}

// A long computation: `layers` blocks of `filler` elementwise ops, each
// block ending in an all-reduce; every 10th block also gets a control edge
// between two filler ops.
std::string LongModule(int layers, int filler) {
  std::string text = R"(
HloModule long, replica_count=2

add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

ENTRY main {
  x = f32[8] parameter(0)
  w = f32[8] parameter(1)
)";
  std::string previous = "x";
  for (int l = 0; l < layers; ++l) {
    for (int f = 0; f < filler; ++f) {
      std::string name = absl::StrCat("f", l, "_", f);
      const char* op = f % 3 == 0 ? "multiply" : f % 3 == 1 ? "add" : "subtract";
      absl::StrAppend(&text, "  ", name, " = f32[8] ", op, "(", previous, ", w)");
      if (l % 10 == 0 && f == filler - 1 && filler > 2)
        absl::StrAppend(&text, ", control-predecessors={f", l, "_0}");
      text += "\n";
      previous = name;
    }
    std::string ar = absl::StrCat("ar", l);
    absl::StrAppend(&text, "  ", ar, " = f32[8] all-reduce(", previous,
                    "), replica_groups={}, to_apply=add\n");
    previous = ar;
  }
  absl::StrAppend(&text, "  ROOT r = f32[8] negate(", previous, ")\n}\n");
  return text;
}

// Summarised: every highlighted instruction, parameter and the root stay
// with their neighbours; the summaries account for all other instructions;
// every edge between two drawn instructions is drawn; the all-reduces stay
// connected through the summaries.
TEST(GraphDotTest, SummarisedGraphKeepsHighlightsAndDataflow) {
  const int layers = 40, filler = 30;
  auto module = ParseOrFail(LongModule(layers, filler));
  ASSERT_NE(module, nullptr);
  const HloComputation& main = *module->entry_computation();
  DotGraphOptions options;
  options.max_nodes = 200;
  options.budget_name = "test budget";
  DotGraphStats stats;
  std::string dot = ComputationToDot(main, options, &stats);
  ASSERT_TRUE(stats.summarised);
  EXPECT_EQ(stats.instructions, main.instruction_count());
  EXPECT_EQ(stats.kept + stats.summarised_instructions, stats.instructions);
  EXPECT_THAT(dot, HasSubstr("summarised (above the test budget of 200)"));
  EXPECT_THAT(dot, HasSubstr("legend_summary"));
  ParsedDot parsed = Parse(dot);

  // Kept: the all-reduces, the parameters, the root and their neighbours.
  std::set<std::string> must_keep = {"x", "w", "r"};
  for (int l = 0; l < layers; ++l) {
    must_keep.insert(absl::StrCat("ar", l));
    must_keep.insert(absl::StrCat("f", l, "_", filler - 1));  // operand of ar
    if (l > 0) must_keep.insert(absl::StrCat("f", l, "_0"));  // user of ar(l-1)
  }
  for (const std::string& name : must_keep)
    EXPECT_TRUE(parsed.by_name.count(name)) << name << " not drawn";
  EXPECT_EQ(static_cast<int64_t>(parsed.by_name.size()), stats.kept);
  // w feeds every filler op: all are neighbours of a parameter, all kept.
  // (The next test has the case where filler is summarised.)
  EXPECT_EQ(stats.summary_nodes, 0);
}

TEST(GraphDotTest, SummaryCountsAddUpAndNoEdgeIsLost) {
  // Filler without the shared parameter operand: chains of negates.
  std::string text = R"(
HloModule chains, replica_count=2

add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

ENTRY main {
  x = f32[8] parameter(0)
)";
  const int layers = 30, filler = 50;
  std::string previous = "x";
  int64_t instructions = 1;
  for (int l = 0; l < layers; ++l) {
    for (int f = 0; f < filler; ++f) {
      std::string name = absl::StrCat("f", l, "_", f);
      const char* op = f % 4 == 0 ? "exponential" : "negate";
      absl::StrAppend(&text, "  ", name, " = f32[8] ", op, "(", previous, ")");
      if (f == filler - 2) absl::StrAppend(&text, ", control-predecessors={f", l, "_1}");
      text += "\n";
      previous = name;
      ++instructions;
    }
    absl::StrAppend(&text, "  ar", l, " = f32[8] all-reduce(", previous,
                    "), replica_groups={}, to_apply=add\n");
    // A side use of the all-reduce that joins the next block's chain.
    absl::StrAppend(&text, "  j", l, " = f32[8] add(ar", l, ", ", previous, ")\n");
    previous = absl::StrCat("j", l);
    instructions += 2;
  }
  absl::StrAppend(&text, "  ROOT r = f32[8] negate(", previous, ")\n}\n");
  ++instructions;
  auto module = ParseOrFail(text);
  ASSERT_NE(module, nullptr);
  const HloComputation& main = *module->entry_computation();
  ASSERT_EQ(main.instruction_count(), instructions);

  DotGraphStats stats;
  std::string dot = ComputationToDot(main, {}, &stats);
  ASSERT_TRUE(stats.summarised);
  ParsedDot parsed = Parse(dot);
  EXPECT_EQ(stats.summary_nodes, layers);

  // Counts: the summaries' "N instructions" and their opcode counts add up.
  int64_t summarised = 0;
  for (const auto& [id, label] : parsed.labels) {
    if (id[0] != 's') continue;
    std::string head = label.substr(0, label.find(' '));
    head.erase(std::remove(head.begin(), head.end(), ','), head.end());
    int64_t count = 0;
    ASSERT_TRUE(absl::SimpleAtoi(head, &count)) << label;
    summarised += count;
    int64_t by_opcode = 0;
    static const std::regex kOpcodeCount(R"([a-z-]+ x([0-9,]+))");
    for (std::sregex_iterator it(label.begin(), label.end(), kOpcodeCount), end; it != end; ++it) {
      std::string digits = (*it)[1];
      digits.erase(std::remove(digits.begin(), digits.end(), ','), digits.end());
      by_opcode += std::stoll(digits);
    }
    EXPECT_EQ(by_opcode, count) << label;
    EXPECT_THAT(label, HasSubstr("exponential x"));
    EXPECT_THAT(label, HasSubstr("negate x"));
  }
  EXPECT_EQ(summarised, stats.summarised_instructions);
  EXPECT_EQ(static_cast<int64_t>(parsed.by_name.size()) + summarised, instructions);
  for (int l = 0; l < layers; ++l) {
    EXPECT_TRUE(parsed.by_name.count(absl::StrCat("ar", l))) << l;
    EXPECT_TRUE(parsed.by_name.count(absl::StrCat("j", l))) << l;
  }

  // Every operand edge between two drawn instructions is there, labelled.
  std::set<std::pair<std::string, std::string>> edges(parsed.edges.begin(), parsed.edges.end());
  for (const HloInstruction* user : main.instructions()) {
    auto to = parsed.by_name.find(std::string(user->name()));
    if (to == parsed.by_name.end()) continue;
    for (const HloInstruction* operand : user->operands()) {
      auto from = parsed.by_name.find(std::string(operand->name()));
      if (from == parsed.by_name.end()) continue;
      EXPECT_TRUE(edges.count({from->second, to->second}))
          << operand->name() << " -> " << user->name();
    }
  }
  // j0 reads ar0 (index 0) and the end of a chain (index 1, kept as ar0's
  // operand).
  EXPECT_THAT(dot, HasSubstr(absl::StrCat("  ", parsed.by_name["ar0"], " -> ", parsed.by_name["j0"],
                                          " [label=\"0\"];")));

  // Dataflow between highlighted nodes survives: ar0 reaches ar29 through
  // the summaries.
  std::map<std::string, std::vector<std::string>> successors;
  for (const auto& [from, to] : parsed.edges) successors[from].push_back(to);
  std::set<std::string> reached = {parsed.by_name["ar0"]};
  std::deque<std::string> queue = {parsed.by_name["ar0"]};
  while (!queue.empty()) {
    std::string node = queue.front();
    queue.pop_front();
    for (const std::string& next : successors[node])
      if (reached.insert(next).second) queue.push_back(next);
  }
  EXPECT_TRUE(reached.count(parsed.by_name[absl::StrCat("ar", layers - 1)]));
  EXPECT_TRUE(reached.count(parsed.by_name["r"]));

  // The control edges inside the chains are inside summaries; none drawn
  // between two summaries of different runs here, and the graph has no
  // self-loops.
  for (const auto& [from, to] : parsed.edges) EXPECT_NE(from, to);
  // Budget 0: never summarised.
  DotGraphOptions never;
  never.max_nodes = 0;
  DotGraphStats full;
  ComputationToDot(main, never, &full);
  EXPECT_FALSE(full.summarised);
  EXPECT_EQ(full.kept, instructions);
}

TEST(GraphDotTest, ControlEdgesAcrossSummariesAreMerged) {
  // c0 (kept, a custom-call) orders a filler op inside a summary run.
  std::string text = "HloModule ctl\n\nENTRY main {\n  x = f32[8] parameter(0)\n";
  std::string previous = "x";
  for (int f = 0; f < 20; ++f) {
    std::string name = absl::StrCat("f", f);
    absl::StrAppend(&text, "  ", name, " = f32[8] negate(", previous, ")");
    if (f == 10) text += ", control-predecessors={k}";
    text += "\n";
    previous = name;
    if (f == 2)
      text +=
          "  k = f32[8] custom-call(f2), custom_call_target=\"K\"\n  kk = f32[8] negate(k)\n  kkk "
          "= f32[8] negate(kk)\n";
  }
  absl::StrAppend(&text, "  ROOT r = f32[8] add(", previous, ", kkk)\n}\n");
  auto module = ParseOrFail(text);
  ASSERT_NE(module, nullptr);
  DotGraphOptions options;
  options.max_nodes = 5;
  DotGraphStats stats;
  std::string dot = ComputationToDot(*module->entry_computation(), options, &stats);
  ASSERT_TRUE(stats.summarised);
  ParsedDot parsed = Parse(dot);
  ASSERT_TRUE(parsed.by_name.count("k"));
  bool found = false;
  for (const std::string& line : parsed.edge_lines)
    if (line.rfind(absl::StrCat("  ", parsed.by_name["k"], " -> s"), 0) == 0 &&
        line.find("style=dashed") != std::string::npos)
      found = true;
  EXPECT_TRUE(found) << dot;
}

TEST(GraphDotTest, MissingComputationListsTheFirstTenNames) {
  std::string text = "HloModule many\n\n";
  for (int c = 0; c < 12; ++c)
    absl::StrAppend(&text, "f", c,
                    " {\n  x = f32[] parameter(0)\n  ROOT y = f32[] negate(x)\n}\n\n");
  text += "ENTRY main {\n  x = f32[] parameter(0)\n  ROOT c = f32[] call(x), to_apply=f0\n}\n";
  auto module = ParseOrFail(text);
  ASSERT_NE(module, nullptr);
  auto missing = FindComputationToDraw(*module, "g");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().message(),
            "no computation 'g' in module 'many'; its computations: f0, f1, f2, f3, f4, f5, f6, "
            "f7, f8, f9, ... (13 in all)");
}

TEST(GraphDotTest, EscapeDotString) { EXPECT_EQ(EscapeDotString("a\"b\\c\nd"), "a\\\"b\\\\c\\nd"); }

}  // namespace
}  // namespace hopt
