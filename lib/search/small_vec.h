// A vector of a few trivially copyable elements stored inline: the shape and
// labels of a body value (BVal). The search copies a value for every move it
// accepts and drops it when it backtracks, millions of times a second; with
// std::vector each copy was two heap allocations and two frees (perf: a
// tenth of GQA's search in malloc and free). Program tensors have rank 1 to
// 4 (mg-language.md), and no body operator adds a dim beyond its operands'
// broadcast rank, so the capacity is never reached; reaching it is a bug and
// throws, never truncates.
#pragma once

#include <algorithm>
#include <cstddef>
#include <initializer_list>
#include <stdexcept>
#include <type_traits>
#include <vector>

namespace mirage::search {

template <typename T, size_t N>
class SmallVec {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  SmallVec() = default;
  SmallVec(std::initializer_list<T> init) { assign(init.begin(), init.end()); }
  SmallVec(const std::vector<T>& v) { assign(v.begin(), v.end()); }  // NOLINT: converts like a vector would
  SmallVec& operator=(const std::vector<T>& v) {
    assign(v.begin(), v.end());
    return *this;
  }

  template <typename It>
    requires(!std::is_integral_v<It>)
  void assign(It first, It last) {
    size_ = 0;
    for (; first != last; ++first) push_back(*first);
  }
  void assign(size_t n, const T& value) {
    reserveFor(n);
    std::fill(data_, data_ + n, value);
    size_ = n;
  }
  void push_back(const T& value) {
    reserveFor(size_ + 1);
    data_[size_++] = value;
  }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }
  T& back() { return data_[size_ - 1]; }
  const T& back() const { return data_[size_ - 1]; }
  T* begin() { return data_; }
  T* end() { return data_ + size_; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }
  std::vector<T> toVector() const { return std::vector<T>(begin(), end()); }

  friend bool operator==(const SmallVec& a, const SmallVec& b) {
    return a.size_ == b.size_ && std::equal(a.begin(), a.end(), b.begin());
  }
  friend bool operator!=(const SmallVec& a, const SmallVec& b) { return !(a == b); }
  friend bool operator==(const SmallVec& a, const std::vector<T>& b) {
    return a.size_ == b.size() && std::equal(a.begin(), a.end(), b.begin());
  }
  friend bool operator!=(const SmallVec& a, const std::vector<T>& b) { return !(a == b); }

 private:
  static void reserveFor(size_t n) {
    if (n > N) throw std::length_error("SmallVec: more dims than a body value can have");
  }

  T data_[N] = {};
  size_t size_ = 0;
};

}  // namespace mirage::search
