import Foundation

/// Runs a program to its end and gives its exit status and output: iptables, useradd, curl and the
/// deploy/local scripts. posix_spawn and waitpid, not Foundation's Process: a script that leaves a
/// daemon behind was seen to make Process.waitUntilExit miss the script's own exit.
enum Command {
    struct Result {
        let status: Int32
        let stdout: String
        let stderr: String
        var succeeded: Bool { status == 0 }
    }

    static func run(_ arguments: [String]) -> Result {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("baton-chaos-command-\(getpid())-\(UUID().uuidString)").path
        let (out, err) = (base + ".out", base + ".err")
        defer {
            try? FileManager.default.removeItem(atPath: out)
            try? FileManager.default.removeItem(atPath: err)
        }
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for arg in argv { free(arg) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, out, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, err, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        var pid: pid_t = 0
        guard posix_spawnp(&pid, arguments[0], &actions, nil, argv, environ) == 0 else {
            return Result(status: -1, stdout: "", stderr: "cannot run \(arguments[0])")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        func read(_ path: String) -> String {
            ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        }
        return Result(status: status, stdout: read(out), stderr: read(err))
    }
}
