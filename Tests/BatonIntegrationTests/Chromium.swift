import Foundation
import Testing

/// Headless Chromium (Debian's package, which deploy/local/test.sh installs) loading the dashboard
/// as a person's browser would: the DOM after the scripts ran, and screenshots.
enum Chromium {
    struct Missing: Error, CustomStringConvertible {
        var description: String { "chromium is not installed: run deploy/local/test.sh (it installs Debian's chromium) or apt-get install chromium" }
    }

    /// The browser, or a recorded failure: a missing browser fails the test, it never skips it.
    static func executable() throws -> String {
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":") {
            for name in ["chromium", "chromium-browser"] {
                let path = "\(directory)/\(name)"
                if FileManager.default.isExecutableFile(atPath: path) { return path }
            }
        }
        Issue.record(Comment(rawValue: Missing().description))
        throw Missing()
    }

    /// Where screenshots go: .data/screenshots in the project (gitignored).
    static var screenshotDirectory: URL {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let directory = root.appendingPathComponent(".data/screenshots")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// The page's DOM, serialized, once its scripts have run for `budget` ms of virtual time.
    static func dumpDOM(_ url: String, budget: Int = 5000) throws -> String {
        try run(["--virtual-time-budget=\(budget)", "--dump-dom", url])
    }

    /// A screenshot of the page into .data/screenshots/NAME.png; returns its path.
    @discardableResult
    static func screenshot(_ url: String, name: String, size: String = "1440,1000", budget: Int = 5000) throws -> String {
        let path = screenshotDirectory.appendingPathComponent("\(name).png").path
        try? FileManager.default.removeItem(atPath: path)
        _ = try run(["--virtual-time-budget=\(budget)", "--window-size=\(size)", "--screenshot=\(path)", url])
        #expect(FileManager.default.fileExists(atPath: path), "no screenshot at \(path)")
        return path
    }

    private static func run(_ arguments: [String]) throws -> String {
        let profile = FileManager.default.temporaryDirectory.appendingPathComponent("baton-chromium-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: profile) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try executable())
        process.arguments =
            [
                "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars", "--no-first-run",
                "--disable-extensions", "--user-data-dir=\(profile.path)",
            ] + arguments
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("baton-chromium-\(UUID().uuidString.prefix(8)).out")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        let handle = try FileHandle(forWritingTo: output)
        defer { try? FileManager.default.removeItem(at: output) }
        process.standardOutput = handle
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(90)
        while process.isRunning && Date() < deadline { usleep(50_000) }
        if process.isRunning {
            process.terminate()
            Issue.record("chromium did not finish within 90 s: \(arguments)")
        }
        process.waitUntilExit()
        try handle.close()
        return try String(contentsOf: output, encoding: .utf8)
    }
}
