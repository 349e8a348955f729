// A free-list pool of T, grown in chunks so hot paths never call malloc.
// T provides a `T* next_free` member, and may provide a `bool pooled`,
// which the pool keeps true while the object is free (for for_each_object).
// Objects are default-constructed once, when their chunk is made, and
// reused after that.
#pragma once

#include <cstddef>
#include <memory>
#include <new>
#include <vector>

namespace tern::runtime {

template <typename T>
class ObjectPool {
 public:
  explicit ObjectPool(std::size_t chunk = 64) : chunk_(chunk) {}
  ObjectPool(const ObjectPool&) = delete;
  ObjectPool& operator=(const ObjectPool&) = delete;

  // Null only when memory is exhausted.
  [[nodiscard]] T* get() noexcept {
    if (free_ == nullptr && !grow()) return nullptr;
    T* object = free_;
    free_ = object->next_free;
    object->next_free = nullptr;
    if constexpr (kTracksPooled) object->pooled = false;
    ++in_use_;
    return object;
  }

  void put(T* object) noexcept {
    if constexpr (kTracksPooled) object->pooled = true;
    object->next_free = free_;
    free_ = object;
    --in_use_;
  }

  [[nodiscard]] std::size_t in_use() const noexcept { return in_use_; }

  // Calls f(T&) on every object the pool has made, free or not; a slow
  // walk, for rare questions about what is in use (T's `pooled`).
  template <typename F>
  void for_each_object(F&& f) {
    for (const std::unique_ptr<T[]>& block : blocks_) {
      for (std::size_t i = 0; i < chunk_; ++i) f(block[i]);
    }
  }

 private:
  bool grow() noexcept {
    std::unique_ptr<T[]> block(new (std::nothrow) T[chunk_]);
    if (!block) return false;
    T* objects = block.get();
    try {
      blocks_.push_back(std::move(block));
    } catch (...) {
      return false;
    }
    for (std::size_t i = chunk_; i-- > 0;) {
      objects[i].next_free = free_;
      free_ = &objects[i];
    }
    return true;
  }

  static constexpr bool kTracksPooled = requires(T& object) { object.pooled = true; };

  std::size_t chunk_;
  T* free_ = nullptr;
  std::size_t in_use_ = 0;
  std::vector<std::unique_ptr<T[]>> blocks_;
};

}  // namespace tern::runtime
