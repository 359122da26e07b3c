// SPDX-License-Identifier: Apache-2.0

#include "hopt/support/split_manifest.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "hopt/ir/parser.h"
#include "hopt/ir/shape.h"
#include "hopt/support/status_macros.h"

namespace hopt {
namespace split {

ValueSource ValueSource::EntryParameter(int64_t number) {
  ValueSource source;
  source.kind = Kind::kEntryParameter;
  source.entry_parameter = number;
  return source;
}

ValueSource ValueSource::StageOutput(int64_t stage, int64_t output) {
  ValueSource source;
  source.kind = Kind::kStageOutput;
  source.stage = stage;
  source.output = output;
  return source;
}

bool ValueSource::operator==(const ValueSource& other) const {
  if (kind != other.kind) return false;
  if (kind == Kind::kEntryParameter) return entry_parameter == other.entry_parameter;
  return stage == other.stage && output == other.output;
}

std::string DescribeSource(const ValueSource& source) {
  if (source.kind == ValueSource::Kind::kEntryParameter)
    return absl::StrCat("entry parameter ", source.entry_parameter);
  return absl::StrCat("stage ", source.stage, " output ", source.output);
}

bool IsPlainFileName(absl::string_view name) {
  // The manifest may come from anywhere: a name that leaves the manifest's
  // directory could make a reader open (or a writer clobber) any file.
  return !name.empty() && name.find('/') == absl::string_view::npos &&
         name.find('\\') == absl::string_view::npos && name.find('\0') == absl::string_view::npos &&
         name.find("..") == absl::string_view::npos && name != ".";
}

bool SameShape(const Shape& a, const Shape& b) {
  // A shape written without a layout has XLA's default one.
  Shape x = a, y = b;
  x.EnsureLayout();
  y.EnsureLayout();
  return x == y;
}

namespace {

json::Value SourceToJson(const ValueSource& source) {
  json::Value value = json::Value::Object();
  if (source.kind == ValueSource::Kind::kEntryParameter) {
    value.Set("entry_parameter", json::Value::Int(source.entry_parameter));
  } else {
    value.Set("stage", json::Value::Int(source.stage));
    value.Set("output", json::Value::Int(source.output));
  }
  return value;
}

const char* KindName(json::Value::Kind kind) {
  switch (kind) {
    case json::Value::Kind::kNull: return "null";
    case json::Value::Kind::kBool: return "a boolean";
    case json::Value::Kind::kInt: return "an integer";
    case json::Value::Kind::kDouble: return "a number";
    case json::Value::Kind::kString: return "a string";
    case json::Value::Kind::kArray: return "an array";
    case json::Value::Kind::kObject: return "an object";
  }
  return "a value";
}

absl::Status FieldError(absl::string_view path, absl::string_view what) {
  if (path.empty()) return absl::InvalidArgumentError(absl::StrCat("manifest: ", what));
  return absl::InvalidArgumentError(absl::StrCat("manifest: ", path, ": ", what));
}

std::string Join(absl::string_view path, absl::string_view key) {
  return path.empty() ? std::string(key) : absl::StrCat(path, ".", key);
}

std::string Index(absl::string_view path, size_t i) { return absl::StrCat(path, "[", i, "]"); }

// Typed access to the members of one JSON object; errors name the member's
// path ("stages[2].parameters[1].source").
class ObjectReader {
 public:
  static absl::StatusOr<ObjectReader> Make(const json::Value& value, std::string path) {
    if (value.kind() != json::Value::Kind::kObject)
      return FieldError(path, absl::StrCat("expected an object, got ", KindName(value.kind())));
    return ObjectReader(value, std::move(path));
  }

  const std::string& path() const { return path_; }
  std::string Path(absl::string_view key) const { return Join(path_, key); }
  bool Has(absl::string_view key) const { return value_->Find(key) != nullptr; }

  absl::StatusOr<const json::Value*> Member(absl::string_view key) const {
    const json::Value* member = value_->Find(key);
    if (member == nullptr) return FieldError(path_, absl::StrCat("missing member '", key, "'"));
    return member;
  }
  absl::StatusOr<const json::Value*> Member(absl::string_view key, json::Value::Kind kind) const {
    HOPT_ASSIGN_OR_RETURN(const json::Value* member, Member(key));
    if (member->kind() != kind)
      return FieldError(
          Path(key), absl::StrCat("expected ", KindName(kind), ", got ", KindName(member->kind())));
    return member;
  }
  absl::StatusOr<int64_t> Int(absl::string_view key) const {
    HOPT_ASSIGN_OR_RETURN(auto member, Member(key, json::Value::Kind::kInt));
    return member->as_int();
  }
  absl::StatusOr<std::string> String(absl::string_view key) const {
    HOPT_ASSIGN_OR_RETURN(auto member, Member(key, json::Value::Kind::kString));
    return member->as_string();
  }
  absl::StatusOr<bool> Bool(absl::string_view key) const {
    HOPT_ASSIGN_OR_RETURN(auto member, Member(key, json::Value::Kind::kBool));
    return member->as_bool();
  }
  absl::StatusOr<const std::vector<json::Value>*> Array(absl::string_view key) const {
    HOPT_ASSIGN_OR_RETURN(auto member, Member(key, json::Value::Kind::kArray));
    return &member->items();
  }

 private:
  ObjectReader(const json::Value& value, std::string path)
      : value_(&value), path_(std::move(path)) {}
  const json::Value* value_;
  std::string path_;
};

// The shape parser reports "<shape>:1:C: error: why" plus the text and a
// caret on two more lines; a manifest error stays on one line.
std::string OneLineShapeError(absl::string_view message) {
  message = message.substr(0, message.find('\n'));
  std::vector<absl::string_view> parts = absl::StrSplit(message, absl::MaxSplits(": ", 1));
  std::vector<absl::string_view> where = absl::StrSplit(parts[0], ':');
  if (parts.size() == 2 && where.size() == 3 && where[0] == "<shape>") {
    absl::string_view why = parts[1];
    absl::ConsumePrefix(&why, "error: ");
    return absl::StrCat("column ", where[2], ": ", why);
  }
  return std::string(message);
}

absl::StatusOr<Shape> ReadShape(const ObjectReader& object, std::string* text) {
  HOPT_ASSIGN_OR_RETURN(*text, object.String("shape"));
  auto shape = ParseShape(*text);
  if (!shape.ok())
    return FieldError(
        object.Path("shape"),
        absl::StrCat("cannot parse '", *text, "': ", OneLineShapeError(shape.status().message())));
  return shape;
}

// Checks that `counter` equals `expected`: numbers and indices run 0..n-1 in
// order, so a reader can index by them.
absl::Status ExpectPosition(const ObjectReader& object, absl::string_view key, int64_t expected,
                            int64_t* out) {
  HOPT_ASSIGN_OR_RETURN(*out, object.Int(key));
  if (*out != expected)
    return FieldError(object.Path(key), absl::StrCat("expected ", expected, ", got ", *out));
  return absl::OkStatus();
}

absl::Status ExpectOneOf(const ObjectReader& object, absl::string_view key,
                         const std::vector<absl::string_view>& allowed, std::string* out) {
  HOPT_ASSIGN_OR_RETURN(*out, object.String(key));
  for (absl::string_view a : allowed)
    if (*out == a) return absl::OkStatus();
  return FieldError(object.Path(key),
                    absl::StrCat("'", *out, "' is not one of ", absl::StrJoin(allowed, ", ")));
}

absl::Status ExpectAtLeast(const ObjectReader& object, absl::string_view key, int64_t minimum,
                           int64_t* out) {
  HOPT_ASSIGN_OR_RETURN(*out, object.Int(key));
  if (*out < minimum)
    return FieldError(object.Path(key), absl::StrCat("must be at least ", minimum, ", got ", *out));
  return absl::OkStatus();
}

// Reads a manifest front to back; the shapes of the entry parameters and of
// every stage's outputs are kept so that later references can be checked.
class ManifestReader {
 public:
  absl::StatusOr<Manifest> Read(const json::Value& value) {
    HOPT_ASSIGN_OR_RETURN(ObjectReader root, ObjectReader::Make(value, ""));
    std::string format;
    HOPT_ASSIGN_OR_RETURN(format, root.String("format"));
    if (format != kManifestFormat)
      return FieldError("format",
                        absl::StrCat("expected '", kManifestFormat, "', got '", format, "'"));
    HOPT_ASSIGN_OR_RETURN(manifest_.version, root.Int("version"));
    if (manifest_.version != kManifestVersion)
      return FieldError("version",
                        absl::StrCat("unsupported version ", manifest_.version,
                                     " (this reader knows version ", kManifestVersion, ")"));
    HOPT_ASSIGN_OR_RETURN(manifest_.module, root.String("module"));
    HOPT_RETURN_IF_ERROR(ExpectAtLeast(root, "replica_count", 1, &manifest_.replica_count));
    HOPT_RETURN_IF_ERROR(ExpectAtLeast(root, "num_partitions", 1, &manifest_.num_partitions));
    HOPT_RETURN_IF_ERROR(ExpectAtLeast(root, "instruction_count", 0, &manifest_.instruction_count));

    const std::vector<json::Value>* parameters;
    HOPT_ASSIGN_OR_RETURN(parameters, root.Array("entry_parameters"));
    for (size_t i = 0; i < parameters->size(); ++i)
      HOPT_RETURN_IF_ERROR(ReadEntryParameter((*parameters)[i], i));

    const std::vector<json::Value>* stages;
    HOPT_ASSIGN_OR_RETURN(stages, root.Array("stages"));
    stage_count_ = static_cast<int64_t>(stages->size());
    for (size_t i = 0; i < stages->size(); ++i) HOPT_RETURN_IF_ERROR(ReadStage((*stages)[i], i));

    const json::Value* result;
    HOPT_ASSIGN_OR_RETURN(result, root.Member("result", json::Value::Kind::kObject));
    HOPT_RETURN_IF_ERROR(ReadResult(*result));
    return std::move(manifest_);
  }

 private:
  absl::Status ReadEntryParameter(const json::Value& value, size_t i) {
    HOPT_ASSIGN_OR_RETURN(ObjectReader object,
                          ObjectReader::Make(value, Index("entry_parameters", i)));
    EntryParameter parameter;
    HOPT_RETURN_IF_ERROR(
        ExpectPosition(object, "number", static_cast<int64_t>(i), &parameter.number));
    HOPT_ASSIGN_OR_RETURN(parameter.name, object.String("name"));
    HOPT_ASSIGN_OR_RETURN(Shape shape, ReadShape(object, &parameter.shape));
    entry_shapes_.push_back(std::move(shape));
    manifest_.entry_parameters.push_back(std::move(parameter));
    return absl::OkStatus();
  }

  absl::Status ReadStage(const json::Value& value, size_t i) {
    HOPT_ASSIGN_OR_RETURN(ObjectReader object, ObjectReader::Make(value, Index("stages", i)));
    Stage stage;
    HOPT_RETURN_IF_ERROR(ExpectPosition(object, "index", static_cast<int64_t>(i), &stage.index));
    HOPT_ASSIGN_OR_RETURN(stage.name, object.String("name"));
    HOPT_ASSIGN_OR_RETURN(stage.file, object.String("file"));
    if (!IsPlainFileName(stage.file))
      return FieldError(
          object.Path("file"),
          absl::StrCat("'", stage.file, "' is not a plain file name (no '/', no '..', not empty)"));
    for (const Stage& earlier : manifest_.stages)
      if (earlier.file == stage.file)
        return FieldError(
            object.Path("file"),
            absl::StrCat("'", stage.file, "' is also the file of stage ", earlier.index));
    HOPT_RETURN_IF_ERROR(ExpectOneOf(
        object, "kind", {"prologue", "layer", "between", "epilogue", "whole"}, &stage.kind));
    HOPT_RETURN_IF_ERROR(
        ExpectOneOf(object, "direction", {"forward", "backward", "none"}, &stage.direction));
    HOPT_ASSIGN_OR_RETURN(const json::Value* count, object.Member("boundary_count"));
    if (count->kind() == json::Value::Kind::kInt) {
      stage.boundary_count = count->as_int();
    } else if (!count->is_null()) {
      return FieldError(object.Path("boundary_count"),
                        absl::StrCat("expected an integer or null, got ", KindName(count->kind())));
    }
    HOPT_ASSIGN_OR_RETURN(stage.start_marker, object.String("start_marker"));
    HOPT_ASSIGN_OR_RETURN(stage.end_marker, object.String("end_marker"));
    HOPT_RETURN_IF_ERROR(ExpectAtLeast(object, "instruction_count", 0, &stage.instruction_count));
    HOPT_RETURN_IF_ERROR(
        ExpectAtLeast(object, "rematerialized_count", 0, &stage.rematerialized_count));

    const std::vector<json::Value>* parameters;
    HOPT_ASSIGN_OR_RETURN(parameters, object.Array("parameters"));
    for (size_t k = 0; k < parameters->size(); ++k) {
      HOPT_ASSIGN_OR_RETURN(
          ObjectReader parameter_object,
          ObjectReader::Make((*parameters)[k], Index(object.Path("parameters"), k)));
      StageParameter parameter;
      HOPT_RETURN_IF_ERROR(
          ExpectPosition(parameter_object, "number", static_cast<int64_t>(k), &parameter.number));
      HOPT_ASSIGN_OR_RETURN(parameter.name, parameter_object.String("name"));
      HOPT_ASSIGN_OR_RETURN(Shape shape, ReadShape(parameter_object, &parameter.shape));
      HOPT_ASSIGN_OR_RETURN(parameter.source, ReadSource(parameter_object, "source", stage.index));
      const Shape& expected = SourceShape(parameter.source);
      if (!SameShape(shape, expected))
        return FieldError(
            parameter_object.Path("shape"),
            absl::StrCat(parameter.shape, " is not the shape of its source, ",
                         DescribeSource(parameter.source), " (", expected.ToString(), ")"));
      stage.parameters.push_back(std::move(parameter));
    }

    const std::vector<json::Value>* outputs;
    HOPT_ASSIGN_OR_RETURN(outputs, object.Array("outputs"));
    std::vector<Shape> output_shapes;
    for (size_t k = 0; k < outputs->size(); ++k) {
      HOPT_ASSIGN_OR_RETURN(ObjectReader output_object,
                            ObjectReader::Make((*outputs)[k], Index(object.Path("outputs"), k)));
      StageOutput output;
      HOPT_RETURN_IF_ERROR(
          ExpectPosition(output_object, "index", static_cast<int64_t>(k), &output.index));
      HOPT_ASSIGN_OR_RETURN(output.name, output_object.String("name"));
      HOPT_ASSIGN_OR_RETURN(Shape shape, ReadShape(output_object, &output.shape));
      output_shapes.push_back(std::move(shape));
      const std::vector<json::Value>* consumers;
      HOPT_ASSIGN_OR_RETURN(consumers, output_object.Array("consumers"));
      for (size_t c = 0; c < consumers->size(); ++c) {
        const json::Value& consumer = (*consumers)[c];
        std::string path = Index(output_object.Path("consumers"), c);
        if (consumer.kind() != json::Value::Kind::kInt)
          return FieldError(path,
                            absl::StrCat("expected an integer, got ", KindName(consumer.kind())));
        int64_t reader = consumer.as_int();
        if (reader != -1 && (reader <= stage.index || reader >= stage_count_))
          return FieldError(path, absl::StrCat(reader,
                                               " is neither a later stage nor -1 (the "
                                               "module's result)"));
        output.consumers.push_back(reader);
      }
      stage.outputs.push_back(std::move(output));
    }
    output_shapes_.push_back(std::move(output_shapes));
    manifest_.stages.push_back(std::move(stage));
    return absl::OkStatus();
  }

  absl::Status ReadResult(const json::Value& value) {
    HOPT_ASSIGN_OR_RETURN(ObjectReader object, ObjectReader::Make(value, "result"));
    HOPT_ASSIGN_OR_RETURN(Shape shape, ReadShape(object, &manifest_.result_shape));
    HOPT_ASSIGN_OR_RETURN(manifest_.result_is_tuple, object.Bool("tuple"));
    const std::vector<json::Value>* values;
    HOPT_ASSIGN_OR_RETURN(values, object.Array("values"));
    if (manifest_.result_is_tuple) {
      if (!shape.IsTuple())
        return FieldError(object.Path("shape"),
                          absl::StrCat("'", manifest_.result_shape,
                                       "' is not a tuple shape, but 'tuple' is true"));
      if (static_cast<int64_t>(values->size()) != shape.tuple_shapes_size())
        return FieldError(object.Path("values"),
                          absl::StrCat("the result has ", shape.tuple_shapes_size(),
                                       " tuple element(s), got ", values->size(), " value(s)"));
    } else if (values->size() != 1) {
      return FieldError(
          object.Path("values"),
          absl::StrCat("a non-tuple result has exactly 1 value, got ", values->size()));
    }
    for (size_t k = 0; k < values->size(); ++k) {
      std::string path = Index(object.Path("values"), k);
      HOPT_ASSIGN_OR_RETURN(ValueSource source, ParseSource((*values)[k], path, stage_count_));
      const Shape& expected = manifest_.result_is_tuple ? shape.tuple_shapes(k) : shape;
      const Shape& actual = SourceShape(source);
      if (!SameShape(actual, expected))
        return FieldError(
            path, absl::StrCat(DescribeSource(source), " has shape ", actual.ToString(),
                               ", the result ", manifest_.result_is_tuple ? "element" : "value",
                               " is ", expected.ToString()));
      manifest_.result.push_back(source);
    }
    return absl::OkStatus();
  }

  absl::StatusOr<ValueSource> ReadSource(const ObjectReader& object, absl::string_view key,
                                         int64_t reader) {
    HOPT_ASSIGN_OR_RETURN(const json::Value* value, object.Member(key, json::Value::Kind::kObject));
    return ParseSource(*value, object.Path(key), reader);
  }

  // A source read by stage `reader` (or by the result, reader = number of
  // stages) must name an existing entry parameter or an output of an
  // earlier stage.
  absl::StatusOr<ValueSource> ParseSource(const json::Value& value, const std::string& path,
                                          int64_t reader) {
    HOPT_ASSIGN_OR_RETURN(ObjectReader object, ObjectReader::Make(value, path));
    bool entry = object.Has("entry_parameter");
    if (entry == (object.Has("stage") || object.Has("output")))
      return FieldError(path, "expected {\"entry_parameter\":N} or {\"stage\":S,\"output\":K}");
    if (entry) {
      HOPT_ASSIGN_OR_RETURN(int64_t number, object.Int("entry_parameter"));
      if (number < 0 || number >= static_cast<int64_t>(entry_shapes_.size()))
        return FieldError(
            path, absl::StrCat("entry parameter ", number, " does not exist (the module has ",
                               entry_shapes_.size(), ")"));
      return ValueSource::EntryParameter(number);
    }
    HOPT_ASSIGN_OR_RETURN(int64_t stage, object.Int("stage"));
    HOPT_ASSIGN_OR_RETURN(int64_t output, object.Int("output"));
    if (stage < 0 || stage >= stage_count_)
      return FieldError(path, absl::StrCat("stage ", stage, " does not exist (the manifest has ",
                                           stage_count_, " stage(s))"));
    if (stage >= reader)
      return FieldError(path, absl::StrCat("stage ", stage, " is not before stage ", reader));
    int64_t outputs = static_cast<int64_t>(output_shapes_[stage].size());
    if (output < 0 || output >= outputs)
      return FieldError(path, absl::StrCat("stage ", stage, " has no output ", output, " (it has ",
                                           outputs, ")"));
    return ValueSource::StageOutput(stage, output);
  }

  const Shape& SourceShape(const ValueSource& source) const {
    if (source.kind == ValueSource::Kind::kEntryParameter)
      return entry_shapes_[source.entry_parameter];
    return output_shapes_[source.stage][source.output];
  }

  Manifest manifest_;
  int64_t stage_count_ = 0;
  std::vector<Shape> entry_shapes_;
  std::vector<std::vector<Shape>> output_shapes_;
};

}  // namespace

json::Value ToJson(const Manifest& manifest) {
  json::Value root = json::Value::Object();
  root.Set("format", json::Value::String(kManifestFormat));
  root.Set("version", json::Value::Int(manifest.version));
  root.Set("module", json::Value::String(manifest.module));
  root.Set("replica_count", json::Value::Int(manifest.replica_count));
  root.Set("num_partitions", json::Value::Int(manifest.num_partitions));
  root.Set("instruction_count", json::Value::Int(manifest.instruction_count));
  json::Value parameters = json::Value::Array();
  for (const EntryParameter& p : manifest.entry_parameters) {
    json::Value value = json::Value::Object();
    value.Set("number", json::Value::Int(p.number));
    value.Set("name", json::Value::String(p.name));
    value.Set("shape", json::Value::String(p.shape));
    parameters.Append(std::move(value));
  }
  root.Set("entry_parameters", std::move(parameters));
  json::Value stages = json::Value::Array();
  for (const Stage& stage : manifest.stages) {
    json::Value value = json::Value::Object();
    value.Set("index", json::Value::Int(stage.index));
    value.Set("name", json::Value::String(stage.name));
    value.Set("file", json::Value::String(stage.file));
    value.Set("kind", json::Value::String(stage.kind));
    value.Set("direction", json::Value::String(stage.direction));
    value.Set("boundary_count",
              stage.boundary_count ? json::Value::Int(*stage.boundary_count) : json::Value());
    value.Set("start_marker", json::Value::String(stage.start_marker));
    value.Set("end_marker", json::Value::String(stage.end_marker));
    value.Set("instruction_count", json::Value::Int(stage.instruction_count));
    value.Set("rematerialized_count", json::Value::Int(stage.rematerialized_count));
    json::Value stage_parameters = json::Value::Array();
    for (const StageParameter& p : stage.parameters) {
      json::Value parameter = json::Value::Object();
      parameter.Set("number", json::Value::Int(p.number));
      parameter.Set("name", json::Value::String(p.name));
      parameter.Set("shape", json::Value::String(p.shape));
      parameter.Set("source", SourceToJson(p.source));
      stage_parameters.Append(std::move(parameter));
    }
    value.Set("parameters", std::move(stage_parameters));
    json::Value outputs = json::Value::Array();
    for (const StageOutput& o : stage.outputs) {
      json::Value output = json::Value::Object();
      output.Set("index", json::Value::Int(o.index));
      output.Set("name", json::Value::String(o.name));
      output.Set("shape", json::Value::String(o.shape));
      json::Value consumers = json::Value::Array();
      for (int64_t c : o.consumers) consumers.Append(json::Value::Int(c));
      output.Set("consumers", std::move(consumers));
      outputs.Append(std::move(output));
    }
    value.Set("outputs", std::move(outputs));
    stages.Append(std::move(value));
  }
  root.Set("stages", std::move(stages));
  json::Value result = json::Value::Object();
  result.Set("shape", json::Value::String(manifest.result_shape));
  result.Set("tuple", json::Value::Bool(manifest.result_is_tuple));
  json::Value values = json::Value::Array();
  for (const ValueSource& source : manifest.result) values.Append(SourceToJson(source));
  result.Set("values", std::move(values));
  root.Set("result", std::move(result));
  return root;
}

absl::StatusOr<Manifest> ManifestFromJson(const json::Value& value) {
  return ManifestReader().Read(value);
}

absl::StatusOr<Manifest> ParseManifest(absl::string_view text) {
  auto value = json::Parse(text);
  if (!value.ok())
    return absl::InvalidArgumentError(absl::StrCat("manifest: ", value.status().message()));
  return ManifestFromJson(*value);
}

absl::Status ValidateManifest(const Manifest& manifest) {
  return ManifestFromJson(ToJson(manifest)).status();
}

absl::StatusOr<Manifest> ReadManifestFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return absl::NotFoundError(absl::StrCat("cannot open '", path, "': ", std::strerror(errno)));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad())
    return absl::DataLossError(absl::StrCat("cannot read '", path, "': ", std::strerror(errno)));
  auto manifest = ParseManifest(text.str());
  if (!manifest.ok())
    return absl::Status(manifest.status().code(),
                        absl::StrCat(path, ": ", manifest.status().message()));
  return manifest;
}

}  // namespace split
}  // namespace hopt
