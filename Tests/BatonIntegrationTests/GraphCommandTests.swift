import Baton
import BatonDrawing
import BatonStore
import Foundation
import Testing

#if canImport(FoundationXML)
    import FoundationXML
#endif

extension Integration {
    /// `baton graph`: a finished run drawn from the real store, and the errors for bad input.
    @Suite("baton graph", .serialized)
    @MainActor  // blocking waits here must not starve the cooperative pool the async unit tests need
    struct GraphCommandTests {
        /// Each element with a `data-node` attribute, by key: its attributes.
        static func drawnNodes(_ svg: String) throws -> [String: [String: String]] {
            final class Collector: NSObject, XMLParserDelegate {
                var nodes: [String: [String: String]] = [:]
                func parser(
                    _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                    attributes: [String: String]
                ) {
                    if let key = attributes["data-node"] { nodes[key] = attributes }
                }
            }
            let parser = XMLParser(data: Data(svg.utf8))
            let collector = Collector()
            parser.delegate = collector
            #expect(parser.parse(), "the SVG does not parse: \(parser.parserError.map { "\($0)" } ?? "")")
            return collector.nodes
        }

        @Test func aFinishedRunIsDrawnWithEachNodesStateAndAttempts() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            try cluster.startCoordinator()
            try cluster.startWorker()
            let graph: JSON = [
                "name": "drawn <run> & \"friends\"",
                "nodes": [
                    "items": ["procedure": "baton.echo", "input": ["list": [1, 2, 3]]],
                    "each": ["map": ["over": ["$from": "items", "select": "/list"], "procedure": "baton.echo"]],
                    "stats": ["group": ["nodes": ["inner": ["procedure": "baton.echo", "input": ["v": ["$from": "items"]]]]]],
                    "flaky": [
                        "procedure": "baton.fail", "input": ["message": "once", "succeed_on_attempt": 2], "retry": ["attempts": 2],
                    ],
                    "broken": ["procedure": "baton.fail", "input": ["message": "no", "permanent": true], "after": ["flaky"]],
                    "after-broken": ["procedure": "baton.echo", "input": ["x": ["$from": "broken"]]],
                ],
            ]
            let runID = try TestCluster.submit(graph)
            let store = try TestCluster.store()
            defer { store.close() }
            #expect(try TestCluster.waitForRun(runID, store: store) == "failed")
            let stored = try TestCluster.nodes(store, runID)

            let result = try TestCluster.cli(["graph", runID])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(result.stderr.isEmpty)
            let drawn = try Self.drawnNodes(result.stdout)
            // Every stored node is drawn with its state and attempts, map children included.
            #expect(Set(drawn.keys) == Set(stored.keys), "drawn \(drawn.keys.sorted()), stored \(stored.keys.sorted())")
            for (key, row) in stored {
                #expect(drawn[key]?["data-status"] == row.status, "\(key)")
                #expect(drawn[key]?["data-attempts"] == String(row.attempts), "\(key)")
            }
            #expect(drawn["items"]?["data-status"] == "succeeded" && drawn["broken"]?["data-status"] == "failed")
            #expect(drawn["flaky"]?["data-attempts"] == "2")
            #expect(drawn["each/2"]?["class"] == "baton-node" && drawn["each"]?["class"] == "baton-cluster")
            #expect(drawn["each"]?["data-kind"] == "map" && drawn["stats"]?["data-kind"] == "group")
            // Colored by state; the run's name is text.
            #expect(result.stdout.contains("fill=\"\(StatusStyle.of(.succeeded).fill)\""))
            #expect(result.stdout.contains("fill=\"\(StatusStyle.of(.failed).fill)\""))
            #expect(result.stdout.contains("drawn &lt;run&gt; &amp; &quot;friends&quot;"))
            #expect(!result.stdout.contains("<run>"))

            // The other formats, a prefix of the id, --output and --json.
            let dot = try TestCluster.cli(["graph", String(runID.prefix(8)), "--format", "dot"])
            #expect(dot.status == 0 && dot.stdout.hasPrefix("digraph ") && dot.stdout.contains("\"each/0\""), "\(dot.stderr)")
            let mermaid = try TestCluster.cli(["graph", runID, "--format", "mermaid"])
            #expect(mermaid.status == 0 && mermaid.stdout.hasPrefix("flowchart TB\n") && mermaid.stdout.contains("class "))
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("graph-\(UUID().uuidString.prefix(8)).svg").path
            let written = try TestCluster.cli(["graph", runID, "--output", file])
            #expect(written.status == 0 && written.stdout.isEmpty)
            #expect(try String(contentsOfFile: file, encoding: .utf8) == result.stdout)
            let json = try JSONParser.parse(try TestCluster.cli(["graph", runID, "--json"]).stdout)
            #expect(json["run"] == true && json["format"] == "svg" && json["drawing"]?.stringValue == result.stdout)
            #expect(json["nodes"]?.arrayValue?.count == stored.count)
        }

        @Test func aGraphFileIsDrawnWithoutServices() throws {
            let path = GraphFixtures.examplesDirectory.appendingPathComponent("group.json").path
            // A database that does not exist: a file needs none.
            let result = try TestCluster.cli(
                ["graph", path, "--format", "svg"], environment: ["BATON_DATABASE_URL": "postgresql://nobody@127.0.0.1:1/none"])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            let drawn = try Self.drawnNodes(result.stdout)
            #expect(Set(drawn.keys) == ["base", "stats", "stats/double", "stats/square", "stats/inner", "stats/inner/sum", "report"])
            #expect(drawn.values.allSatisfy { $0["data-status"] == nil })
        }

        @Test(
            "bad input gives one clear line and a non-zero exit",
            arguments: [
                (["graph", "00000000-0000-0000-0000-000000000000"], Int32(1), "baton: no run with id 00000000-0000-0000-0000-000000000000\n"),
                (["graph", "zz"], 1, "baton: 'zz' is not a run id (a UUID, or at least 4 of its first characters)\n"),
                (["graph", "missing.json"], 2, "baton: missing.json: no such file\n"),
                (["graph", "EXAMPLES/group.json", "--format", "png"], 2, "baton: --format: unknown format 'png' (use dot, mermaid, svg)\n"),
            ])
        func badInput(_ arguments: [String], status: Int32, stderr: String) throws {
            _ = TestCluster()
            let dir = GraphFixtures.examplesDirectory.path
            let result = try TestCluster.cli(arguments.map { $0.replacingOccurrences(of: "EXAMPLES", with: dir) })
            #expect(result.status == status)
            #expect(result.stderr == stderr)
            #expect(result.stdout.isEmpty)
        }

        @Test func anInvalidGraphFileIsRefusedAsValidateRefusesIt() throws {
            _ = TestCluster()
            let path = GraphFixtures.examplesDirectory.appendingPathComponent("invalid.json").path
            let result = try TestCluster.cli(["graph", path])
            let validate = try TestCluster.cli(["validate", path])
            #expect(result.status == 2 && result.stdout.isEmpty)
            #expect(result.stderr == validate.stderr)
            #expect(result.stderr.hasPrefix("baton: \(path): invalid graph (7 problems):\n"))
        }
    }
}
