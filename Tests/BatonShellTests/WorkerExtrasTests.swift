import Baton
import BatonCommandLineCore
import BatonWorker
import Foundation
import Testing

/// A lean worker (`WorkerMain` without `BatonWorkerExtras`) refuses the flags of what it was built
/// without, with one line naming the product to add, before it connects or logs anything.
@Suite("a lean worker's opt-ins")
struct WorkerExtrasTests {
    /// Without the refusal the worker would try the (unreachable) broker: the time limit makes that a failure, not a hang.
    @Test(
        .timeLimit(.minutes(1)),
        arguments: [
            (["--metrics", "127.0.0.1:9464"], "--metrics needs the HTTP metrics endpoint"),
            (["--otlp-endpoint", "http://127.0.0.1:4318"], "--otlp-endpoint needs the OTLP exporter"),
            (["--processes", "2", "--metrics", "127.0.0.1:9464"], "--metrics needs the HTTP metrics endpoint"),
        ])
    func aFlagWithoutItsExtraIsAUsageErrorNamingTheProduct(_ arguments: [String], _ message: String) async throws {
        let options = try WorkerOptions.parse(arguments + ["--amqp-url", "amqp://guest:guest@127.0.0.1:1/none"])
        let error = await #expect(throws: CLIFailure.self) {
            try await WorkerLaunch.run(options, registry: .builtIn, command: [], label: "lean")
        }
        #expect(error?.exitCode == 2)
        #expect(error?.message.hasPrefix(message) == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("BatonWorkerExtras") == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("\n") == false)
    }

    /// No test in this process installs a YAML reader (`baton`'s main and `WorkerExtras.all` do).
    @Test func aYAMLGraphFileWithoutTheReaderNamesTheProduct() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("lean-\(UUID().uuidString.prefix(8)).yaml").path
        try Data("nodes:\n  a: {procedure: baton.echo}\n".utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let error = #expect(throws: CLIFailure.self) { try GraphFile.load(path, knownProcedures: nil) }
        #expect(error?.exitCode == 2)
        #expect(error?.message.hasPrefix("\(path): this binary reads JSON graph files only") == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("BatonWorkerExtras") == true)
        let json = path.replacingOccurrences(of: ".yaml", with: ".json")
        try Data(#"{"nodes": {"a": {"procedure": "baton.echo"}}}"#.utf8).write(to: URL(fileURLWithPath: json))
        defer { try? FileManager.default.removeItem(atPath: json) }
        #expect(try GraphFile.load(json, knownProcedures: nil).order.count == 1, "JSON needs nothing more")
    }
}
