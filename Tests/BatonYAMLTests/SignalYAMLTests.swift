import Baton
import BatonYAML
import Testing

@Suite("YAML graph files: signal nodes")
struct SignalYAMLTests {
    @Test func aSignalNodeInYAML() throws {
        let yaml = """
            nodes:
              approve:
                signal: approval
                timeout: 1h
              publish:
                procedure: baton.echo
                input: {by: {$from: approve, select: /by}}
            """
        let g = try GraphFileDecoding.decode(Array(yaml.utf8), path: "approval.yaml", decoder: GraphDecoder(), input: nil, defaultName: "x").graph
        #expect(g.nodes["approve"]?.kind == .signal(SignalSpec(name: "approval")))
        #expect(g.nodes["approve"]?.policies.timeout == 3600)
        #expect(g.nodes["publish"]?.dependencies == ["approve"])
    }

    @Test func aFieldASignalNodeRefusesIsPlacedOnItsLine() {
        let yaml = """
            nodes:
              approve:
                signal: approval
                input: {x: 1}
            """
        do {
            _ = try GraphFileDecoding.decode(Array(yaml.utf8), path: "approval.yaml", decoder: GraphDecoder(), input: nil, defaultName: "x")
            Issue.record("accepted")
        } catch {
            guard case let .invalid(problems, document) = error else {
                Issue.record("\(error)")
                return
            }
            let lines = GraphFileDecoding.lines(problems, path: "approval.yaml", yaml: document)
            #expect(lines.count == 1)
            #expect(lines.first?.hasPrefix("approval.yaml:4:") == true, "\(lines)")
            #expect(lines.first?.hasSuffix("a signal node has no input (its output is the value the signal delivers)") == true, "\(lines)")
        }
    }
}
