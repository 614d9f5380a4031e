// sim/experiments/progress.cpp — the stderr progress bar.
#include "sim/experiments/progress.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>

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

}  // namespace ringsched
