import Baton
import BatonStore
import Foundation
import Testing

extension Integration {
    /// What the `baton` binary prints and stores for good input, where the format is a promise to scripts.
    @Suite("CLI output", .serialized)
    @MainActor  // blocking waits here must not starve the cooperative pool the async unit tests need
    struct CLITests {
        @Test func versionIsOneLineNamingTheProgram() throws {
            let result = try TestCluster.cli(["--version"])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(result.stdout.wholeMatch(of: /baton \d+\.\d+\.\d+\n/) != nil, "stdout: \(result.stdout)")
            #expect(result.stderr.isEmpty)
        }

        @Test("submit --json on a bad graph file prints what validate --json prints", arguments: [
            #"{"nodes": {"a": {"procedure": "baton.echo", "priority": 12, "after": ["b"]}, "b": {"procedure": "baton.echo", "after": ["a"]}}}"#,
            #"{"nodes": {"a": {"procedure": "baton.echo""#,
            "",  // no file at all
        ])
        func submitJSONOnABadGraph(_ text: String) throws {
            _ = TestCluster()
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("bad-\(UUID().uuidString.prefix(8)).json").path
            if !text.isEmpty { try Data(text.utf8).write(to: URL(fileURLWithPath: path)) }
            let store = try TestCluster.store()
            defer { store.close() }
            let before = try store.connection.query("select count(*) as n from baton.runs").int(0, "n")

            let validate = try TestCluster.cli(["validate", path, "--json"])
            let submit = try TestCluster.cli(["submit", path, "--json"])
            #expect(validate.status == 2)
            #expect(try JSONParser.parse(validate.stdout)["valid"] == false)
            #expect(submit.stdout == validate.stdout)
            #expect(submit.status == 2)
            #expect(submit.stderr.hasPrefix("baton: \(path): "), "stderr: \(submit.stderr)")
            #expect(try store.connection.query("select count(*) as n from baton.runs").int(0, "n") == before)
        }
    }
}
