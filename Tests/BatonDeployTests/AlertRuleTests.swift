import Foundation
import Testing
import Yams

/// deploy/prometheus/alerts.yml: a Prometheus rule file whose every rule is complete and names
/// only metrics Baton exports (as docs/operations.md lists them).
@Suite("Prometheus alert rules")
struct AlertRuleTests {
    @Test("every rule has a name, an expression on Baton's metrics, a severity and a summary")
    func rules() throws {
        let url = DeployFiles.folder("prometheus").appendingPathComponent("alerts.yml")
        let document = try #require(try Yams.load(yaml: DeployFiles.text(url)) as? [String: Any])
        let groups = try #require(document["groups"] as? [[String: Any]])
        let operations = try DeployFiles.text(DeployFiles.root.appendingPathComponent("docs/operations.md"))
        var names: Set<String> = []
        for group in groups {
            #expect(group["name"] is String)
            for rule in try #require(group["rules"] as? [[String: Any]]) {
                let name = try #require(rule["alert"] as? String)
                #expect(names.insert(name).inserted, "\(name) twice")
                let expr = try #require(rule["expr"] as? String, "\(name): expr")
                #expect(expr.filter { $0 == "(" }.count == expr.filter { $0 == ")" }.count, "\(name): unbalanced parentheses")
                #expect(["critical", "warning"].contains((rule["labels"] as? [String: Any])?["severity"] as? String), "\(name): severity")
                #expect((rule["annotations"] as? [String: Any])?["summary"] is String, "\(name): summary")
                if let wait = rule["for"] as? String { #expect(wait.range(of: #"^\d+[smh]$"#, options: .regularExpression) != nil, "\(name): for") }
                for match in expr.matches(of: /baton_[a-z_]+/) {
                    var metric = String(match.output)
                    for suffix in ["_bucket", "_count", "_sum"] where metric.hasSuffix(suffix) { metric = String(metric.dropLast(suffix.count)) }
                    #expect(operations.contains("`\(metric)`"), "\(name): \(metric) is not a documented metric")
                }
            }
        }
        #expect(names.count >= 8)
        #expect(names.contains("BatonBrokerBlocked"), "a broker that blocks publishers is alerted on")
    }
}
