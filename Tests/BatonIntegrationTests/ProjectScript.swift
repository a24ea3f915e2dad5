import Foundation
import Testing

/// The project's own scripts under deploy/local, run to completion (they start and stop services).
enum ProjectScript {
    static var root: URL {
        var dir = URL(fileURLWithPath: #filePath)
        while dir.path != "/" && !FileManager.default.fileExists(atPath: dir.appendingPathComponent("Package.swift").path) {
            dir.deleteLastPathComponent()
        }
        return dir
    }

    static func path(_ name: String) -> String { root.appendingPathComponent("deploy/local/\(name)").path }

    /// Runs `deploy/local/NAME ARGS`; returns its stdout without the final newline, and fails the test with its stderr
    /// when it exits non-zero.
    @discardableResult
    static func run(_ name: String, _ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let result = try ChildProcess.run(path(name), arguments)
        try #require(result.status == 0, "\(name) \(arguments.joined(separator: " ")): \(result.stderr)", sourceLocation: sourceLocation)
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
