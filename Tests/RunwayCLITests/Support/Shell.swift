import CLibUV
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Runs a program to completion with posix_spawn and waitpid; output is standard output and error together,
/// through a file. Not Foundation's `Process`: it learns of the exit through a descriptor the child inherits, so a
/// daemonising grandchild (tmux's server) that keeps it would make `waitUntilExit` wait for the grandchild.
func shell(_ path: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
    let outputPath = FileManager.default.temporaryDirectory.appendingPathComponent("runway-shell-\(UUID().uuidString)")
        .path
    defer { try? FileManager.default.removeItem(atPath: outputPath) }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    posix_spawn_file_actions_adddup2(&actions, 1, 2)
    // An empty signal mask and default dispositions: the test runner's threads block or ignore some signals
    // (SIGCHLD, SIGHUP), and a tmux server that inherited that would never reap its panes or exit.
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var signals = sigset_t()
    sigemptyset(&signals)
    posix_spawnattr_setsigmask(&attributes, &signals)
    sigfillset(&signals)
    posix_spawnattr_setsigdefault(&attributes, &signals)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    let argv = ([path] + arguments).map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, path, &actions, &attributes, argv, environ)
    guard spawned == 0 else { throw HarnessError(description: "posix_spawn \(path) failed: errno \(spawned)") }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    let exitStatus = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    return (exitStatus, (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "")
}
