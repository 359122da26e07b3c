// SPDX-License-Identifier: Apache-2.0
// Legacy and unknown fields on reading (legacy_fields.h).

#include "core/proto/legacy_fields.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "core/proto/hlo.pb.h"
#include "core/proto/wire.h"

namespace hopt {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

// Every field hlo.proto declares in a "Legacy" block, with when it left
// XLA. The years come from the XLA schemas of those years (hlo.proto and
// xla_data.proto), where the field is declared, then `reserved`.
struct LegacyField {
  const char* message;  // full name
  int number;
  const char* history;
};
constexpr LegacyField kLegacyFields[] = {
    // LayoutProto: format, padded_dimensions, padding_value, max_sparse_elements.
    {"xla.LayoutProto", 4, "removed from XLA in 2022"},
    {"xla.LayoutProto", 2, "removed from XLA before 2020"},
    {"xla.LayoutProto", 3, "removed from XLA before 2020"},
    {"xla.LayoutProto", 5, "removed from XLA before 2020"},
    // OpMetadata: creation_pass_id, logical_creation_pass_id.
    {"xla.OpMetadata", 6, "removed from XLA after 2023"},
    {"xla.OpMetadata", 7, "removed from XLA after 2023"},
    // HloInstructionProto: channel_name, cost_estimate_ns,
    // outer_dimension_partitions, async_group_id.
    {"xla.HloInstructionProto", 41, "removed from XLA after 2020"},
    {"xla.HloInstructionProto", 42, "removed from XLA after 2020"},
    {"xla.HloInstructionProto", 64, "removed from XLA by 2023"},
    {"xla.HloInstructionProto", 78, "removed from XLA after 2023"},
    // HloComputationProto.spmd_output_sharding.
    {"xla.HloComputationProto", 9, "removed from XLA after 2023"},
    // HloModuleProto.dynamic_parameter_binding.
    {"xla.HloModuleProto", 9, "removed from XLA in 2023"},
};

// What the walk does in one message type: its legacy fields, and the
// message fields to look into (map fields aside: their entries are plain
// key-value pairs, and reflecting over a map is costly).
struct TypePlan {
  const Descriptor* type = nullptr;
  std::vector<std::pair<const FieldDescriptor*, const LegacyField*>> legacy;
  std::vector<const FieldDescriptor*> messages;

  // For the wire scan, by field number: a table for XLA's numbers (all
  // small), the descriptor for hopt's own (10001 and up).
  enum class Role : uint8_t { kUndeclared, kPlain, kMessage, kLegacy };
  struct Slot {
    Role role = Role::kUndeclared;
    const TypePlan* child = nullptr;  // kMessage: the field's type
  };
  std::vector<Slot> slots;
  Slot SlotOf(uint64_t number) const {
    if (number < slots.size()) return slots[number];
    if (number <= static_cast<uint64_t>(FieldDescriptor::kMaxNumber) &&
        type->FindFieldByNumber(static_cast<int>(number)) != nullptr)
      return {Role::kPlain, nullptr};  // hopt's own fields hold no message
    return {};
  }
};

// Field numbers below this are looked up in a table; XLA's run to about 100.
constexpr int kDenseFieldNumbers = 256;

class Plans {
 public:
  Plans() {
    Add(xla::HloSnapshot::descriptor());
    for (auto& [type, plan] : plans_)
      for (TypePlan::Slot& slot : plan->slots)
        if (slot.role == TypePlan::Role::kMessage)
          slot.child = plans_.at(ChildType(*plan, slot)).get();
  }
  const TypePlan& For(const Descriptor* type) const {
    auto it = plans_.find(type);
    return it != plans_.end() ? *it->second : empty_;
  }

 private:
  // The message type of the field a slot stands for.
  static const Descriptor* ChildType(const TypePlan& plan, const TypePlan::Slot& slot) {
    return plan.type->FindFieldByNumber(static_cast<int>(&slot - plan.slots.data()))
        ->message_type();
  }

  void Add(const Descriptor* type) {
    if (plans_.contains(type)) return;
    TypePlan& plan = *plans_.emplace(type, std::make_unique<TypePlan>()).first->second;
    plan.type = type;
    std::vector<const Descriptor*> children;
    for (int k = 0; k < type->field_count(); ++k) {
      const FieldDescriptor* field = type->field(k);
      const LegacyField* legacy = nullptr;
      for (const LegacyField& l : kLegacyFields)
        if (type->full_name() == l.message && field->number() == l.number) legacy = &l;
      TypePlan::Role role = TypePlan::Role::kPlain;
      if (legacy != nullptr) {
        plan.legacy.emplace_back(field, legacy);
        role = TypePlan::Role::kLegacy;
      } else if (field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE && !field->is_map()) {
        plan.messages.push_back(field);
        children.push_back(field->message_type());
        role = TypePlan::Role::kMessage;
      }
      if (field->number() < kDenseFieldNumbers) {
        if (plan.slots.size() <= static_cast<size_t>(field->number()))
          plan.slots.resize(field->number() + 1);
        plan.slots[field->number()].role = role;
      }
    }
    for (const Descriptor* child : children) Add(child);
  }

  absl::flat_hash_map<const Descriptor*, std::unique_ptr<TypePlan>> plans_;
  TypePlan empty_;
};

const Plans& GetPlans() {
  static const Plans* const kPlans = new Plans();
  return *kPlans;
}

// "LayoutProto" for xla.LayoutProto: every message hopt reads is XLA's.
absl::string_view ShortName(const Descriptor* type) {
  absl::string_view name = type->full_name();
  absl::ConsumePrefix(&name, "xla.");
  return name;
}

// The note of one legacy field's entry, and whether its value is readable.
absl::Status TakeLegacy(const Message& message, const FieldDescriptor* field,
                        const LegacyField& legacy, DroppedFields* report) {
  const Reflection* reflection = message.GetReflection();
  std::string note = legacy.history;
  if (field->cpp_type() == FieldDescriptor::CPPTYPE_ENUM && !field->is_repeated()) {
    int value = reflection->GetEnumValue(message, field);
    if (field->enum_type() == xla::Format_descriptor() && value == xla::SPARSE)
      return absl::InvalidArgumentError(
          "the layout's format is SPARSE (XLA's sparse arrays, removed before 2020): hopt has "
          "no sparse-format layouts");
    const auto* named = field->enum_type()->FindValueByNumber(value);
    note = absl::StrCat(named != nullptr ? named->name() : absl::StrCat(value), "; ", note);
  }
  report->Add(DroppedFields::Kind::kLegacy, ShortName(message.GetDescriptor()), field->number(),
              field->name(), note);
  return absl::OkStatus();
}

bool IsSet(const Message& message, const FieldDescriptor* field) {
  const Reflection* reflection = message.GetReflection();
  return field->is_repeated() ? reflection->FieldSize(message, field) > 0
                              : reflection->HasField(message, field);
}

class Walker {
 public:
  explicit Walker(DroppedFields* report) : plans_(GetPlans()), report_(report) {}

  // `count_unknown`: the unknown fields of `message` are dropped.
  absl::Status Walk(Message* message, bool count_unknown, const ReadScope* scope) {
    const Reflection* reflection = message->GetReflection();
    if (count_unknown) CountUnknownFields(*message, DroppedFields::Kind::kUnknown, report_);
    const TypePlan& plan = plans_.For(message->GetDescriptor());
    for (const auto& [field, legacy] : plan.legacy) {
      if (!IsSet(*message, field)) continue;
      absl::Status taken = TakeLegacy(*message, field, *legacy, report_);
      if (!taken.ok()) {
        path_.push_back(field->name());
        return taken;
      }
      reflection->ClearField(message, field);
    }
    for (const FieldDescriptor* field : plan.messages) {
      bool rebuilt = count_unknown;
      if (scope != nullptr) {
        if (field->number() == scope->separate_field) continue;
        rebuilt = scope->all_rebuilt ||
                  std::find(scope->rebuilt_fields.begin(), scope->rebuilt_fields.end(),
                            field->number()) != scope->rebuilt_fields.end();
      }
      if (!field->is_repeated()) {
        if (!reflection->HasField(*message, field)) continue;
        absl::Status walked = Walk(reflection->MutableMessage(message, field), rebuilt, nullptr);
        if (!walked.ok()) {
          path_.push_back(field->name());
          return walked;
        }
        continue;
      }
      int n = reflection->FieldSize(*message, field);
      for (int k = 0; k < n; ++k) {
        absl::Status walked =
            Walk(reflection->MutableRepeatedMessage(message, field, k), rebuilt, nullptr);
        if (!walked.ok()) {
          path_.push_back(absl::StrCat(field->name(), "[", k, "]"));
          return walked;
        }
      }
    }
    return absl::OkStatus();
  }

  // Where the failing field is, outermost first.
  std::string Path() const { return absl::StrJoin(path_.rbegin(), path_.rend(), "."); }

 private:
  const Plans& plans_;
  DroppedFields* report_;
  std::vector<std::string> path_;  // innermost first, filled on failure
};

// Whether the message of `plan`'s type in [p, end) holds, at any depth, a
// legacy field or one its schema does not declare. Conservative: true for
// what it cannot read (and for groups, which XLA's messages never use).
bool ScanWire(const uint8_t* p, const uint8_t* end, const TypePlan& plan, int depth) {
  if (depth > kMaxMessageNesting) return true;
  auto varint = [&](uint64_t* value) {
    uint64_t result = 0;
    for (int shift = 0; shift < 64 && p < end; shift += 7) {
      uint8_t byte = *p++;
      result |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) {
        *value = result;
        return true;
      }
    }
    return false;
  };
  while (p < end) {
    uint64_t tag, value;
    if (!varint(&tag)) return true;
    TypePlan::Slot slot = plan.SlotOf(tag >> 3);
    if (slot.role == TypePlan::Role::kUndeclared || slot.role == TypePlan::Role::kLegacy)
      return true;
    switch (tag & 7) {
      case 0:  // varint
        if (!varint(&value)) return true;
        break;
      case 1:  // fixed64
        if (end - p < 8) return true;
        p += 8;
        break;
      case 5:  // fixed32
        if (end - p < 4) return true;
        p += 4;
        break;
      case 2: {  // length-delimited
        if (!varint(&value) || value > static_cast<uint64_t>(end - p)) return true;
        const uint8_t* payload_end = p + value;
        if (slot.role == TypePlan::Role::kMessage &&
            ScanWire(p, payload_end, *slot.child, depth + 1))
          return true;
        p = payload_end;
        break;
      }
      default: return true;
    }
  }
  return false;
}

}  // namespace

bool MayHoldOtherSchemaFields(absl::string_view bytes, const Descriptor* type) {
  const auto* data = reinterpret_cast<const uint8_t*>(bytes.data());
  return ScanWire(data, data + bytes.size(), GetPlans().For(type), 0);
}

absl::Status DropLegacyFields(Message* message, const ReadScope& scope, DroppedFields* report) {
  Walker walker(report);
  absl::Status status = walker.Walk(message, /*count_unknown=*/false, &scope);
  if (status.ok()) return status;
  return absl::InvalidArgumentError(absl::StrCat(walker.Path(), ": ", status.message()));
}

void CountUnknownFields(const Message& message, DroppedFields::Kind kind, DroppedFields* report) {
  const google::protobuf::UnknownFieldSet& unknown =
      message.GetReflection()->GetUnknownFields(message);
  for (int k = 0; k < unknown.field_count(); ++k)
    report->Add(kind, ShortName(message.GetDescriptor()), unknown.field(k).number(), "",
                kind == DroppedFields::Kind::kKeptUnknown
                    ? "not in hopt's schema: written back as read, unused by hopt"
                    : "not in hopt's schema, in a part hopt rebuilds: lost");
}

}  // namespace hopt
