import Baton
import Foundation
import Testing

extension Integration {
    /// How `baton` reads graph files: once, and never by expanding a YAML document's aliases first.
    @Suite("graph files on the command line", .serialized)
    @MainActor  // blocking waits here must not starve the cooperative pool the async unit tests need
    struct GraphFileCLITests {
        /// Runs a bash `script` with `arguments` ($0, $1, …) and the test URLs; its exit status and output.
        static func bash(_ script: String, _ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
            try ChildProcess.run(
                "/bin/bash", ["-c", script] + arguments,
                environment: ["BATON_DATABASE_URL": TestCluster.databaseURL, "BATON_AMQP_URL": TestCluster.amqpURL])
        }

        @Test("submit reads its file once: a graph from a pipe, which can be read only once, is stored")
        func submitReadsAPipeOnce() throws {
            _ = TestCluster()  // no coordinator: the run stays pending
            let name = "pipe-\(UUID().uuidString.prefix(8))"
            let graph = try GraphFixtures.write(["name": .string(name), "nodes": ["a": ["procedure": "baton.echo", "input": ["x": 1]]]])
            let result = try Self.bash(#"exec "$0" submit <(cat "$1") --json"#, [TestCluster.batonPath, graph])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            let id = try #require(try JSONParser.parse(result.stdout)["run_id"]?.stringValue)
            let store = try TestCluster.store()
            defer { store.close() }
            #expect(try store.run(id)?.name == name)
        }

        @Test("validate refuses a billion laughs at once, in one line naming the alias expansion")
        func validateRefusesABillionLaughs() throws {
            var text = "name: laughs\na: &a [" + Array(repeating: "\"lol\"", count: 9).joined(separator: ", ") + "]\n"
            for level in 1...9 {
                let previous = level == 1 ? "a" : "l\(level - 1)"
                text += "l\(level): &l\(level) [" + Array(repeating: "*\(previous)", count: 9).joined(separator: ", ") + "]\n"
            }
            text += "nodes: {a: {procedure: baton.echo, input: *l9}}\n"
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("laughs-\(UUID().uuidString.prefix(8)).yaml").path
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            let started = ContinuousClock.now
            let result = try TestCluster.cli(["validate", path])
            let elapsed = ContinuousClock.now - started
            #expect(result.status == 2)
            #expect(result.stderr == "baton: \(path):7:10: the document expands to more than 100000 nodes through aliases\n")
            #expect(result.stdout.isEmpty)
            #expect(elapsed < .seconds(2), "took \(elapsed)")
        }
    }
}
