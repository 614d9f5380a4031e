// sim/cli/interrupt.h — what `ringsched` does on SIGINT (Ctrl-C) and SIGTERM: remove the unfinished output it was
// staging (earlier results stay as they were; a commit already under way is finished first, so an output folder holds
// all the earlier files or all the new ones), say which on stderr, and exit 130 (SIGINT) or 143 (SIGTERM).
#pragma once

namespace ringsched::cli {

// Blocks SIGINT and SIGTERM in this thread and every thread started after it, and starts one thread that waits for
// them. Call once, first thing in main.
void handle_interrupts();

}  // namespace ringsched::cli
