// sim/experiments/atomic_file.cpp — staged outputs and their one-step commit (journal, backups, rollback), the checks
// before a run, the clean-up of ringsched's own temporaries, and the output lock (one writer per folder).
//
// A staging folder DIR/.ringsched-staging.PID.N holds the marker `.ringsched-staging`, the staged files (`sub/` for a
// subfolder) and, during a commit, the journal `.ringsched-journal` (the names to put and to remove) and the backups
// of the earlier files under `.ringsched-old/`. The commit links each earlier file to its backup, renames the new file
// over it, renames the files to remove into the backups, then renames the journal to `.ringsched-committed` (the
// commit point) and removes the staging folder. Cut short, it is undone from what is where: a file no longer staged was
// moved in (it goes back), a backup is put back in place.
#include "sim/experiments/atomic_file.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "models/input_error.h"

namespace ringsched {
namespace fs = std::filesystem;

void ensure_directory(const std::string& path) {
  std::error_code ec;
  if (fs::exists(path, ec) && !fs::is_directory(path, ec)) {
    throw InputError(path + ": exists and is not a directory");
  }
  fs::create_directories(path, ec);
  if (ec) throw InputError(path + ": cannot create directory: " + ec.message());
}

namespace {

constexpr char kStagingPrefix[] = ".ringsched-staging.";
constexpr char kProbePrefix[] = ".ringsched-probe.";
constexpr char kMarker[] = ".ringsched-staging";
constexpr char kJournal[] = ".ringsched-journal";
constexpr char kCommitted[] = ".ringsched-committed";
constexpr char kBackups[] = ".ringsched-old";
constexpr std::size_t kProbeBytes = 64 * 1024;

// The staging folders alive in this process (staging path -> output folder), the folders committed in full, and the
// mutex a commit holds from its journal to its end, so that the interrupt handler waits for it.
struct LiveStaging {
  std::mutex mutex;
  std::map<std::string, std::string> folders;
  std::vector<std::string> committed;
};

LiveStaging& live_staging() {
  static LiveStaging* live = new LiveStaging;  // never destroyed: the interrupt thread may use it during exit
  return *live;
}

// Writes `content` to a new file and fsyncs it; "" or the system's reason.
std::string write_synced(const std::string& path, const std::string& content) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return std::strerror(errno);
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const std::string err = n < 0 ? std::strerror(errno) : "short write";
      ::close(fd);
      return err;
    }
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0) {
    const std::string err = std::strerror(errno);
    ::close(fd);
    return err;
  }
  return ::close(fd) == 0 ? "" : std::strerror(errno);
}

}  // namespace

void check_output_dir(const std::string& dir) {
  ensure_directory(dir);
  struct statvfs vfs {};
  if (::statvfs(dir.c_str(), &vfs) == 0 && vfs.f_blocks > 0 &&
      (vfs.f_bfree == 0 || (vfs.f_bavail == 0 && ::geteuid() != 0))) {
    throw InputError(dir + ": cannot write output here: no space left on the file system");
  }
  const std::string probe = dir + "/" + kProbePrefix + std::to_string(::getpid());
  std::string err;
  {
    const std::lock_guard<std::mutex> guard(live_staging().mutex);  // an interrupt waits until the probe is gone
    err = write_synced(probe, std::string(kProbeBytes, '\n'));
    std::remove(probe.c_str());
  }
  if (!err.empty()) throw InputError(dir + ": cannot write output here: " + err);
}

void check_output_targets(const std::string& dir, const std::vector<std::string>& names) {
  for (const auto& name : names) {
    const fs::path target = fs::path(dir) / name;
    std::error_code ec;
    const fs::path parent = target.parent_path();
    if (parent != fs::path(dir)) {
      const fs::file_status ps = fs::status(parent, ec);
      if (fs::exists(ps) && !fs::is_directory(ps)) {
        throw InputError(parent.string() +
                         ": is not a folder; ringsched writes its output files inside it (move it "
                         "away or choose another --out folder)");
      }
    }
    const fs::file_status st = fs::symlink_status(target, ec);
    if (!fs::exists(st) || fs::is_regular_file(st) || fs::is_symlink(st)) continue;
    throw InputError(target.string() + ": is " + (fs::is_directory(st) ? "a folder" : "not a regular file") +
                     " where ringsched writes its output file; nothing was written (move it away or choose another "
                     "--out folder)");
  }
}

namespace {

bool digits_only(const std::string& s) {
  return !s.empty() && s.size() <= 9 && s.find_first_not_of("0123456789") == std::string::npos;
}

// The PID in ".ringsched-staging.PID.N", or -1.
long staging_owner(const std::string& name) {
  const std::string prefix = kStagingPrefix;
  if (name.rfind(prefix, 0) != 0) return -1;
  const std::size_t dot = name.find('.', prefix.size());
  if (dot == std::string::npos) return -1;
  const std::string pid = name.substr(prefix.size(), dot - prefix.size());
  return digits_only(pid) && digits_only(name.substr(dot + 1)) ? std::stol(pid) : -1;
}

// The PID in ".ringsched-probe.PID", or -1.
long probe_owner(const std::string& name) {
  const std::string prefix = kProbePrefix;
  if (name.rfind(prefix, 0) != 0 || !digits_only(name.substr(prefix.size()))) return -1;
  return std::stol(name.substr(prefix.size()));
}

bool pid_alive(long pid) {
  return pid == ::getpid() || ::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM;
}

bool present(const fs::path& p) {
  std::error_code ec;
  return fs::exists(fs::symlink_status(p, ec));
}

struct Journal {
  std::vector<std::string> put;     // staged files moved into place
  std::vector<std::string> remove;  // earlier files of the same kind taken out
};

std::string journal_text(const Journal& j) {
  std::string s = "ringsched commit journal 1\n";
  for (const auto& n : j.put)
    s += "put\t" + n + "\n";
  for (const auto& n : j.remove)
    s += "remove\t" + n + "\n";
  return s;
}

bool read_journal(const fs::path& path, Journal& j) {
  std::ifstream in(path, std::ios::binary);
  std::string line;
  if (!std::getline(in, line) || line != "ringsched commit journal 1") return false;
  while (std::getline(in, line)) {
    const std::size_t tab = line.find('\t');
    if (tab == std::string::npos) return false;
    const std::string kind = line.substr(0, tab);
    if (kind != "put" && kind != "remove") return false;
    (kind == "put" ? j.put : j.remove).push_back(line.substr(tab + 1));
  }
  return true;
}

// Undoes a commit cut short, from what is where (safe to run again); "" or what failed.
std::string roll_back(const fs::path& dir, const fs::path& stage, const Journal& j) {
  std::error_code ec;
  for (auto it = j.put.rbegin(); it != j.put.rend(); ++it) {
    const fs::path target = dir / *it;
    const fs::path staged = stage / *it;
    const fs::path backup = stage / kBackups / *it;
    if (!present(staged) && present(target)) {  // the new file was moved in: it goes back
      fs::create_directories(staged.parent_path(), ec);
      fs::rename(target, staged, ec);
      if (ec) return target.string() + ": " + ec.message();
    }
    if (present(backup)) {
      fs::rename(backup, target, ec);
      if (ec) return target.string() + ": " + ec.message();
    }
  }
  for (const auto& name : j.remove) {
    const fs::path backup = stage / kBackups / name;
    if (!present(backup)) continue;
    fs::rename(backup, dir / name, ec);
    if (ec) return (dir / name).string() + ": " + ec.message();
  }
  return "";
}

// Finishes a staging folder whose writer is gone: rolled forward past the end marker, rolled back before it. False
// (with a warning) when the rollback failed: the folder stays for the next writer.
bool finish_stale_commit(const fs::path& dir, const fs::path& stage) {
  if (present(stage / kCommitted) || !present(stage / kJournal)) return true;
  Journal j;
  std::string err = "unreadable journal";
  if (read_journal(stage / kJournal, j)) err = roll_back(dir, stage, j);
  if (err.empty()) {
    std::fprintf(stderr,
                 "ringsched: note: %s: rolled back an output commit cut short (%s); the earlier files are "
                 "back in place\n",
                 dir.string().c_str(), stage.filename().string().c_str());
    return true;
  }
  std::fprintf(stderr,
               "ringsched: warning: %s: cannot roll back the commit cut short in %s (%s); its backups stay "
               "there\n",
               dir.string().c_str(), stage.string().c_str(), err.c_str());
  return false;
}

}  // namespace

int remove_stale_temporaries(const std::string& dir, bool locked) {
  LiveStaging& live = live_staging();
  const std::lock_guard<std::mutex> guard(live.mutex);  // an interrupt waits for a rollback in progress
  std::error_code ec;
  int removed = 0;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    std::error_code st_ec;
    const fs::file_status st = fs::symlink_status(it->path(), st_ec);  // never follows a link
    long pid = atomic_temp_owner(name);
    if (pid < 0) pid = probe_owner(name);
    if (pid > 0) {  // a temporary file: only a regular file, only when its writer is gone
      if (fs::is_regular_file(st) && !pid_alive(pid) && ::unlink(it->path().c_str()) == 0) ++removed;
      continue;
    }
    pid = staging_owner(name);
    if (pid <= 0 || !fs::is_directory(st) || !fs::is_regular_file(fs::symlink_status(it->path() / kMarker, st_ec))) {
      continue;  // not a staging folder of ours
    }
    if (live.folders.count(it->path().string()) > 0) continue;  // a live StagedOutput of this process
    if (!locked && pid_alive(pid)) continue;
    if (!finish_stale_commit(dir, it->path())) continue;
    std::error_code rm;
    fs::remove_all(it->path(), rm);
    if (!rm) ++removed;
  }
  return removed;
}

LiveOutputs remove_live_staging() {
  LiveStaging& live = live_staging();
  const std::lock_guard<std::mutex> lock(live.mutex);  // waits for a commit in progress
  LiveOutputs out;
  for (const auto& [stage, dir] : live.folders) {
    // Again while a file appears in it (a writer thread creating one as it goes): once gone it is not remade.
    std::error_code ec;
    for (int i = 0; i < 10 && present(stage); ++i)
      fs::remove_all(stage, ec);
    out.removed.push_back(dir);
  }
  live.folders.clear();
  out.committed = live.committed;
  return out;
}

StagedOutput::StagedOutput(std::string dir) : dir_(std::move(dir)) {
  lock_ = std::make_unique<OutputLock>(dir_);  // creates dir_, finishes what a killed writer left
  static std::atomic<int> sequence{0};
  stage_ = dir_ + "/" + kStagingPrefix + std::to_string(::getpid()) + "." + std::to_string(sequence.fetch_add(1));
  // Registered as it is made, so that an interrupt at any moment finds it (and removes it).
  LiveStaging& live = live_staging();
  const std::lock_guard<std::mutex> lock(live.mutex);
  std::error_code ec;
  fs::create_directory(stage_, ec);
  if (ec) throw InputError(dir_ + ": cannot write output here: " + ec.message());
  const std::string err = write_synced(stage_ + "/" + kMarker, "ringsched staging folder (removed after the commit)\n");
  if (!err.empty()) {
    fs::remove_all(stage_, ec);
    throw InputError(dir_ + ": cannot write output here: " + err);
  }
  live.folders[stage_] = dir_;
}

StagedOutput::~StagedOutput() {
  streams_.clear();  // close open files before removing them
  const std::lock_guard<std::mutex> lock(live_staging().mutex);
  if (live_staging().folders.erase(stage_) > 0) {  // not committed, not kept for a rollback
    std::error_code ec;
    fs::remove_all(stage_, ec);
  }
}

namespace {

// A staged name: relative, no "..", no ringsched bookkeeping names (".ringsched-..."), no line break.
void check_staged_name(const std::string& name) {
  bool ok = !name.empty() && name.front() != '/' && name.find('\n') == std::string::npos &&
            name.find('\t') == std::string::npos;
  for (const auto& part : fs::path(name)) {
    const std::string p = part.string();
    ok = ok && p != ".." && p != "." && p.rfind(".ringsched-", 0) != 0;
  }
  if (!ok) throw std::logic_error("StagedOutput: bad file name '" + name + "'");
}

}  // namespace

// The subfolder a staged file goes into, made inside the staging folder (never the staging folder itself: once an
// interrupt removed it, writes fail instead of making it again).
void StagedOutput::make_parent(const fs::path& path) const {
  if (path.parent_path() == fs::path(stage_)) return;
  std::error_code ec;
  fs::create_directory(path.parent_path(), ec);
}

void StagedOutput::set_subfolder(const std::string& sub) {
  if (!sub.empty()) check_staged_name(sub);
  sub_ = sub.empty() ? "" : sub + "/";
}

void StagedOutput::replace(const std::vector<std::string>& known) {
  std::vector<std::string> names;
  for (const auto& n : known) {
    check_staged_name(sub_ + n);
    names.push_back(sub_ + n);
  }
  check_output_targets(dir_, names);
  known_.insert(known_.end(), names.begin(), names.end());
}

void StagedOutput::write(const std::string& bare, const std::string& content) {
  const std::string name = sub_ + bare;
  check_staged_name(name);
  const fs::path path = fs::path(stage_) / name;
  make_parent(path);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw std::runtime_error(dir_ + "/" + name + ": cannot write: " + std::strerror(errno));
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
  out.flush();
  if (!out) throw std::runtime_error(dir_ + "/" + name + ": write failed (disk full?); " + dir_ + " is unchanged");
  out.close();
  if (!out) throw std::runtime_error(dir_ + "/" + name + ": write failed (disk full?); " + dir_ + " is unchanged");
  if (std::find(names_.begin(), names_.end(), name) == names_.end()) names_.push_back(name);
}

void StagedOutput::append(const std::string& bare, const std::string& content) {
  const std::string name = sub_ + bare;
  auto it = streams_.find(name);
  if (it == streams_.end()) {
    check_staged_name(name);
    const fs::path path = fs::path(stage_) / name;
    make_parent(path);
    it = streams_.emplace(name, std::ofstream(path, std::ios::binary | std::ios::trunc)).first;
    if (!it->second) throw std::runtime_error(dir_ + "/" + name + ": cannot write: " + std::strerror(errno));
    if (std::find(names_.begin(), names_.end(), name) == names_.end()) names_.push_back(name);
  }
  it->second.write(content.data(), static_cast<std::streamsize>(content.size()));
  if (!it->second)
    throw std::runtime_error(dir_ + "/" + name + ": write failed (disk full?); " + dir_ + " is unchanged");
}

namespace {

// SIGINT and SIGTERM blocked in this thread for the object's lifetime (the commit).
class InterruptsBlocked {
 public:
  InterruptsBlocked() {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set, &old_);
  }
  ~InterruptsBlocked() { pthread_sigmask(SIG_SETMASK, &old_, nullptr); }
  InterruptsBlocked(const InterruptsBlocked&) = delete;
  InterruptsBlocked& operator=(const InterruptsBlocked&) = delete;

 private:
  sigset_t old_{};
};

// RINGSCHED_TEST_COMMIT (kCommitTestEnv): true when step `step` is to fail.
bool test_hook(int step) {
  const char* env = std::getenv(kCommitTestEnv);
  if (env == nullptr) return false;
  const std::string spec = env;
  const std::size_t colon = spec.find(':');
  if (colon == std::string::npos || std::atoi(spec.c_str() + colon + 1) != step) return false;
  const std::string action = spec.substr(0, colon);
  if (action == "fail") return true;
  if (action == "kill") ::raise(SIGKILL);
  if (action == "int" || action == "term") {
    ::kill(::getpid(), action == "int" ? SIGINT : SIGTERM);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
  }
  return false;
}

struct CommitStep {
  fs::path from;
  fs::path to;
  bool link = false;  // hard-link (else rename) `from` to `to`: the earlier file stays in place until replaced
};

// Runs the steps; "" or what failed.
std::string run_steps(const std::vector<CommitStep>& steps) {
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const CommitStep& s = steps[i];
    if (test_hook(static_cast<int>(i))) return s.to.string() + ": cannot move into place: injected failure";
    std::error_code ec;
    fs::create_directories(s.to.parent_path(), ec);
    if (s.link && ::link(s.from.c_str(), s.to.c_str()) == 0) continue;
    fs::rename(s.from, s.to, ec);  // also when a hard link is not possible here
    if (ec) return s.to.string() + ": cannot move into place: " + ec.message();
  }
  return "";
}

}  // namespace

void StagedOutput::commit() {
  for (auto& [name, out] : streams_) {
    out.flush();
    out.close();
    if (!out) throw std::runtime_error(dir_ + "/" + name + ": write failed (disk full?); " + dir_ + " is unchanged");
  }
  streams_.clear();
  Journal j;
  j.put = names_;
  for (const auto& name : known_)
    if (std::find(names_.begin(), names_.end(), name) == names_.end()) j.remove.push_back(name);
  std::vector<std::string> targets = j.put;
  targets.insert(targets.end(), j.remove.begin(), j.remove.end());
  check_output_targets(dir_, targets);  // again: a folder may have appeared during the run
  for (const auto& name : j.put) {      // durable before visible
    const int fd = ::open((stage_ + "/" + name).c_str(), O_RDONLY | O_CLOEXEC);
    const bool synced = fd >= 0 && ::fsync(fd) == 0;
    if (fd >= 0) ::close(fd);
    if (!synced) throw std::runtime_error(dir_ + "/" + name + ": write failed (fsync); " + dir_ + " is unchanged");
  }
  const InterruptsBlocked blocked;
  LiveStaging& live = live_staging();
  const std::lock_guard<std::mutex> guard(live.mutex);  // the interrupt handler waits until the commit is done
  if (live.folders.count(stage_) == 0)
    throw std::runtime_error(dir_ + ": staging folder gone; " + dir_ + " is unchanged");
  const fs::path dir(dir_);
  const fs::path stage(stage_);
  std::string err = write_synced(stage_ + "/" + kJournal + ".new", journal_text(j));
  std::error_code ec;
  if (err.empty()) fs::rename(stage_ + "/" + kJournal + ".new", stage / kJournal, ec);
  if (!err.empty() || ec) {
    throw std::runtime_error(dir_ + ": cannot write the commit journal (" + (err.empty() ? ec.message() : err) + "); " +
                             dir_ + " is unchanged");
  }
  std::vector<CommitStep> steps;
  for (const auto& name : j.put) {
    if (present(dir / name)) steps.push_back({dir / name, stage / kBackups / name, true});
    steps.push_back({stage / name, dir / name, false});
  }
  for (const auto& name : j.remove)
    if (present(dir / name)) steps.push_back({dir / name, stage / kBackups / name, false});
  err = run_steps(steps);
  if (err.empty() && test_hook(static_cast<int>(steps.size()))) err = dir_ + ": injected failure before the end marker";
  if (err.empty()) fs::rename(stage / kJournal, stage / kCommitted, ec);  // the commit point
  if (err.empty() && ec) err = dir_ + ": cannot mark the commit done: " + ec.message();
  if (!err.empty()) {
    const std::string undo = roll_back(dir, stage, j);
    if (undo.empty()) {
      fs::remove(stage / kJournal, ec);
      throw std::runtime_error(err + "; " + dir_ + " is unchanged");
    }
    live.folders.erase(stage_);  // kept, journal and backups, for the next writer's rollback
    throw std::runtime_error(err + "; putting the earlier files back failed too (" + undo + "): they are in " + stage_ +
                             ", and the next run writing " + dir_ + " puts them back");
  }
  (void)test_hook(static_cast<int>(steps.size()) + 1);
  live.folders.erase(stage_);
  fs::remove_all(stage, ec);
  if (std::find(live.committed.begin(), live.committed.end(), dir_) == live.committed.end()) {
    live.committed.push_back(dir_);  // once, however often (a sweep commits after every batch)
  }
}

// ---- OutputLock: flock on DIR/.ringsched.lock, with the holder's pid written in it for the message a second
// writer gets, and a per-process table so that nested takers on one thread share one lock.
namespace {

struct HeldLock {
  int fd = -1;  // -1: a file system without flock (no lock, warned)
  int count = 0;
  std::thread::id owner;
  pid_t pid = 0;     // a child made by fork() inherits the table, not the lock
  std::string path;  // the lock file
};

struct LockTable {
  std::mutex mutex;
  std::map<std::string, HeldLock> held;  // by canonical folder
};

LockTable& lock_table() {
  static LockTable* table = new LockTable;  // never destroyed: the interrupt thread may use it during exit
  return *table;
}

// The pid a holder wrote into the lock file, or "" when unreadable (it may not have written it yet).
std::string holder_pid(int fd) {
  char buf[32] = {};
  const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
  if (n <= 0) return "";
  std::string s(buf, static_cast<std::size_t>(n));
  while (!s.empty() && (s.back() == '\n' || s.back() == ' '))
    s.pop_back();
  return s.find_first_not_of("0123456789") == std::string::npos ? s : "";
}

bool same_file(int fd, const std::string& path) {
  struct stat a {};
  struct stat b {};
  return ::fstat(fd, &a) == 0 && ::stat(path.c_str(), &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

// Opens and flocks `path` (non-blocking). Returns the descriptor, or -1 on a file system without flock. A holder
// removes the file as it lets go, so a lock taken on a file no longer at `path` is retried on the new one.
int take_file_lock(const std::string& dir, const std::string& path) {
  for (int attempt = 0; attempt < 100; ++attempt) {
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) throw InputError(dir + ": cannot write output here: " + std::strerror(errno));
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const int err = errno;
      if (err == EWOULDBLOCK) {
        const std::string pid = holder_pid(fd);
        ::close(fd);
        throw InputError(dir + ": another ringsched process (" + (pid.empty() ? "pid unknown" : "pid " + pid) +
                         ") is writing here; wait for it to finish or choose another folder");
      }
      ::close(fd);
      std::fprintf(stderr,
                   "ringsched: warning: %s: cannot lock the folder (%s); a second writer would not be stopped\n",
                   dir.c_str(), std::strerror(err));
      return -1;
    }
    if (same_file(fd, path)) {
      const std::string pid = std::to_string(::getpid()) + "\n";
      if (::ftruncate(fd, 0) == 0) (void)!::pwrite(fd, pid.data(), pid.size(), 0);
      return fd;
    }
    ::close(fd);  // the holder removed it as we took it: take the new one
  }
  throw InputError(dir + ": cannot take the output lock " + path + " (it keeps being replaced)");
}

}  // namespace

OutputLock::OutputLock(const std::string& dir) {
  ensure_directory(dir);
  std::error_code ec;
  key_ = std::filesystem::canonical(dir, ec).string();
  if (ec) throw InputError(dir + ": cannot write output here: " + ec.message());
  LockTable& table = lock_table();
  {
    const std::lock_guard<std::mutex> guard(table.mutex);
    auto it = table.held.find(key_);
    if (it != table.held.end() && it->second.pid != ::getpid()) {  // the parent's, before a fork
      if (it->second.fd >= 0) ::close(it->second.fd);              // (closing our copy leaves the parent's lock)
      table.held.erase(it);
      it = table.held.end();
    }
    if (it != table.held.end()) {
      if (it->second.owner != std::this_thread::get_id()) {
        key_.clear();
        throw InputError(dir +
                         ": another thread of this process is writing here; wait for it or choose another "
                         "folder");
      }
      ++it->second.count;
      return;
    }
    HeldLock lock;
    lock.path = key_ + "/" + kOutputLockName;
    try {
      lock.fd = take_file_lock(dir, lock.path);
    } catch (...) {
      key_.clear();
      throw;
    }
    lock.count = 1;
    lock.owner = std::this_thread::get_id();
    lock.pid = ::getpid();
    table.held.emplace(key_, lock);
  }
  // Under the lock no other writer is at work here: finish what a killed one left (a commit cut short).
  remove_stale_temporaries(key_, /*locked=*/true);
}

OutputLock::~OutputLock() {
  if (key_.empty()) return;
  LockTable& table = lock_table();
  const std::lock_guard<std::mutex> guard(table.mutex);
  auto it = table.held.find(key_);
  key_.clear();
  if (it == table.held.end() || --it->second.count > 0) return;
  if (it->second.fd >= 0) {
    const bool ours = it->second.pid == ::getpid() && same_file(it->second.fd, it->second.path);
    if (ours) ::unlink(it->second.path.c_str());  // remove it, then let go
    ::close(it->second.fd);
  }
  table.held.erase(it);
}

void remove_held_lock_files() {
  LockTable& table = lock_table();
  const std::lock_guard<std::mutex> guard(table.mutex);
  for (const auto& [dir, lock] : table.held) {
    if (lock.fd >= 0 && lock.pid == ::getpid() && same_file(lock.fd, lock.path)) ::unlink(lock.path.c_str());
  }
}

}  // namespace ringsched
