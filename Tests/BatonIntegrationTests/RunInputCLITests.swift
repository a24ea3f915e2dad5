import Baton
import BatonPostgres
import BatonStore
import Foundation
import Testing

extension Integration {
    /// `--input` and YAML graph files through the `baton` binary, with what is stored.
    @Suite("run input and YAML through the CLI", .serialized)
    @MainActor  // blocking waits here must not starve the cooperative pool the async unit tests need
    struct RunInputCLITests {
        static let graph = #"""
            {
              "name": "with-input",
              "input": { "values": [1, 2], "label": { "text": "sum", "case": "lower" } },
              "nodes": {
                "sum": { "procedure": "baton.add", "input": { "values": { "$input": "/values" } } },
                "say": { "procedure": "baton.echo", "input": { "label": { "$input": "/label" }, "sum": { "$from": "sum" } } }
              }
            }
            """#

        static func scratch(_ files: [String: String]) throws -> String {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("input-\(UUID().uuidString.prefix(8))")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            for (name, text) in files { try Data(text.utf8).write(to: directory.appendingPathComponent(name)) }
            return directory.path
        }

        static func runCount() throws -> Int {
            let sql = try TestCluster.sql()
            defer { sql.close() }
            return try sql.query("select count(*) as n from baton.runs").int(0, "n") ?? -1
        }

        @Test("submit --input stores the merged input in baton.runs.input, the run uses it, show prints it")
        func submitWithInput() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            try cluster.startCoordinator()
            try cluster.startWorker()
            let dir = try Self.scratch(["g.json": Self.graph])
            let submit = try TestCluster.cli([
                "submit", "\(dir)/g.json", "--input", #"{"values": [10, 20, 30], "label": {"case": "upper"}}"#, "--wait", "--json",
            ])
            #expect(submit.status == 0, "stderr: \(submit.stderr)")
            let runID = try #require(try JSONParser.parse(submit.stdout)["run_id"]?.stringValue)

            let sql = try TestCluster.sql()
            defer { sql.close() }
            let stored = try sql.query("select input::text as input from baton.runs where id = $1::uuid", [runID])
            let input = try JSONParser.parse(try #require(stored[row: 0, column: "input"]))
            #expect(input == ["values": [10, 20, 30], "label": ["text": "sum", "case": "upper"]])

            let store = try TestCluster.store()
            defer { store.close() }
            let nodes = try TestCluster.nodes(store, runID)
            #expect(nodes["sum"]?.output == 60)
            #expect(nodes["say"]?.output == ["label": ["text": "sum", "case": "upper"], "sum": 60])

            let show = try TestCluster.cli(["show", runID, "--json"])
            #expect(show.status == 0, "stderr: \(show.stderr)")
            #expect(try JSONParser.parse(show.stdout)["input"] == input)
            let human = try TestCluster.cli(["show", runID])
            #expect(human.stdout.contains("\ninput " + input.serialized() + "\n"), "stdout: \(human.stdout)")
        }

        @Test("--input @file.json and @file.yaml, validate and run --local take it too")
        func inputFromFiles() throws {
            _ = TestCluster()
            let dir = try Self.scratch([
                "g.json": Self.graph, "in.json": #"{"values": [5, 6]}"#, "in.yaml": "values: [7, 8]\nlabel: {text: total}\n",
            ])
            let local = try TestCluster.cli(["run", "--local", "\(dir)/g.json", "--input", "@\(dir)/in.json", "--json"])
            #expect(local.status == 0, "stderr: \(local.stderr)")
            #expect(try JSONParser.parse(local.stdout)["nodes"]?["sum"]?["output"] == 11)
            let yaml = try TestCluster.cli(["run", "--local", "\(dir)/g.json", "--input", "@\(dir)/in.yaml", "--json"])
            #expect(yaml.status == 0, "stderr: \(yaml.stderr)")
            let nodes = try JSONParser.parse(yaml.stdout)["nodes"]
            #expect(nodes?["sum"]?["output"] == 15)
            #expect(nodes?["say"]?["output"]?["label"] == ["text": "total", "case": "lower"])
            let validate = try TestCluster.cli(["validate", "\(dir)/g.json", "--input", #"{"values": []}"#])
            #expect(validate.status == 0, "stderr: \(validate.stderr)")
            #expect(validate.stdout == "\(dir)/g.json: valid (2 nodes)\n")
        }

        @Test("the examples with an input and in YAML run with baton run --local")
        func examples() throws {
            _ = TestCluster()
            let dir = GraphFixtures.examplesDirectory.path
            let input = try TestCluster.cli([
                "run", "--local", "\(dir)/run-input.json", "--input", #"{"numbers": [4, 5, 6], "report": {"title": "Q3"}}"#, "--json",
            ])
            #expect(input.status == 0, "stderr: \(input.stderr)")
            #expect(try JSONParser.parse(input.stdout)["nodes"]?["report"]?["output"] == ["text": "Q3: 15 in all, 150 scaled by 10"])
            let yaml = try TestCluster.cli(["run", "--local", "\(dir)/word-count.yaml", "--json"])
            #expect(yaml.status == 0, "stderr: \(yaml.stderr)")
            let json = try TestCluster.cli(["run", "--local", "\(dir)/word-count.json", "--json"])
            #expect(try JSONParser.parse(yaml.stdout)["nodes"] == JSONParser.parse(json.stdout)["nodes"])
        }

        @Test("submit of a YAML graph stores the same graph as its JSON twin")
        func submitYAML() throws {
            _ = TestCluster()  // no coordinator: the runs stay pending
            let dir = GraphFixtures.examplesDirectory.path
            let yaml = try TestCluster.cli(["submit", "\(dir)/word-count.yaml"])
            #expect(yaml.status == 0, "stderr: \(yaml.stderr)")
            let json = try TestCluster.cli(["submit", "\(dir)/word-count.json"])
            let sql = try TestCluster.sql()
            defer { sql.close() }
            let same = try sql.query(
                "select a.graph = b.graph and a.name = b.name as same from baton.runs a, baton.runs b where a.id = $1::uuid and b.id = $2::uuid",
                [yaml.stdout.trimmingCharacters(in: .whitespacesAndNewlines), json.stdout.trimmingCharacters(in: .whitespacesAndNewlines)])
            #expect(same.bool(0, "same") == true)
        }

        @Test("an idempotency key with the same graph and another input is a conflict")
        func idempotencyKeyAndInput() throws {
            _ = TestCluster()
            let dir = try Self.scratch(["g.json": Self.graph])
            let key = "input-\(UUID().uuidString.prefix(8))"
            let first = try TestCluster.cli(["submit", "\(dir)/g.json", "--idempotency-key", key, "--input", #"{"values": [1]}"#])
            #expect(first.status == 0, "stderr: \(first.stderr)")
            let again = try TestCluster.cli(["submit", "\(dir)/g.json", "--idempotency-key", key, "--input", #"{"values": [1]}"#])
            #expect(again.stdout == first.stdout, "the same input: the same run")
            let before = try Self.runCount()
            let other = try TestCluster.cli(["submit", "\(dir)/g.json", "--idempotency-key", key, "--input", #"{"values": [2]}"#])
            #expect(other.status == 2)
            #expect(other.stderr.contains("which has a different graph or input"), "stderr: \(other.stderr)")
            let defaults = try TestCluster.cli(["submit", "\(dir)/g.json", "--idempotency-key", key])
            #expect(defaults.status == 2, "no --input is another input too")
            #expect(try Self.runCount() == before)
        }

        struct Case: CustomStringConvertible, Sendable {
            let name: String
            let arguments: @Sendable (String) -> [String]  // given the scratch directory
            let message: String
            var environment: [String: String] = [:]
            var description: String { name }
        }

        nonisolated static let cases: [Case] = [
            Case(
                name: "not JSON", arguments: { ["submit", "\($0)/g.json", "--input", "{values: 1}"] },
                message: "--input: invalid JSON at line 1, column 2"),
            Case(
                name: "not an object", arguments: { ["submit", "\($0)/g.json", "--input", "[1, 2]"] },
                message: "--input must be a JSON object, found array"),
            Case(
                name: "@file missing", arguments: { ["submit", "\($0)/g.json", "--input", "@\($0)/nope.json"] },
                message: "--input @DIR/nope.json: no such file"),
            Case(name: "@ alone", arguments: { ["submit", "\($0)/g.json", "--input", "@"] }, message: "--input @ needs a file name"),
            Case(
                name: "@file not JSON", arguments: { ["submit", "\($0)/g.json", "--input", "@\($0)/bad.json"] },
                message: "bad.json: invalid JSON at line 2, column 1"),
            Case(
                name: "@file YAML not an object", arguments: { ["submit", "\($0)/g.json", "--input", "@\($0)/list.yaml"] },
                message: "--input must be a JSON object, found array"),
            Case(
                name: "@file YAML broken", arguments: { ["submit", "\($0)/g.json", "--input", "@\($0)/broken.yaml"] },
                message: "broken.yaml:2:"),
            Case(
                name: "graph input not an object", arguments: { ["submit", "\($0)/input-array.json"] },
                message: "field 'input': must be an object of default values, found array"),
            Case(
                name: "pointer missing", arguments: { ["submit", "\($0)/pointer-missing.json", "--input", #"{"height": 1}"#] },
                message: "node 'a', field 'input/width': $input pointer '/width' has no value in the run input"),
            Case(
                name: "pointer not a string", arguments: { ["submit", "\($0)/pointer-number.json"] },
                message: "node 'a', field 'input/$input': must be a JSON pointer string"),
            Case(
                name: "pointer malformed", arguments: { ["validate", "\($0)/pointer-bad.json"] },
                message: "node 'a', field 'input/$input': invalid JSON pointer 'x'"),
            Case(
                name: "$input with another member", arguments: { ["submit", "\($0)/pointer-extra.json"] },
                message: "a $input reference has only the member '$input', found also 'select'"),
            Case(
                name: "run --local with a bad input", arguments: { ["run", "--local", "\($0)/g.json", "--input", "3"] },
                message: "--input must be a JSON object, found number"),
            Case(
                name: "input over BATON_MAX_GRAPH_BYTES", arguments: { ["submit", "\($0)/g.json", "--input", #"{"values": [1, 2, 3, 4, 5, 6]}"#] },
                message: "--input is 24 bytes as JSON, more than the limit of 20 (BATON_MAX_GRAPH_BYTES)",
                environment: ["BATON_MAX_GRAPH_BYTES": "20"]),
            Case(name: "YAML graph that does not parse", arguments: { ["submit", "\($0)/broken.yaml"] }, message: "broken.yaml:2:"),
            Case(
                name: "YAML graph with a non-string key", arguments: { ["submit", "\($0)/int-key.yaml"] },
                message: "int-key.yaml:3:3: mapping key '1' is a number, not a string"),
            Case(
                name: "YAML graph with a binary tag", arguments: { ["validate", "\($0)/binary.yaml"] },
                message: "binary.yaml:4:12: the YAML tag !!binary has no JSON meaning"),
            Case(
                name: "YAML graph with a validation problem names its line", arguments: { ["submit", "\($0)/bad-pool.yaml"] },
                message: "bad-pool.yaml:5:5: node 'a', field 'pool': must be a string, found number"),
        ]

        static let files: [String: String] = [
            "g.json": graph,
            "bad.json": "{\"values\":\n",
            "list.yaml": "- 1\n- 2\n",
            "broken.yaml": "a: [1, 2\nb: }\n",
            "input-array.json": #"{"input": [1], "nodes": {"a": {"procedure": "baton.echo"}}}"#,
            "pointer-missing.json": #"{"nodes": {"a": {"procedure": "baton.echo", "input": {"width": {"$input": "/width"}}}}}"#,
            "pointer-number.json": #"{"nodes": {"a": {"procedure": "baton.echo", "input": {"$input": 3}}}}"#,
            "pointer-bad.json": #"{"input": {"x": 1}, "nodes": {"a": {"procedure": "baton.echo", "input": {"$input": "x"}}}}"#,
            "pointer-extra.json": #"{"input": {"x": 1}, "nodes": {"a": {"procedure": "baton.echo", "input": {"$input": "/x", "select": "/y"}}}}"#,
            "int-key.yaml": "nodes:\n  a: {procedure: baton.echo}\n  1: {procedure: baton.echo}\n",
            "binary.yaml": "nodes:\n  a:\n    procedure: baton.echo\n    input: !!binary aGVsbG8=\n",
            "bad-pool.yaml": "name: bad-pool\nnodes:\n  a:\n    procedure: baton.echo\n    pool: 5\n",
        ]

        @Test("a bad input or YAML file is refused with one clear error and nothing stored", arguments: cases)
        func refused(_ c: Case) throws {
            _ = TestCluster()
            let dir = try Self.scratch(Self.files)
            let before = try Self.runCount()
            let result = try TestCluster.cli(c.arguments(dir), environment: c.environment)
            #expect(result.status == 2, "exit \(result.status): \(result.stderr)")
            #expect(result.stderr.hasPrefix("baton: "))
            #expect(result.stderr.contains(c.message.replacingOccurrences(of: "DIR", with: dir)), "stderr: \(result.stderr)")
            #expect(!result.stderr.contains("Fatal error") && !result.stderr.contains("Stack dump"))
            #expect(try Self.runCount() == before)
        }
    }
}
