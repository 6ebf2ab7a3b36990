// gpualign — async-signal-safe registry of temporary files removed on a signal.
#include "gpualign/io/cleanup.hpp"

#include <signal.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstring>

namespace gpualign {
namespace {

// Slot states: free -> claimed (being filled) -> ready -> free.
constexpr int slot_free = 0, slot_claimed = 1, slot_ready = 2;

struct Slot {
    std::atomic<int> state{slot_free};
    char path[max_cleanup_path_length + 1] = {};
};
static_assert(std::atomic<int>::is_always_lock_free, "the signal handler needs lock-free atomics");

std::array<Slot, max_cleanup_paths> slots;

extern "C" void on_fatal_signal(int sig) {
    const int saved_errno = errno;
    remove_cleanup_paths();
    ::signal(sig, SIG_DFL);
    ::raise(sig);  // delivered when the handler returns (the signal is blocked until then)
    errno = saved_errno;
}

}  // namespace

int register_cleanup_path(std::string_view path) noexcept {
    if (path.empty() || path.size() > max_cleanup_path_length) return -1;
    for (std::size_t k = 0; k < slots.size(); ++k) {
        int expected = slot_free;
        if (!slots[k].state.compare_exchange_strong(expected, slot_claimed, std::memory_order_acquire)) continue;
        std::memcpy(slots[k].path, path.data(), path.size());
        slots[k].path[path.size()] = '\0';
        slots[k].state.store(slot_ready, std::memory_order_release);
        return static_cast<int>(k);
    }
    return -1;
}

void unregister_cleanup_path(int slot) noexcept {
    if (slot < 0 || static_cast<std::size_t>(slot) >= slots.size()) return;
    slots[static_cast<std::size_t>(slot)].state.store(slot_free, std::memory_order_release);
}

void remove_cleanup_paths() noexcept {
    for (auto& s : slots)
        if (s.state.load(std::memory_order_acquire) == slot_ready) ::unlink(s.path);
}

void install_cleanup_signal_handlers() noexcept {
    for (const int sig : {SIGINT, SIGTERM, SIGHUP}) {
        struct sigaction old {};
        if (::sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;
        struct sigaction sa {};
        sa.sa_handler = on_fatal_signal;
        ::sigemptyset(&sa.sa_mask);
        sa.sa_flags = 0;
        ::sigaction(sig, &sa, nullptr);
    }
}

}  // namespace gpualign
