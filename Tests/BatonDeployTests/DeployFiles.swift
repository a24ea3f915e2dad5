import Foundation

/// The repository's deploy/ folder and the `baton` binary built beside the tests, for checking
/// the deployment files against the CLI they run.
enum DeployFiles {
    static let root: URL = {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url }
        }
        fatalError("no Package.swift above \(#filePath)")
    }()

    static func folder(_ name: String) -> URL { root.appendingPathComponent("deploy").appendingPathComponent(name) }

    /// Files under `folder` (recursively) whose names end with one of `suffixes`, sorted.
    static func files(in folder: URL, endingWith suffixes: [String]) -> [URL] {
        let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)
        var found: [URL] = []
        while let url = walker?.nextObject() as? URL {
            if suffixes.contains(where: { url.lastPathComponent.hasSuffix($0) }) { found.append(url) }
        }
        return found.sorted { $0.path < $1.path }
    }

    static func text(_ url: URL) throws -> String { try String(contentsOf: url, encoding: .utf8) }

    /// The `baton` executable built beside the test bundle.
    static var batonPath: String {
        if let path = ProcessInfo.processInfo.environment["BATON_BIN"] { return path }
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: exe).deletingLastPathComponent().appendingPathComponent("baton").path
    }

    nonisolated(unsafe) private static var helpCache: [String: String] = [:]
    private static let lock = NSLock()

    /// `baton SUBCOMMAND --help`, or nil if `subcommand` is not one the CLI has.
    static func help(_ subcommand: String) throws -> String? {
        if let cached = lock.withLock({ helpCache[subcommand] }) { return cached }
        let result = try run(batonPath, [subcommand, "--help"])
        guard result.status == 0, result.output.contains("USAGE: baton \(subcommand)") else { return nil }
        lock.withLock { helpCache[subcommand] = result.output }
        return result.output
    }

    /// The flags (`--name`) in `arguments` that `baton SUBCOMMAND --help` does not list.
    static func unknownFlags(_ subcommand: String, _ arguments: [String]) throws -> [String] {
        guard let help = try help(subcommand) else { return ["(no subcommand '\(subcommand)')"] }
        return arguments.filter { $0.hasPrefix("--") }.map { String($0.split(separator: "=")[0]) }.filter {
            !help.contains("\($0) ") && !help.contains("\($0)\n") && !help.contains("\($0)=")
        }
    }

    static func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// The value after `flag` in `arguments`.
    static func value(of flag: String, in arguments: [String]) -> String? {
        guard let index = arguments.firstIndex(of: flag), index + 1 < arguments.count else { return nil }
        return arguments[index + 1]
    }
}
