// hopt: reads an HLO module, checks it, and writes it back.

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include <fcntl.h>
#include <unistd.h>

#include "core/ir/parser.h"
#include "core/ir/printer.h"
#include "core/ir/verifier.h"
#include "core/support/startup_pages.h"
#include "llvm/Support/CommandLine.h"

namespace {

llvm::cl::OptionCategory hopt_category("hopt options");

llvm::cl::opt<std::string> input_file(llvm::cl::Positional, llvm::cl::desc("<input .hlo file, or - for stdin>"),
                                      llvm::cl::init("-"), llvm::cl::cat(hopt_category));
llvm::cl::opt<std::string> output_file("o", llvm::cl::desc("Output file (default: stdout)"),
                                       llvm::cl::value_desc("file"), llvm::cl::init("-"),
                                       llvm::cl::cat(hopt_category));
llvm::cl::opt<bool> print_operand_shapes(
    "print-operand-shapes", llvm::cl::desc("Print each operand's shape (long style only)"),
    llvm::cl::init(false), llvm::cl::cat(hopt_category));
enum class Style { kLong, kShort };
llvm::cl::opt<Style> print_style(
    "print-style", llvm::cl::desc("Output style"), llvm::cl::init(Style::kLong),
    llvm::cl::values(clEnumValN(Style::kLong, "long", "XLA's default form: %names, signatures"),
                     clEnumValN(Style::kShort, "short", "XLA's short parsable form")),
    llvm::cl::cat(hopt_category));
llvm::cl::opt<bool> verify("verify", llvm::cl::desc("Verify the module after parsing (default on)"),
                           llvm::cl::init(true), llvm::cl::cat(hopt_category));

bool ReadAll(const std::string& path, std::string* out, std::string* error) {
  FILE* f = path == "-" ? stdin : std::fopen(path.c_str(), "rb");
  if (f == nullptr) {
    *error = "cannot open '" + path + "': " + std::strerror(errno);
    return false;
  }
  char buffer[1 << 16];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof(buffer), f)) > 0) out->append(buffer, n);
  bool ok = !std::ferror(f);
  if (!ok) *error = "cannot read '" + path + "': " + std::strerror(errno);
  if (f != stdin) std::fclose(f);
  return ok;
}

// Writes to a temporary file next to `path` and renames it into place, so
// a failure never leaves a partial or clobbered output.
class AtomicOutput {
 public:
  bool Open(const std::string& path, std::string* error) {
    path_ = path;
    if (path == "-") {
      fd_ = STDOUT_FILENO;
      return true;
    }
    temp_ = path + ".tmp.XXXXXX";
    fd_ = mkstemp(temp_.data());
    if (fd_ < 0) {
      *error = "cannot create a temporary file for '" + path + "': " + std::strerror(errno);
      return false;
    }
    return true;
  }
  bool Write(const char* data, size_t size) {
    while (size > 0) {
      ssize_t n = ::write(fd_, data, size);
      if (n < 0) {
        if (errno == EINTR) continue;
        failed_ = true;
        return false;
      }
      data += n;
      size -= static_cast<size_t>(n);
    }
    return true;
  }
  bool Commit(std::string* error) {
    if (path_ == "-") return !failed_;
    if (failed_ || ::fsync(fd_) != 0 || ::close(fd_) != 0) {
      *error = "cannot write '" + path_ + "': " + std::strerror(errno);
      Abandon();
      return false;
    }
    fd_ = -1;
    if (std::rename(temp_.c_str(), path_.c_str()) != 0) {
      *error = "cannot rename the output into '" + path_ + "': " + std::strerror(errno);
      ::unlink(temp_.c_str());
      return false;
    }
    return true;
  }
  void Abandon() {
    if (path_ != "-" && fd_ >= 0) {
      ::close(fd_);
      ::unlink(temp_.c_str());
      fd_ = -1;
    }
  }
  ~AtomicOutput() { Abandon(); }

 private:
  std::string path_, temp_;
  int fd_ = -1;
  bool failed_ = false;
};

}  // namespace

int main(int argc, char** argv) {
  hopt::ReleaseLibraryCodePages("libLLVM");
  llvm::cl::HideUnrelatedOptions(hopt_category);
  llvm::cl::ParseCommandLineOptions(argc, argv, "hopt: HLO module optimizer driver\n");

  std::string error;
  std::string display_name = input_file == "-" ? "<stdin>" : std::string(input_file);
  absl::StatusOr<std::unique_ptr<hopt::HloModule>> module;
  if (input_file == "-") {
    std::string text;
    if (!ReadAll(input_file, &text, &error)) {
      std::fprintf(stderr, "hopt: error: %s\n", error.c_str());
      return 1;
    }
    module = hopt::ParseHloModule(std::move(text), display_name);
  } else {
    module = hopt::ParseHloModuleFromFile(input_file, display_name);
  }
  if (!module.ok()) {
    std::fprintf(stderr, "%s\n", std::string(module.status().message()).c_str());
    return 1;
  }
  if (verify) {
    absl::Status status = hopt::VerifyModule(**module);
    if (!status.ok()) {
      std::fprintf(stderr, "%s: %s\n", display_name.c_str(), std::string(status.message()).c_str());
      return 1;
    }
  }
  hopt::PrintOptions options = print_style == Style::kShort
                                   ? hopt::PrintOptions::Short()
                                   : hopt::PrintOptions::Long(print_operand_shapes);
  AtomicOutput output;
  if (!output.Open(output_file, &error)) {
    std::fprintf(stderr, "hopt: error: %s\n", error.c_str());
    return 1;
  }
  hopt::PrintModule(**module, options,
                    [&](absl::string_view chunk) { output.Write(chunk.data(), chunk.size()); });
  if (!output.Commit(&error)) {
    std::fprintf(stderr, "hopt: error: %s\n", error.c_str());
    return 1;
  }
  return 0;
}
