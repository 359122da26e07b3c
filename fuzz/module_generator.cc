// SPDX-License-Identifier: Apache-2.0

#include "fuzz/module_generator.h"

#include <algorithm>
#include <set>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace hopt {
namespace fuzz {
namespace {

// Choices read from the fuzzer's bytes; zeros once they run out, so every
// input ends in a small, complete module.
class Choices {
 public:
  Choices(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  // In [0, n).
  int64_t Below(int64_t n) {
    if (n <= 1) return 0;
    uint32_t value = 0;
    for (int k = 0; k < 2; ++k) value = value << 8 | (at_ < size_ ? data_[at_++] : 0);
    return static_cast<int64_t>(value % static_cast<uint32_t>(n));
  }
  bool Flip() { return Below(2) == 1; }
  bool Done() const { return at_ >= size_; }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t at_ = 0;
};

const char* const kTypes[] = {"f32", "bf16", "f16", "s32", "s8", "u8", "pred"};

bool IsFloat(const std::string& t) { return t == "f32" || t == "bf16" || t == "f16"; }
bool IsInt(const std::string& t) { return t == "s32" || t == "s8" || t == "u8"; }

struct Value {
  std::string name;
  std::string type;  // an element type, or "token"
  std::vector<int64_t> dims;
  bool IsArray() const { return type != "token" && type != "opaque" && type != "buffer"; }
  std::string Shape() const {
    if (type == "buffer") return "b(f32[2])";
    if (!IsArray()) return type + "[]";
    return absl::StrCat(type, "[", absl::StrJoin(dims, ","), "]");
  }
  int64_t Elements() const {
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    return n;
  }
};

class Writer {
 public:
  Writer(const uint8_t* data, size_t size) : in_(data, size) {}

  GeneratedModule Write() {
    GeneratedModule out;
    out.replicas = int64_t{1} << in_.Below(3);  // 1, 2 or 4
    replicas_ = out.replicas;
    int parameters = 1 + static_cast<int>(in_.Below(3));
    for (int k = 0; k < parameters; ++k) {
      Value v{Name("p"), kTypes[in_.Below(7)], Dims()};
      Emit(v, absl::StrCat("parameter(", k, ")"));
    }
    // Now and then a value with no elements to hold: an opaque or a token
    // parameter, passed on through copy, or a buffer one (which the
    // interpreter refuses before it runs).
    if (in_.Below(4) == 0) {
      const char* kinds[] = {"opaque", "token", "buffer"};
      Value o{Name("p"), kinds[in_.Below(3)], {}};
      Emit(o, absl::StrCat("parameter(", parameters, ")"));
      if (o.type != "buffer") Emit({Name("oc"), o.type, {}}, absl::StrCat("copy(", o.name, ")"));
    }
    for (int steps = 0; steps < 24 && !in_.Done(); ++steps) Step();
    // The root: a tuple of the last few values (a token among them too).
    std::vector<std::string> names, shapes;
    size_t first = values_.size() > 4 ? values_.size() - 4 : 0;
    for (size_t k = first; k < values_.size(); ++k) {
      names.push_back(values_[k].name);
      shapes.push_back(values_[k].Shape());
    }
    body_ += absl::StrCat("  ROOT root = (", absl::StrJoin(shapes, ", "), ") tuple(",
                          absl::StrJoin(names, ", "), ")\n");
    out.text = absl::StrCat("HloModule generated, replica_count=", replicas_, "\n\n", helpers_,
                            "ENTRY main {\n", body_, "}\n");
    return out;
  }

 private:
  std::string Name(const char* stem) { return absl::StrCat(stem, ".", counter_++); }
  std::vector<int64_t> Dims() {
    std::vector<int64_t> dims(static_cast<size_t>(in_.Below(4)));
    for (int64_t& d : dims) d = in_.Below(5);  // 0 to 4: zero-sized ones too
    return dims;
  }
  void Emit(const Value& v, const std::string& rest) {
    body_ += absl::StrCat("  ", v.name, " = ", v.Shape(), " ", rest, "\n");
    values_.push_back(v);
  }
  // An earlier array value (never a token).
  const Value* Pick() {
    std::vector<const Value*> arrays;
    for (const Value& v : values_)
      if (v.IsArray()) arrays.push_back(&v);
    if (arrays.empty()) return nullptr;
    return arrays[static_cast<size_t>(in_.Below(static_cast<int64_t>(arrays.size())))];
  }
  // An earlier value of `like`'s shape, or `like` itself.
  const Value& SameShape(const Value& like) {
    std::vector<const Value*> same;
    for (const Value& v : values_)
      if (v.type == like.type && v.dims == like.dims) same.push_back(&v);
    return *same[static_cast<size_t>(in_.Below(static_cast<int64_t>(same.size())))];
  }
  // A scalar computation `kind` (add, max, lt) over `type`, written once.
  std::string Helper(const std::string& kind, const std::string& type) {
    std::string name = absl::StrCat(kind, "_", type);
    if (!written_.insert(name).second) return name;
    std::string op = kind == "add"   ? (type == "pred" ? "or" : "add")
                     : kind == "max" ? (type == "pred" ? "or" : "maximum")
                                     : "compare";
    std::string result = kind == "lt" ? "pred" : type;
    helpers_ += absl::StrCat(name, " {\n  a = ", type, "[] parameter(0)\n  b = ", type,
                             "[] parameter(1)\n  ROOT r = ", result, "[] ", op, "(a, b)",
                             kind == "lt" ? ", direction=LT" : "", "\n}\n\n");
    return name;
  }
  std::string Constant(const std::string& type, int64_t value) {
    Value c{Name("c"), type, {}};
    std::string text = type == "pred" ? (value != 0 ? "true" : "false") : absl::StrCat(value);
    Emit(c, absl::StrCat("constant(", text, ")"));
    return c.name;
  }

  void Step() {
    const Value* picked = Pick();
    if (picked == nullptr) return;
    Value a = *picked;  // copied: Emit grows values_
    std::string t = a.type;
    switch (in_.Below(22)) {
      case 0: {  // unary
        std::string op =
            IsFloat(t) ? std::vector<std::string>{"negate", "abs",  "exponential", "sqrt",
                                                  "floor",  "tanh", "sign"}[in_.Below(7)]
            : IsInt(t) ? std::vector<std::string>{"negate", "abs", "not", "popcnt"}[in_.Below(4)]
                       : std::string("not");
        Emit({Name("u"), t, a.dims}, absl::StrCat(op, "(", a.name, ")"));
        break;
      }
      case 1: {  // binary
        const Value& b = SameShape(a);
        std::string op =
            t == "pred" ? std::vector<std::string>{"and", "or", "xor"}[in_.Below(3)]
            : IsInt(t)
                ? std::vector<std::string>{"add",       "subtract", "multiply",  "divide",
                                           "remainder", "maximum",  "shift-left"}[in_.Below(7)]
                : std::vector<std::string>{"add",     "subtract", "multiply", "divide",
                                           "maximum", "minimum",  "power"}[in_.Below(7)];
        Emit({Name("b"), t, a.dims}, absl::StrCat(op, "(", a.name, ", ", b.name, ")"));
        break;
      }
      case 2: {  // compare
        const Value& b = SameShape(a);
        const char* dirs[] = {"EQ", "NE", "LT", "LE", "GT", "GE"};
        Emit({Name("cmp"), "pred", a.dims},
             absl::StrCat("compare(", a.name, ", ", b.name, "), direction=", dirs[in_.Below(6)]));
        break;
      }
      case 3: {  // select on a predicate of the same dims
        Value p{Name("sp"), "pred", a.dims};
        Emit(p, absl::StrCat("compare(", a.name, ", ", a.name, "), direction=EQ"));
        Emit({Name("sel"), t, a.dims},
             absl::StrCat("select(", p.name, ", ", a.name, ", ", SameShape(a).name, ")"));
        break;
      }
      case 4: {  // convert
        std::string to = kTypes[in_.Below(7)];
        Emit({Name("cv"), to, a.dims}, absl::StrCat("convert(", a.name, ")"));
        break;
      }
      case 5: {  // broadcast into one more dimension in front
        std::vector<int64_t> dims = {in_.Below(3)};
        std::vector<int64_t> map;
        for (size_t k = 0; k < a.dims.size(); ++k) {
          dims.push_back(a.dims[k]);
          map.push_back(static_cast<int64_t>(k) + 1);
        }
        if (dims.size() > 4) return;
        Emit({Name("bc"), t, dims},
             absl::StrCat("broadcast(", a.name, "), dimensions={", absl::StrJoin(map, ","), "}"));
        break;
      }
      case 6:  // reshape to rank 1
        Emit({Name("rs"), t, {a.Elements()}}, absl::StrCat("reshape(", a.name, ")"));
        break;
      case 7: {  // transpose: the dimensions reversed
        std::vector<int64_t> dims(a.dims.rbegin(), a.dims.rend()), perm;
        for (size_t k = 0; k < a.dims.size(); ++k)
          perm.push_back(static_cast<int64_t>(a.dims.size() - 1 - k));
        Emit({Name("tr"), t, dims},
             absl::StrCat("transpose(", a.name, "), dimensions={", absl::StrJoin(perm, ","), "}"));
        break;
      }
      case 8: {  // slice
        std::vector<std::string> parts;
        std::vector<int64_t> dims;
        for (int64_t d : a.dims) {
          int64_t start = in_.Below(d + 1), limit = start + in_.Below(d - start + 1);
          int64_t stride = 1 + in_.Below(2);
          parts.push_back(absl::StrCat("[", start, ":", limit, ":", stride, "]"));
          dims.push_back((limit - start + stride - 1) / stride);
        }
        Emit({Name("sl"), t, dims},
             absl::StrCat("slice(", a.name, "), slice={", absl::StrJoin(parts, ", "), "}"));
        break;
      }
      case 9: {  // reverse every dimension
        std::vector<int64_t> all;
        for (size_t k = 0; k < a.dims.size(); ++k) all.push_back(static_cast<int64_t>(k));
        Emit({Name("rv"), t, a.dims},
             absl::StrCat("reverse(", a.name, "), dimensions={", absl::StrJoin(all, ","), "}"));
        break;
      }
      case 10: {  // pad, edges and interior
        std::string zero = Constant(t, 0);
        std::vector<std::string> parts;
        std::vector<int64_t> dims;
        for (int64_t d : a.dims) {
          int64_t lo = in_.Below(3) - 1, hi = in_.Below(3), interior = in_.Below(2);
          int64_t size = d + lo + hi + (d > 0 ? (d - 1) * interior : 0);
          if (size < 0) lo = 0, size = d + hi + (d > 0 ? (d - 1) * interior : 0);
          parts.push_back(absl::StrCat(lo, "_", hi, "_", interior));
          dims.push_back(size);
        }
        Emit({Name("pd"), t, dims}, absl::StrCat("pad(", a.name, ", ", zero, "), padding=",
                                                 parts.empty() ? "{}" : absl::StrJoin(parts, "x")));
        break;
      }
      case 11: {  // concatenate with a same-shaped value along dimension 0
        if (a.dims.empty()) return;
        const Value& b = SameShape(a);
        std::vector<int64_t> dims = a.dims;
        dims[0] *= 2;
        Emit({Name("cc"), t, dims},
             absl::StrCat("concatenate(", a.name, ", ", b.name, "), dimensions={0}"));
        break;
      }
      case 12: {  // reduce one dimension
        if (a.dims.empty()) return;
        int64_t k = in_.Below(static_cast<int64_t>(a.dims.size()));
        std::vector<int64_t> dims = a.dims;
        dims.erase(dims.begin() + k);
        std::string init = Constant(t, 0);
        Emit({Name("rd"), t, dims},
             absl::StrCat("reduce(", a.name, ", ", init, "), dimensions={", k,
                          "}, to_apply=", Helper(in_.Flip() ? "add" : "max", t)));
        break;
      }
      case 13: {  // dot of a matrix with itself, contracting its columns
        if (a.dims.size() != 2 || t == "pred") return;
        Emit({Name("dt"), t, {a.dims[0], a.dims[0]}},
             absl::StrCat("dot(", a.name, ", ", a.name,
                          "), lhs_contracting_dims={1}, rhs_contracting_dims={1}"));
        break;
      }
      case 14: {  // sort along dimension 0
        if (a.dims.empty() || t == "pred") return;
        Emit({Name("st"), t, a.dims},
             absl::StrCat("sort(", a.name, "), dimensions={0}, to_apply=", Helper("lt", t),
                          in_.Flip() ? ", is_stable=true" : ""));
        break;
      }
      case 15: {  // dynamic-slice with indices that may be out of range (clamped)
        std::vector<std::string> starts;
        std::vector<int64_t> sizes;
        for (int64_t d : a.dims) {
          starts.push_back(Constant("s32", in_.Below(7) - 2));
          sizes.push_back(in_.Below(d + 1));
        }
        Emit({Name("ds"), t, sizes},
             absl::StrCat("dynamic-slice(", a.name, starts.empty() ? "" : ", ",
                          absl::StrJoin(starts, ", "), "), dynamic_slice_sizes={",
                          absl::StrJoin(sizes, ","), "}"));
        break;
      }
      case 16: {  // a tuple taken apart again
        const Value& b = SameShape(a);
        std::string tuple = Name("tp");
        body_ += absl::StrCat("  ", tuple, " = (", a.Shape(), ", ", b.Shape(), ") tuple(", a.name,
                              ", ", b.name, ")\n");
        int64_t k = in_.Below(2);
        Emit({Name("gte"), t, a.dims}, absl::StrCat("get-tuple-element(", tuple, "), index=", k));
        break;
      }
      case 17:  // a token
        Emit({Name("tok"), "token", {}}, "after-all()");
        break;
      case 18: {  // a collective over all replicas
        if (t == "pred") return;
        int64_t which = in_.Below(3);
        if (which == 0) {
          Emit({Name("ar"), t, a.dims},
               absl::StrCat("all-reduce(", a.name,
                            "), replica_groups={}, to_apply=", Helper("add", t)));
        } else if (which == 1 && !a.dims.empty()) {
          std::vector<int64_t> dims = a.dims;
          dims[0] *= replicas_;
          Emit({Name("ag"), t, dims},
               absl::StrCat("all-gather(", a.name, "), replica_groups={}, dimensions={0}"));
        } else {
          std::vector<std::string> pairs;
          for (int64_t r = 0; r < replicas_; ++r)
            pairs.push_back(absl::StrCat("{", r, ",", (r + 1) % replicas_, "}"));
          Emit({Name("cp"), t, a.dims},
               absl::StrCat("collective-permute(", a.name, "), source_target_pairs={",
                            absl::StrJoin(pairs, ","), "}"));
        }
        break;
      }
      case 19: {  // a counted while loop that negates (or keeps) its value
        if (t == "pred") return;
        int64_t trips = in_.Below(4);
        std::string loop = Name("loop");
        std::string state = absl::StrCat("(s32[], ", a.Shape(), ")");
        helpers_ += absl::StrCat(loop, "_cond {\n  s = ", state,
                                 " parameter(0)\n  i = s32[] get-tuple-element(s), index=0\n"
                                 "  n = s32[] constant(",
                                 trips, ")\n  ROOT lt = pred[] compare(i, n), direction=LT\n}\n\n");
        helpers_ += absl::StrCat(loop, "_body {\n  s = ", state,
                                 " parameter(0)\n  i = s32[] get-tuple-element(s), index=0\n"
                                 "  one = s32[] constant(1)\n  next = s32[] add(i, one)\n  v = ",
                                 a.Shape(), " get-tuple-element(s), index=1\n  w = ", a.Shape(),
                                 " negate(v)\n  ROOT out = ", state, " tuple(next, w)\n}\n\n");
        std::string zero = Constant("s32", 0);
        std::string init = Name("init"), w = Name("w");
        body_ += absl::StrCat("  ", init, " = ", state, " tuple(", zero, ", ", a.name, ")\n  ", w,
                              " = ", state, " while(", init, "), condition=", loop,
                              "_cond, body=", loop, "_body\n");
        Emit({Name("wv"), t, a.dims}, absl::StrCat("get-tuple-element(", w, "), index=1"));
        break;
      }
      case 20: {  // a conditional on a predicate: one branch or the other
        if (t == "pred") return;
        std::string branch = Name("branch");
        for (const char* op : {"negate", "abs"})
          helpers_ += absl::StrCat(branch, "_", op, " {\n  x = ", a.Shape(),
                                   " parameter(0)\n  ROOT y = ", a.Shape(), " ", op, "(x)\n}\n\n");
        std::string flag = Constant("pred", in_.Below(2));
        Emit({Name("cond"), t, a.dims},
             absl::StrCat("conditional(", flag, ", ", a.name, ", ", a.name, "), true_computation=",
                          branch, "_negate, false_computation=", branch, "_abs"));
        break;
      }
      default: {  // iota
        Value v{Name("io"), IsFloat(t) || IsInt(t) ? t : "s32", Dims()};
        if (v.dims.empty()) v.dims.push_back(in_.Below(5));
        Emit(v, absl::StrCat("iota(), iota_dimension=",
                             in_.Below(static_cast<int64_t>(v.dims.size()))));
        break;
      }
    }
  }

  Choices in_;
  int64_t replicas_ = 1;
  int counter_ = 0;
  std::vector<Value> values_;
  std::string body_, helpers_;
  std::set<std::string> written_;
};

}  // namespace

GeneratedModule GenerateModule(const uint8_t* data, size_t size) {
  return Writer(data, size).Write();
}

}  // namespace fuzz
}  // namespace hopt
