import Foundation

/// Swift seeds its hash functions per process, so the order of a dictionary differs from one run
/// to the next; a replay must not depend on that. `SWIFT_DETERMINISTIC_HASHING` fixes the seed,
/// and it is read when the process starts: without it, the simulator starts itself again with it.
enum DeterministicHashing {
    static func require() {
        guard ProcessInfo.processInfo.environment["SWIFT_DETERMINISTIC_HASHING"] == nil else { return }
        setenv("SWIFT_DETERMINISTIC_HASHING", "1", 1)
        let path = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var argv: [UnsafeMutablePointer<CChar>?] = CommandLine.arguments.map { strdup($0) }
        argv.append(nil)
        execv(path, &argv)
        // execv returns only on failure: go on, replays may then differ between processes.
        FileHandle.standardError.write(Data("baton-sim: cannot restart with deterministic hashing; replays may differ\n".utf8))
    }
}
