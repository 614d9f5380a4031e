// strategies/common/arrival_queue.h — the active jobs of an incremental strategy in arrival order, grouped by the GPUs
// each needs to be served, so "serve jobs in arrival order while they fit" (first fit) costs O(jobs served x distinct
// needs) instead of O(jobs present) when most jobs wait.
#pragma once

#include <cstddef>
#include <map>
#include <vector>

namespace ringsched {

class ArrivalQueue {
 public:
  // A job arrives needing `need` >= 1 GPUs. Ids are the arrival order: an id larger than every id added before is
  // appended (O(1)); a smaller one (a job that joins late, as exploratory's explored jobs) is inserted in its place.
  void add(int id, int need);
  // A job leaves (finished); unknown ids are ignored.
  void remove(int id);
  [[nodiscard]] std::size_t size() const { return size_; }
  [[nodiscard]] bool contains(int id) const { return alive(id); }
  // Every job in arrival order.
  [[nodiscard]] std::vector<int> ids() const;
  // The first job that arrived after job `id` (any id, present or not), or -1.
  [[nodiscard]] int next_after(int id) const;
  // The last job that arrived before job `id` (any id, present or not), or -1.
  [[nodiscard]] int prev_before(int id) const;
  // The jobs served by first fit in arrival order with `budget` GPUs: each job, earliest first, is served when its
  // need fits what is left (later, smaller jobs may use what an earlier large one could not). Ids in arrival order.
  [[nodiscard]] std::vector<int> first_fit(int budget) const;

 private:
  // Ids in arrival order; left jobs stay until the list is compacted (they are skipped: need_of_ says 0).
  struct List {
    std::vector<int> ids;
    std::size_t head = 0;  // ids before it have all left
    std::size_t dead = 0;  // left jobs at or after head
  };
  [[nodiscard]] bool alive(int id) const {
    return id >= 0 && static_cast<std::size_t>(id) < need_of_.size() && need_of_[static_cast<std::size_t>(id)] > 0;
  }
  void drop(List& list, int id);
  static void insert(List& list, int id);
  [[nodiscard]] int next_in(const List& list, std::size_t& pos) const;  // next alive id at or after pos, or -1

  std::map<int, List> by_need_;  // need -> its jobs
  List all_;                     // every job
  std::vector<int> need_of_;     // by id: the need, 0 = not present
  std::size_t size_ = 0;
};

}  // namespace ringsched
