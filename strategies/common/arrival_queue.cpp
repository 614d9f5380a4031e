// strategies/common/arrival_queue.cpp — first fit in arrival order over jobs grouped by need: a merge of the groups
// that still fit the budget, one cursor per group; lists with lazy removal (a head index and periodic compaction).
#include "strategies/common/arrival_queue.h"

#include <algorithm>
#include <stdexcept>

namespace ringsched {

void ArrivalQueue::add(int id, int need) {
  if (need < 1) throw std::logic_error("ArrivalQueue: a job needs at least one GPU");
  if (id < 0 || alive(id)) throw std::logic_error("ArrivalQueue: a job added twice");
  if (need_of_.size() <= static_cast<std::size_t>(id)) need_of_.resize(static_cast<std::size_t>(id) + 1, 0);
  need_of_[static_cast<std::size_t>(id)] = need;
  insert(by_need_[need], id);
  insert(all_, id);
  ++size_;
}

// Appended when it is the latest (arrivals); otherwise inserted in id order after the head (a job that joins late).
void ArrivalQueue::insert(List& list, int id) {
  if (list.ids.empty() || id > list.ids.back()) {
    list.ids.push_back(id);
    return;
  }
  const auto from = list.ids.begin() + static_cast<std::ptrdiff_t>(list.head);
  list.ids.insert(std::lower_bound(from, list.ids.end(), id), id);
}

void ArrivalQueue::drop(List& list, int /*id*/) {
  ++list.dead;
  while (list.head < list.ids.size() && !alive(list.ids[list.head])) {
    ++list.head;
    --list.dead;
  }
  const std::size_t live = list.ids.size() - list.head - list.dead;
  if (list.dead > 32 + live / 8 || list.head > 1024 + live) {
    std::vector<int> kept;
    kept.reserve(live);
    for (std::size_t i = list.head; i < list.ids.size(); ++i)
      if (alive(list.ids[i])) kept.push_back(list.ids[i]);
    list.ids = std::move(kept);
    list.head = 0;
    list.dead = 0;
  }
}

void ArrivalQueue::remove(int id) {
  if (!alive(id)) return;
  const int need = need_of_[static_cast<std::size_t>(id)];
  need_of_[static_cast<std::size_t>(id)] = 0;
  --size_;
  const auto group = by_need_.find(need);
  drop(group->second, id);
  if (group->second.head == group->second.ids.size()) by_need_.erase(group);
  drop(all_, id);
}

int ArrivalQueue::next_in(const List& list, std::size_t& pos) const {
  while (pos < list.ids.size() && !alive(list.ids[pos]))
    ++pos;
  return pos < list.ids.size() ? list.ids[pos] : -1;
}

std::vector<int> ArrivalQueue::ids() const {
  std::vector<int> v;
  v.reserve(size_);
  for (std::size_t i = all_.head; i < all_.ids.size(); ++i)
    if (alive(all_.ids[i])) v.push_back(all_.ids[i]);
  return v;
}

int ArrivalQueue::next_after(int id) const {
  const auto it = std::upper_bound(all_.ids.begin() + static_cast<std::ptrdiff_t>(all_.head), all_.ids.end(), id);
  std::size_t pos = static_cast<std::size_t>(it - all_.ids.begin());
  return next_in(all_, pos);
}

int ArrivalQueue::prev_before(int id) const {
  const auto from = all_.ids.begin() + static_cast<std::ptrdiff_t>(all_.head);
  auto pos = static_cast<std::size_t>(std::lower_bound(from, all_.ids.end(), id) - all_.ids.begin());
  while (pos > all_.head) {
    --pos;
    if (alive(all_.ids[pos])) return all_.ids[pos];
  }
  return -1;
}

std::vector<int> ArrivalQueue::first_fit(int budget) const {
  struct Cursor {
    int need;
    const List* list;
    std::size_t pos;
    int id;  // the list's next alive job, or -1
  };
  std::vector<Cursor> cursors;
  for (const auto& [need, list] : by_need_) {
    Cursor c{need, &list, list.head, -1};
    c.id = next_in(list, c.pos);
    cursors.push_back(c);  // by increasing need
  }
  std::vector<int> served;
  while (budget > 0) {
    Cursor* best = nullptr;
    for (Cursor& c : cursors) {
      if (c.need > budget) break;  // needs increase: no later group fits either
      if (c.id >= 0 && (best == nullptr || c.id < best->id)) best = &c;
    }
    if (best == nullptr) break;
    served.push_back(best->id);
    budget -= best->need;
    ++best->pos;
    best->id = next_in(*best->list, best->pos);
  }
  return served;
}

}  // namespace ringsched
