// gpualign — removal of temporary files when the process is killed by a
// signal (SIGINT, SIGTERM, SIGHUP): an async-signal-safe registry of paths.
//
// OutputFile (writers.hpp) registers its temporary file while it exists; a
// program that calls install_cleanup_signal_handlers() then leaves no
// temporary or partial file behind when interrupted. Normal exits and
// exceptions are handled by OutputFile's destructor instead.
#pragma once

#include <cstddef>
#include <string_view>

namespace gpualign {

/// Maximum number of paths registered at once, and the longest path
/// (bytes, without the terminating NUL) that can be registered.
inline constexpr std::size_t max_cleanup_paths = 64;
inline constexpr std::size_t max_cleanup_path_length = 4095;

/// Registers `path` (copied into static storage) for removal by the signal
/// handlers. Thread-safe. Returns a slot handle (>= 0), or -1 when the path
/// is empty or too long or all slots are taken; such a path is simply not
/// removed on a signal. Never throws.
int register_cleanup_path(std::string_view path) noexcept;

/// Forgets the slot returned by register_cleanup_path (no-op for -1).
/// Thread-safe; call before renaming or removing the file yourself.
void unregister_cleanup_path(int slot) noexcept;

/// Unlinks every registered path. Async-signal-safe (only unlink(2) and
/// atomics); called by the handlers, exposed for tests.
void remove_cleanup_paths() noexcept;

/// Installs handlers for SIGINT, SIGTERM and SIGHUP that call
/// remove_cleanup_paths() and then re-raise the signal with its default
/// action, so the process still dies of that signal (exit status 128+N in a
/// shell). A signal that the parent set to be ignored stays ignored, as for
/// nohup. Call once, early in main. Never throws.
void install_cleanup_signal_handlers() noexcept;

}  // namespace gpualign
