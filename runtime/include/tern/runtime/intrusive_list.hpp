// Doubly linked intrusive list: elements embed a ListHook, so queueing never
// allocates. One element sits in at most one list per hook.
#pragma once

#include <cstddef>

#include "tern/runtime/compiler.hpp"

namespace tern::runtime {

struct ListHook {
  ListHook* prev = nullptr;
  ListHook* next = nullptr;
  [[nodiscard]] bool linked() const noexcept { return next != nullptr; }
};

// `Member` is the pointer to the hook inside T.
template <typename T, ListHook T::*Member>
class IntrusiveList {
 public:
  IntrusiveList() noexcept { head_.prev = head_.next = &head_; }
  IntrusiveList(const IntrusiveList&) = delete;
  IntrusiveList& operator=(const IntrusiveList&) = delete;

  [[nodiscard]] bool empty() const noexcept { return head_.next == &head_; }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }

  void push_back(T* item) noexcept { insert_before(&head_, hook(item)); }
  void push_front(T* item) noexcept { insert_before(head_.next, hook(item)); }

  [[nodiscard]] T* front() const noexcept { return empty() ? nullptr : owner(head_.next); }
  [[nodiscard]] T* back() const noexcept { return empty() ? nullptr : owner(head_.prev); }

  T* pop_front() noexcept {
    T* item = front();
    if (item != nullptr) remove(item);
    return item;
  }

  void remove(T* item) noexcept {
    ListHook* h = hook(item);
    h->prev->next = h->next;
    h->next->prev = h->prev;
    h->prev = h->next = nullptr;
    --size_;
  }

  // The element after `item`, or null at the end.
  [[nodiscard]] T* next(const T* item) const noexcept {
    const ListHook* n = (item->*Member).next;
    return n == &head_ ? nullptr : owner(n);
  }

  template <typename Fn>
  void for_each(Fn&& fn) {
    for (ListHook* h = head_.next; h != &head_;) {
      ListHook* following = h->next;  // fn may remove the element
      fn(owner(h));
      h = following;
    }
  }

 private:
  static ListHook* hook(T* item) noexcept { return &(item->*Member); }
  static T* owner(const ListHook* h) noexcept {
    return container_of(const_cast<ListHook*>(h), Member);
  }
  void insert_before(ListHook* position, ListHook* h) noexcept {
    h->next = position;
    h->prev = position->prev;
    position->prev->next = h;
    position->prev = h;
    ++size_;
  }

  ListHook head_;
  std::size_t size_ = 0;
};

}  // namespace tern::runtime
