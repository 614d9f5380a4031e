// sim/experiments/progress.cpp — the stderr progress bar.
#include "sim/experiments/progress.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace ringsched {

std::string format_duration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0.0) return "?";
  const auto total = static_cast<long long>(std::llround(seconds));
  const long long h = total / 3600;
  const long long m = (total / 60) % 60;
  const long long s = total % 60;
  char buf[64];
  if (h > 0) {
    std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld", h, m, s);
  } else {
    std::snprintf(buf, sizeof buf, "%lld:%02lld", m, s);
  }
  return buf;
}

std::string format_progress_line(std::size_t done, std::size_t total, std::size_t done_at_start, double elapsed_s,
                                 int bar_width) {
  std::string bar = "[";
  const double frac = total == 0 ? 1.0 : static_cast<double>(done) / static_cast<double>(total);
  const int filled = static_cast<int>(std::floor(frac * bar_width + 1e-9));
  for (int i = 0; i < bar_width; ++i)
    bar += i < filled ? '#' : '.';
  bar += ']';
  const std::size_t fresh = done >= done_at_start ? done - done_at_start : 0;
  const double rate = elapsed_s > 0.0 ? static_cast<double>(fresh) / elapsed_s : 0.0;
  char buf[160];
  if (rate > 0.0) {
    const double eta = static_cast<double>(total - std::min(done, total)) / rate;
    std::snprintf(buf, sizeof buf, " %zu/%zu cells  %.3g cells/s  ETA %s", done, total, rate,
                  format_duration(eta).c_str());
  } else {
    std::snprintf(buf, sizeof buf, " %zu/%zu cells  - cells/s  ETA ?", done, total);
  }
  return bar + buf;
}

bool ProgressBar::stderr_is_terminal() {
  return ::isatty(STDERR_FILENO) == 1;
}

ProgressBar::ProgressBar(std::size_t total, std::size_t done_at_start, bool enabled)
    : total_(total),
      done_at_start_(done_at_start),
      done_(done_at_start),
      enabled_(enabled),
      start_(std::chrono::steady_clock::now()),
      last_draw_(start_ - std::chrono::seconds(1)) {
  if (enabled_) draw();
}

ProgressBar::~ProgressBar() {
  finish();
}

void ProgressBar::update(std::size_t done) {
  done_ = done;
  if (!enabled_ || finished_) return;
  const auto now = std::chrono::steady_clock::now();
  if (done_ >= total_ || now - last_draw_ >= std::chrono::milliseconds(100)) draw();
}

void ProgressBar::finish() {
  if (!enabled_ || finished_) return;
  draw();
  std::fputc('\n', stderr);
  std::fflush(stderr);
  finished_ = true;
}

void ProgressBar::draw() {
  const auto now = std::chrono::steady_clock::now();
  last_draw_ = now;
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  // \r returns to the line start; \033[K clears what a longer previous line left behind.
  std::fprintf(stderr, "\r%s\033[K", format_progress_line(done_, total_, done_at_start_, elapsed, 30).c_str());
  std::fflush(stderr);
}

namespace {

// 1234 -> "1234", 12345 -> "12.3k", 1.5e6 -> "1.5M".
std::string short_count(double v) {
  char buf[32];
  if (v >= 1e9) {
    std::snprintf(buf, sizeof buf, "%.3gG", v / 1e9);
  } else if (v >= 1e6) {
    std::snprintf(buf, sizeof buf, "%.3gM", v / 1e6);
  } else if (v >= 1e4) {
    std::snprintf(buf, sizeof buf, "%.3gk", v / 1e3);
  } else {
    std::snprintf(buf, sizeof buf, "%.0f", v);
  }
  return buf;
}

}  // namespace

std::string format_live_line(std::size_t runs_done, std::size_t runs, std::uint64_t jobs_done, std::uint64_t jobs,
                             std::uint64_t events, double elapsed_s) {
  std::string line = "ringsched: " + std::to_string(runs_done) + "/" + std::to_string(runs) + " runs  " +
                     short_count(static_cast<double>(jobs_done)) + "/" + short_count(static_cast<double>(jobs)) +
                     " jobs  ";
  const double rate = elapsed_s > 0.0 ? static_cast<double>(events) / elapsed_s : 0.0;
  line += (rate > 0.0 ? short_count(rate) : std::string("-")) + " events/s  ETA ";
  const double frac = jobs == 0 ? 0.0 : static_cast<double>(std::min(jobs_done, jobs)) / static_cast<double>(jobs);
  line += frac > 0.0 ? format_duration(elapsed_s * (1.0 - frac) / frac) : std::string("?");
  return line;
}

LiveProgress::LiveProgress(std::size_t runs, std::uint64_t jobs, bool enabled, double delay_s)
    : runs_(runs),
      jobs_(jobs),
      enabled_(enabled),
      delay_s_(delay_s),
      start_(std::chrono::steady_clock::now()),
      last_draw_(start_) {}

LiveProgress::~LiveProgress() {
  finish();
}

bool LiveProgress::forced() {
  const char* force = std::getenv("RINGSCHED_PROGRESS");
  return force != nullptr && std::strcmp(force, "always") == 0;
}

bool LiveProgress::wanted(bool quiet) {
  if (quiet) return false;
  return forced() || ProgressBar::stderr_is_terminal();
}

void LiveProgress::add(std::uint64_t events, int jobs_finished) {
  if (!enabled_) return;
  const std::lock_guard<std::mutex> lock(mu_);
  events_ += events;
  jobs_done_ += static_cast<std::uint64_t>(std::max(0, jobs_finished));
  maybe_draw(false);
}

void LiveProgress::run_done() {
  if (!enabled_) return;
  const std::lock_guard<std::mutex> lock(mu_);
  ++runs_done_;
  maybe_draw(runs_done_ == runs_);
}

void LiveProgress::finish() {
  if (!enabled_) return;
  const std::lock_guard<std::mutex> lock(mu_);
  if (finished_) return;
  finished_ = true;
  if (!drawn_) return;  // short runs: nothing was drawn, nothing to end
  std::fputc('\n', stderr);
  std::fflush(stderr);
}

void LiveProgress::maybe_draw(bool force) {
  if (finished_) return;
  const auto now = std::chrono::steady_clock::now();
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  if (elapsed < delay_s_) return;
  if (!force && drawn_ && now - last_draw_ < std::chrono::milliseconds(200)) return;
  last_draw_ = now;
  drawn_ = true;
  std::fprintf(stderr, "\r%s\033[K", format_live_line(runs_done_, runs_, jobs_done_, jobs_, events_, elapsed).c_str());
  std::fflush(stderr);
}

}  // namespace ringsched
