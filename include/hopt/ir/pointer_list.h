// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_IR_POINTER_LIST_H_
#define HOPT_IR_POINTER_LIST_H_

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace hopt {

// A list of pointers in one word: null when empty, else one heap block
// holding the size, the capacity and the items. Attributes hold two such
// lists (called computations, control predecessors) that are empty for
// nearly every attribute; as std::vectors they made an attribute 88 bytes,
// as PointerLists 56.
//
// Reads like a std::vector<T> (range-for, size, operator[], push_back,
// erase of a range) and converts to and from one.
template <typename T>
class PointerList {
  static_assert(std::is_pointer_v<T>, "PointerList holds pointers");

 public:
  using value_type = T;
  using iterator = T*;
  using const_iterator = const T*;

  PointerList() = default;
  PointerList(std::initializer_list<T> items) { Assign(items.begin(), items.size()); }
  // Implicit, so that `attribute.computations = std::move(vector)` reads as
  // it does for a vector.
  PointerList(const std::vector<T>& items) { Assign(items.data(), items.size()); }  // NOLINT
  PointerList(const PointerList& other) { Assign(other.begin(), other.size()); }
  PointerList(PointerList&& other) noexcept : block_(std::exchange(other.block_, nullptr)) {}
  PointerList& operator=(const PointerList& other) {
    if (this != &other) {
      PointerList copy(other);
      std::swap(block_, copy.block_);
    }
    return *this;
  }
  PointerList& operator=(PointerList&& other) noexcept {
    std::swap(block_, other.block_);
    return *this;
  }
  ~PointerList() { std::free(block_); }

  operator std::vector<T>() const { return std::vector<T>(begin(), end()); }  // NOLINT

  size_t size() const { return block_ == nullptr ? 0 : block_->size; }
  bool empty() const { return size() == 0; }
  T* begin() { return block_ == nullptr ? nullptr : Items(); }
  T* end() { return block_ == nullptr ? nullptr : Items() + block_->size; }
  const T* begin() const { return block_ == nullptr ? nullptr : Items(); }
  const T* end() const { return block_ == nullptr ? nullptr : Items() + block_->size; }
  T& operator[](size_t i) { return Items()[i]; }
  const T& operator[](size_t i) const { return Items()[i]; }
  T front() const { return Items()[0]; }
  T back() const { return Items()[block_->size - 1]; }

  void push_back(T item) {
    size_t n = size();
    if (block_ == nullptr || n == block_->capacity) Grow(n < 4 ? n + 1 : 2 * n);
    Items()[n] = item;
    block_->size = static_cast<uint32_t>(n + 1);
  }
  // Removes [first, last), as std::vector::erase does.
  T* erase(T* first, T* last) {
    if (first == last) return first;
    std::memmove(first, last, static_cast<size_t>(end() - last) * sizeof(T));
    block_->size -= static_cast<uint32_t>(last - first);
    return first;
  }
  void clear() {
    if (block_ != nullptr) block_->size = 0;
  }

 private:
  struct Block {
    uint32_t size;
    uint32_t capacity;
  };
  static_assert(sizeof(Block) % alignof(T) == 0, "items follow the header unpadded");

  T* Items() const { return reinterpret_cast<T*>(block_ + 1); }
  void Assign(const T* items, size_t n) {
    if (n == 0) return;
    Grow(n);
    std::memcpy(Items(), items, n * sizeof(T));
    block_->size = static_cast<uint32_t>(n);
  }
  void Grow(size_t capacity) {
    size_t n = size();
    void* grown = std::realloc(block_, sizeof(Block) + capacity * sizeof(T));
    if (grown == nullptr) throw std::bad_alloc();
    block_ = static_cast<Block*>(grown);
    block_->size = static_cast<uint32_t>(n);
    block_->capacity = static_cast<uint32_t>(capacity);
  }

  Block* block_ = nullptr;
};

}  // namespace hopt

#endif  // HOPT_IR_POINTER_LIST_H_
