// SPDX-License-Identifier: Apache-2.0
// hlo-conformance: checks hopt's reader and writer against a corpus of HLO
// texts with golden outputs (see scripts/conformance.sh for the layout).
//
// Each file is checked in a forked child, so a crash or a hang in one file
// is reported as that file's failure and the run goes on; forking instead of
// starting hopt per file avoids paying libLLVM's start-up thousands of times.

#include <dirent.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "core/proto/tooling/io.h"
#include "hopt/ir/parser.h"
#include "hopt/ir/printer.h"
#include "hopt/ir/verifier.h"
#include "hopt/support/output_file.h"
#include "llvm/Support/CommandLine.h"
#include "tools/common/tool_info.h"

namespace {

llvm::cl::OptionCategory category("hlo-conformance options");
llvm::cl::opt<std::string> corpus_dir(llvm::cl::Positional, llvm::cl::Required,
                                      llvm::cl::desc("<corpus directory>"),
                                      llvm::cl::cat(category));
llvm::cl::opt<double> min_other_pct("min-other-pct",
                                    llvm::cl::desc("Required pass rate of the other files, in %"),
                                    llvm::cl::init(99.0), llvm::cl::cat(category));
llvm::cl::opt<int> timeout_seconds("timeout",
                                   llvm::cl::desc("Seconds per file before it counts as hung"),
                                   llvm::cl::init(10), llvm::cl::cat(category));
llvm::cl::opt<std::string> failures_file(
    "write-failures",
    llvm::cl::desc("Write every failure, in full, to this file, then the template texts, "
                   "the verifier reports and the expected failures"),
    llvm::cl::value_desc("file"), llvm::cl::cat(category));
llvm::cl::opt<bool> proto_roundtrip(
    "proto-roundtrip",
    llvm::cl::desc("Check the protobuf round trips instead: for every file that parses, "
                   "text -> pb -> text is identical and pb -> text -> pb gives the same bytes"),
    llvm::cl::cat(category));
llvm::cl::opt<std::string> refusals_file(
    "verifier-expected",
    llvm::cl::desc("Texts of the corpus that hopt refuses on purpose, one a line: PATH, a tab, "
                   "'xla' (XLA's verifier or reader refuses it too) or 'kept' (a difference "
                   "kept deliberately), a tab, the XLA test or the reason. The verifier "
                   "reports and rejections are then counted by kind"),
    llvm::cl::value_desc("file"), llvm::cl::cat(category));
llvm::cl::opt<int> list_cap("list", llvm::cl::desc("Failures listed on the console"),
                            llvm::cl::init(40), llvm::cl::cat(category));

enum class Kind { kLong, kShort, kNonRoundTrip, kOther, kExpectedFailure };

struct Case {
  Kind kind;
  std::string path;      // relative to the corpus
  std::string expected;  // nonroundtrip: the expected output file
};

// What a child reports. `outcome` is one of:
//   pass, golden-mismatch, unstable, rejected, verifier (verifier report,
//   round trip stable), verifier-unstable, verifier-golden (a golden file
//   that fails verification).
struct Outcome {
  std::string outcome;
  std::string detail;
};

bool ReadFile(const std::string& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  *out = ss.str();
  return true;
}

std::string RStrip(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\t')) s.pop_back();
  return s;
}

std::string FirstLine(absl::string_view text) {
  return std::string(text.substr(0, text.find('\n')));
}

// The first differing line of two texts, for the report.
std::string FirstDifference(const std::string& want, const std::string& got) {
  std::vector<absl::string_view> a = absl::StrSplit(want, '\n');
  std::vector<absl::string_view> b = absl::StrSplit(got, '\n');
  for (size_t i = 0; i < std::max(a.size(), b.size()); ++i) {
    absl::string_view x = i < a.size() ? a[i] : "<end>";
    absl::string_view y = i < b.size() ? b[i] : "<end>";
    if (x != y)
      return absl::StrCat("line ", i + 1, "\n      want: ", x.substr(0, 300),
                          "\n      got:  ", y.substr(0, 300));
  }
  return "texts differ only in length";
}

// Test sources build some HLO texts from templates (`<<F8E4M3>>[16,32]`,
// `TYPE[4]`, `replica_groups=REPLICA_GROUPS`); those files are not HLO. A
// rejection whose offending token is such a placeholder is reported in its
// own bucket and left out of the pass rate.
bool IsTemplatePlaceholder(const std::string& text, absl::string_view message) {
  std::vector<absl::string_view> parts = absl::StrSplit(message, absl::MaxSplits(':', 3));
  int64_t line = 0, column = 0;
  if (parts.size() < 4 || !absl::SimpleAtoi(parts[1], &line) ||
      !absl::SimpleAtoi(parts[2], &column))
    return false;
  size_t pos = 0;
  for (int64_t l = 1; l < line && pos != std::string::npos; ++l) {
    pos = text.find('\n', pos);
    if (pos != std::string::npos) ++pos;
  }
  if (pos == std::string::npos) return false;
  pos += column - 1;
  if (pos >= text.size()) return false;
  if (text.compare(pos, 2, "<<") == 0) return true;
  size_t end = pos;
  while (end < text.size() &&
         (std::isupper(static_cast<unsigned char>(text[end])) ||
          std::isdigit(static_cast<unsigned char>(text[end])) || text[end] == '_'))
    ++end;
  if (end - pos < 3) return false;
  // A placeholder word is all capitals and ends where a token ends.
  char next = end < text.size() ? text[end] : ' ';
  return !std::islower(static_cast<unsigned char>(next));
}

// -proto-roundtrip: outcome "not-parsed" (left out), "pass", or the step
// that broke the round trip.
Outcome CheckProto(const Case& c) {
  std::string text;
  if (!ReadFile(corpus_dir + "/" + c.path, &text)) return {"not-parsed", "cannot read"};
  auto module = hopt::ParseHloModule(std::move(text), c.path);
  if (!module.ok()) return {"not-parsed", FirstLine(module.status().message())};
  hopt::PrintOptions options = c.kind == Kind::kLong    ? hopt::PrintOptions::Long(true)
                               : c.kind == Kind::kShort ? hopt::PrintOptions::Short()
                                                        : hopt::PrintOptions::Long();
  std::string printed = hopt::PrintModule(**module, options);
  auto pb = hopt::ModuleToProtoBinary(**module);
  if (!pb.ok()) return {"proto-write", std::string(pb.status().message())};
  auto from_pb = hopt::ModuleFromProtoBinary(*pb, c.path + " (pb)");
  if (!from_pb.ok()) return {"proto-read", std::string(from_pb.status().message())};
  std::string again = hopt::PrintModule(**from_pb, options);
  if (again != printed) return {"text-pb-text", FirstDifference(printed, again)};
  auto reparsed = hopt::ParseHloModule(again, c.path + " (from pb)");
  if (!reparsed.ok()) return {"pb-text-pb", FirstLine(reparsed.status().message())};
  auto pb_again = hopt::ModuleToProtoBinary(**reparsed);
  if (!pb_again.ok()) return {"pb-text-pb", std::string(pb_again.status().message())};
  if (*pb_again != *pb)
    return {"pb-text-pb",
            absl::StrCat("the messages differ (", pb->size(), " vs ", pb_again->size(), " bytes)")};
  return {"pass", ""};
}

Outcome Check(const Case& c) {
  if (proto_roundtrip) return CheckProto(c);
  std::string path = corpus_dir + "/" + c.path;
  std::string text;
  if (!ReadFile(path, &text)) return {"rejected", "cannot read " + path};
  std::string original = text;
  auto module = hopt::ParseHloModule(std::move(text), c.path);
  if (!module.ok()) {
    std::string message = FirstLine(module.status().message());
    if (IsTemplatePlaceholder(original, message)) return {"placeholder", message};
    return {"rejected", message};
  }
  absl::Status verified = hopt::VerifyModule(**module);
  hopt::PrintOptions options = c.kind == Kind::kLong ? hopt::PrintOptions::Long(true)
                               : c.kind == Kind::kShort || c.kind == Kind::kNonRoundTrip
                                   ? hopt::PrintOptions::Short()
                                   : hopt::PrintOptions::Long();
  std::string printed = hopt::PrintModule(**module, options);
  if (c.kind == Kind::kLong || c.kind == Kind::kShort || c.kind == Kind::kNonRoundTrip) {
    if (!verified.ok()) return {"verifier-golden", std::string(verified.message())};
    std::string want = original;
    if (c.kind == Kind::kNonRoundTrip) {
      if (!ReadFile(corpus_dir + "/" + c.expected, &want))
        return {"rejected", "cannot read " + c.expected};
      want = RStrip(want);
      printed = RStrip(printed);
    }
    if (printed != want) return {"golden-mismatch", FirstDifference(want, printed)};
    // The golden constants also pin hopt's literal formatting: each one
    // parsed and formatted again must read as XLA wrote it.
    for (const hopt::HloComputation* computation : (*module)->computations())
      for (const hopt::HloInstruction* instruction : computation->instructions()) {
        if (instruction->opcode() != hopt::HloOpcode::kConstant) continue;
        auto value = instruction->literal();
        if (!value.ok()) return {"golden-mismatch", std::string(value.status().message())};
        if (value->ToText() != instruction->literal_text())
          return {"golden-mismatch",
                  absl::StrCat("constant ", instruction->name(), " formats as ", value->ToText(),
                               ", XLA wrote ", instruction->literal_text())};
      }
    return {"pass", ""};
  }
  auto reparsed = hopt::ParseHloModule(printed, c.path + " (printed)");
  if (!reparsed.ok())
    return {verified.ok() ? "unstable" : "verifier-unstable",
            "printed text does not parse: " + FirstLine(reparsed.status().message())};
  std::string again = hopt::PrintModule(**reparsed, options);
  if (again != printed)
    return {verified.ok() ? "unstable" : "verifier-unstable", FirstDifference(printed, again)};
  if (!verified.ok()) return {"verifier", std::string(verified.message())};
  return {"pass", ""};
}

// Why hopt refuses a text of the corpus (-verifier-expected).
struct Refusal {
  bool by_xla;      // XLA refuses it too; else a difference kept on purpose
  std::string why;  // the XLA test, or the reason
};

absl::StatusOr<std::map<std::string, Refusal>> ReadRefusals(const std::string& path) {
  std::map<std::string, Refusal> refusals;
  std::string text;
  if (!ReadFile(path, &text)) return absl::NotFoundError(absl::StrCat("cannot read ", path));
  int number = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++number;
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> cols = absl::StrSplit(line, absl::MaxSplits('\t', 2));
    if (cols.size() != 3 || (cols[1] != "xla" && cols[1] != "kept"))
      return absl::InvalidArgumentError(absl::StrCat(
          path, ":", number, ": expected PATH<tab>xla|kept<tab>WHY, got '", line, "'"));
    refusals[cols[0]] = {cols[1] == "xla", cols[2]};
  }
  return refusals;
}

// How the refusals of one kind (verifier reports or rejections) split
// between what XLA refuses too, what hopt keeps refusing on purpose and
// what the list does not explain.
struct RefusalSplit {
  int by_xla = 0, kept = 0;
  std::vector<std::string> unexplained;

  void Count(const std::map<std::string, Refusal>& refusals, const std::string& path) {
    auto it = refusals.find(path);
    if (it == refusals.end())
      unexplained.push_back(path);
    else if (it->second.by_xla)
      ++by_xla;
    else
      ++kept;
  }
  std::string Summary(absl::string_view xla_part) const {
    std::string text = absl::StrCat(" (", by_xla, " ", xla_part, ", ", kept,
                                    " kept on purpose: see docs/formats.md");
    if (!unexplained.empty()) absl::StrAppend(&text, ", ", unexplained.size(), " not in the list");
    return text + ")";
  }
};

// The listed reason for refusing `path`, as a line of the report.
std::string Why(const std::map<std::string, Refusal>& refusals, const std::string& path) {
  auto it = refusals.find(path);
  if (it == refusals.end()) return "";
  return absl::StrCat("\n    ",
                      it->second.by_xla ? "XLA refuses it too: " : "kept: ", it->second.why);
}

// Runs Check in a child process; a crash or time-out becomes "hard".
Outcome CheckIsolated(const Case& c) {
  int fds[2];
  if (pipe(fds) != 0) return {"hard", "pipe failed"};
  std::fflush(nullptr);
  pid_t pid = fork();
  if (pid < 0) return {"hard", "fork failed"};
  if (pid == 0) {
    close(fds[0]);
    Outcome outcome = Check(c);
    std::string record = outcome.outcome + "\n" + outcome.detail;
    size_t off = 0;
    while (off < record.size()) {
      ssize_t n = write(fds[1], record.data() + off, record.size() - off);
      if (n <= 0) break;
      off += static_cast<size_t>(n);
    }
    _exit(0);
  }
  close(fds[1]);
  std::string record;
  char buffer[4096];
  bool timed_out = false;
  while (true) {
    pollfd p{fds[0], POLLIN, 0};
    int ready = poll(&p, 1, timeout_seconds * 1000);
    if (ready == 0) {
      timed_out = true;
      kill(pid, SIGKILL);
      break;
    }
    ssize_t n = read(fds[0], buffer, sizeof(buffer));
    if (n <= 0) break;
    record.append(buffer, static_cast<size_t>(n));
  }
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (timed_out)
    return {"hard", absl::StrCat("timed out after ", timeout_seconds.getValue(), " s")};
  if (WIFSIGNALED(status)) return {"hard", absl::StrCat("crashed with signal ", WTERMSIG(status))};
  size_t nl = record.find('\n');
  if (nl == std::string::npos) return {"hard", "no result from the checker"};
  return {record.substr(0, nl), record.substr(nl + 1)};
}

std::vector<std::string> ListHlo(const std::string& dir) {
  std::vector<std::string> names;
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return names;
  while (dirent* e = readdir(d)) {
    std::string name = e->d_name;
    if (absl::EndsWith(name, ".hlo")) names.push_back(name);
  }
  closedir(d);
  std::sort(names.begin(), names.end());
  return names;
}

const char* KindName(Kind k) {
  switch (k) {
    case Kind::kLong: return "long";
    case Kind::kShort: return "short";
    case Kind::kNonRoundTrip: return "nonroundtrip";
    case Kind::kOther: return "other";
    case Kind::kExpectedFailure: return "expected-failure";
  }
  return "";
}

// The first `list_cap` failures, and how many more there are.
void PrintFailures(const std::vector<std::string>& failures, int list_cap) {
  if (failures.empty()) return;
  std::printf("\nfailures (%zu):\n", failures.size());
  for (size_t i = 0; i < failures.size() && static_cast<int>(i) < list_cap; ++i)
    std::printf("  %s\n", failures[i].c_str());
  if (static_cast<int>(failures.size()) > list_cap)
    std::printf("  ... %zu more (use -write-failures)\n", failures.size() - list_cap);
}

int Fail(const absl::Status& status) {
  std::fprintf(stderr, "hlo-conformance: error: %s\n", std::string(status.message()).c_str());
  return 1;
}

// A report that did not reach standard output is no verdict.
int Finish(int code) {
  if (absl::Status printed = hopt::FinishStandardOutput(); !printed.ok()) return Fail(printed);
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  llvm::cl::HideUnrelatedOptions(category);
  hopt::tools::SetUpToolInfo("hlo-conformance");
  llvm::cl::ParseCommandLineOptions(argc, argv,
                                    "hlo-conformance: hopt's text round trip over a corpus\n");
  struct stat st;
  if (stat(corpus_dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    std::fprintf(stderr, "hlo-conformance: error: '%s' is not a directory\n", corpus_dir.c_str());
    return 2;
  }
  std::map<std::string, std::string> manifest_kind;
  std::string manifest;
  if (ReadFile(corpus_dir + "/manifest.tsv", &manifest)) {
    for (absl::string_view line : absl::StrSplit(manifest, '\n')) {
      std::vector<std::string> cols = absl::StrSplit(line, '\t');
      if (cols.size() >= 4) manifest_kind[cols[0]] = cols[3];
    }
  }
  std::vector<Case> cases;
  const std::string rt = "parser_roundtrip/";
  for (const std::string& n : ListHlo(corpus_dir + "/" + rt + "long"))
    cases.push_back({Kind::kLong, rt + "long/" + n, ""});
  for (const std::string& n : ListHlo(corpus_dir + "/" + rt + "short"))
    cases.push_back({Kind::kShort, rt + "short/" + n, ""});
  for (const std::string& n : ListHlo(corpus_dir + "/" + rt + "nonroundtrip")) {
    if (!absl::EndsWith(n, ".input.hlo")) continue;
    std::string stem = n.substr(0, n.size() - strlen(".input.hlo"));
    cases.push_back({Kind::kNonRoundTrip, rt + "nonroundtrip/" + n,
                     rt + "nonroundtrip/" + stem + ".expected.hlo"});
  }
  DIR* top = opendir(corpus_dir.c_str());
  std::vector<std::string> subdirs;
  while (dirent* e = top ? readdir(top) : nullptr) {
    std::string name = e->d_name;
    if (name == "." || name == ".." || name == "parser_roundtrip") continue;
    std::string full = corpus_dir + "/" + name;
    if (stat(full.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) subdirs.push_back(name);
  }
  if (top) closedir(top);
  std::sort(subdirs.begin(), subdirs.end());
  for (const std::string& sub : subdirs)
    for (const std::string& n : ListHlo(corpus_dir + "/" + sub)) {
      std::string rel = sub + "/" + n;
      bool maybe_error = manifest_kind[rel] == "parser_test:other_maybe_error";
      cases.push_back({maybe_error ? Kind::kExpectedFailure : Kind::kOther, rel, ""});
    }

  if (proto_roundtrip) {
    int parsed = 0, passed = 0;
    std::map<std::string, int> buckets;
    std::vector<std::string> failures;
    for (const Case& c : cases) {
      Outcome o = CheckIsolated(c);
      if (o.outcome == "not-parsed") continue;
      ++parsed;
      if (o.outcome == "pass") {
        ++passed;
        continue;
      }
      ++buckets[o.outcome];
      failures.push_back(absl::StrCat(c.path, " ", o.outcome, "\n    ", o.detail));
    }
    double pct = parsed ? 100.0 * passed / parsed : 100.0;
    std::printf("hopt proto round trip over %s\n\n", corpus_dir.c_str());
    std::printf("  %-28s %zu\n", "files", cases.size());
    std::printf("  %-28s %d\n", "parsed", parsed);
    std::printf("  %-28s %d / %d (%s%%)\n", "both round trips", passed, parsed,
                absl::StrFormat("%.2f", pct).c_str());
    for (const auto& [name, count] : buckets) std::printf("  %-28s %d\n", name.c_str(), count);
    PrintFailures(failures, list_cap);
    if (!failures_file.empty()) {
      std::string text;
      for (const std::string& f : failures) absl::StrAppend(&text, f, "\n");
      if (absl::Status written = hopt::WriteOutputFile(failures_file, text); !written.ok())
        return Fail(written);
    }
    bool ok = pct >= min_other_pct && buckets["hard"] == 0;
    std::printf("\nproto round trip: %s\n", ok ? "PASS" : "FAIL");
    return Finish(ok ? 0 : 1);
  }

  std::map<Kind, int> total, passed;
  std::map<std::string, int> buckets;
  int parsed = 0, expected_behaved = 0, expected_rejected = 0;
  std::vector<std::string> failures;
  int placeholders = 0;
  std::vector<std::string> placeholder_files;
  std::vector<std::string> reported_files;  // verifier reports and expected failures
  std::map<std::string, int> rejection_messages;
  std::map<std::string, Refusal> refusals;
  if (!refusals_file.empty()) {
    auto read = ReadRefusals(refusals_file);
    if (!read.ok()) return Fail(read.status());
    refusals = *std::move(read);
  }
  RefusalSplit verifier_split, rejected_split;
  std::vector<std::string> stale;  // listed, yet hopt now accepts them
  for (const Case& c : cases) {
    Outcome o = CheckIsolated(c);
    ++total[c.kind];
    bool did_parse = o.outcome != "rejected" && o.outcome != "hard" && o.outcome != "placeholder";
    if (o.outcome == "placeholder" && c.kind == Kind::kOther) {
      ++placeholders;
      placeholder_files.push_back(absl::StrCat(c.path, "\n    ", o.detail));
      continue;
    }
    if (did_parse) ++parsed;
    if (o.outcome == "pass" && refusals.count(c.path) != 0) stale.push_back(c.path);
    bool ok = o.outcome == "pass" || (c.kind == Kind::kOther && o.outcome == "verifier");
    if (c.kind == Kind::kExpectedFailure) {
      ok = o.outcome != "hard" && o.outcome != "unstable" && o.outcome != "verifier-unstable";
      if (ok) ++expected_behaved;
      if (o.outcome == "rejected" || o.outcome == "verifier") ++expected_rejected;
    }
    // Listed for review: a file that now parses or verifies shows here.
    if (ok && (o.outcome == "verifier" || c.kind == Kind::kExpectedFailure))
      reported_files.push_back(absl::StrCat(c.path, " [", KindName(c.kind), "] ", o.outcome,
                                            o.detail.empty() ? "" : "\n    ", FirstLine(o.detail),
                                            Why(refusals, c.path)));
    if (ok) {
      ++passed[c.kind];
      if (o.outcome == "verifier") {
        ++buckets["verifier reports (round trip stable)"];
        verifier_split.Count(refusals, c.path);
      }
      continue;
    }
    ++buckets[o.outcome];
    if (o.outcome == "rejected") {
      rejected_split.Count(refusals, c.path);
      std::string msg = o.detail;
      size_t colon = msg.find(": ", msg.find(':', msg.find(':') + 1) + 1);
      rejection_messages[colon == std::string::npos ? msg : msg.substr(colon + 2, 60)]++;
    }
    failures.push_back(
        absl::StrCat(c.path, " [", KindName(c.kind), "] ", o.outcome, "\n    ", o.detail));
  }

  auto line = [](const char* label, std::string value) {
    std::printf("  %-28s %s\n", label, value.c_str());
  };
  auto ratio = [&](Kind k) { return absl::StrCat(passed[k], " / ", total[k]); };
  int other_total = total[Kind::kOther] - placeholders;
  double other_pct = other_total ? 100.0 * passed[Kind::kOther] / other_total : 100.0;
  std::printf("hopt conformance over %s\n\n", corpus_dir.c_str());
  line("files", absl::StrCat(cases.size()));
  line("parsed", absl::StrCat(parsed, " / ", cases.size()));
  line("golden long (byte-exact)", ratio(Kind::kLong));
  line("golden short (byte-exact)", ratio(Kind::kShort));
  line("golden nonroundtrip", ratio(Kind::kNonRoundTrip));
  line("other: parse + round trip", absl::StrCat(passed[Kind::kOther], " / ", other_total, " (",
                                                 absl::StrFormat("%.2f", other_pct), "%)"));
  line("other: template texts", absl::StrCat(placeholders,
                                             " (not HLO: placeholders like <<T>>,"
                                             " TYPE; not counted)"));
  line("expected failures behaved",
       absl::StrCat(expected_behaved, " / ", total[Kind::kExpectedFailure], " (", expected_rejected,
                    " rejected)"));
  for (const auto& [name, count] : buckets) {
    std::string split;
    if (!refusals_file.empty() && name == "rejected")
      split = rejected_split.Summary("refused by XLA's reader too");
    else if (!refusals_file.empty() && absl::StartsWith(name, "verifier reports"))
      split = verifier_split.Summary("refused by XLA too");
    line(name.c_str(), absl::StrCat(count, split));
  }
  if (!stale.empty())
    line("listed but accepted",
         absl::StrCat(stale.size(), " (drop them from ", refusals_file.getValue(), ")"));
  if (!rejection_messages.empty()) {
    std::vector<std::pair<int, std::string>> common;
    for (const auto& [m, n] : rejection_messages) common.push_back({n, m});
    std::sort(common.rbegin(), common.rend());
    std::printf("\nmost common rejections:\n");
    for (size_t i = 0; i < common.size() && i < 8; ++i)
      std::printf("  %4d  %s\n", common[i].first, common[i].second.c_str());
  }
  PrintFailures(failures, list_cap);
  if (!failures_file.empty()) {
    std::string text;
    for (const std::string& f : failures) absl::StrAppend(&text, f, "\n");
    text += "\n# template texts (not counted)\n";
    for (const std::string& f : placeholder_files) absl::StrAppend(&text, f, "\n");
    text += "\n# verifier reports and expected failures (counted as passing)\n";
    for (const std::string& f : reported_files) absl::StrAppend(&text, f, "\n");
    if (!refusals_file.empty()) {
      text += "\n# refusals not in the -verifier-expected list\n";
      for (const auto* split : {&verifier_split, &rejected_split})
        for (const std::string& f : split->unexplained) absl::StrAppend(&text, f, "\n");
      text += "\n# listed in -verifier-expected but accepted\n";
      for (const std::string& f : stale) absl::StrAppend(&text, f, "\n");
    }
    if (absl::Status written = hopt::WriteOutputFile(failures_file, text); !written.ok())
      return Fail(written);
  }
  bool goldens = passed[Kind::kLong] == total[Kind::kLong] &&
                 passed[Kind::kShort] == total[Kind::kShort] &&
                 passed[Kind::kNonRoundTrip] == total[Kind::kNonRoundTrip];
  bool ok = goldens && buckets["hard"] == 0 && other_pct >= min_other_pct &&
            expected_behaved == total[Kind::kExpectedFailure];
  std::printf("\nconformance: %s\n", ok ? "PASS" : "FAIL");
  return Finish(ok ? 0 : 1);
}
