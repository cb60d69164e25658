#pragma once
// The n-gram models' hot tables (text/generator.cpp): counts while training, a context's range of
// next tokens while generating. Open addressing with linear probing in a power-of-two table at most
// 3/4 full: no allocation per entry, where std::unordered_map's nodes and their mallocs took about
// a third of training a pooled model on 250,000 texts. The order of for_each is the table's, so a
// caller that needs an order sorts what it reads.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace secpe {

template <typename Key, typename Value, typename Hash>
class FlatMap {
 public:
  // The value of `key`, inserted as Value{} when absent.
  Value& operator[](const Key& key) {
    if (4 * (size_ + 1) > 3 * keys_.size()) grow();
    std::size_t i = slot_of(key);
    while (used_[i] && !(keys_[i] == key)) i = (i + 1) & mask_;
    if (!used_[i]) {
      used_[i] = 1;
      keys_[i] = key;
      values_[i] = Value{};
      ++size_;
    }
    return values_[i];
  }
  // The value of `key`, or null.
  const Value* find(const Key& key) const {
    if (keys_.empty()) return nullptr;
    for (std::size_t i = slot_of(key); used_[i]; i = (i + 1) & mask_)
      if (keys_[i] == key) return &values_[i];
    return nullptr;
  }
  template <typename F>
  void for_each(F&& f) const {
    for (std::size_t i = 0; i < keys_.size(); ++i)
      if (used_[i]) f(keys_[i], values_[i]);
  }
  std::size_t size() const { return size_; }

 private:
  std::size_t slot_of(const Key& key) const { return static_cast<std::size_t>(Hash{}(key)) & mask_; }
  void grow() {
    std::vector<Key> keys;
    std::vector<Value> values;
    std::vector<std::uint8_t> used;
    keys.swap(keys_);
    values.swap(values_);
    used.swap(used_);
    const std::size_t capacity = keys.empty() ? 16 : 2 * keys.size();
    keys_.resize(capacity);
    values_.resize(capacity);
    used_.assign(capacity, 0);
    mask_ = capacity - 1;
    size_ = 0;
    for (std::size_t i = 0; i < keys.size(); ++i)
      if (used[i]) (*this)[keys[i]] = values[i];
  }

  std::vector<Key> keys_;
  std::vector<Value> values_;
  std::vector<std::uint8_t> used_;
  std::size_t mask_ = 0, size_ = 0;
};

}  // namespace secpe
