/// Counters read from the coordinators' /metrics (Prometheus text), summed over every label set
/// and every coordinator that answers.
struct ScrapedMetrics {
    private var texts: [String] = []
    /// Coordinators whose /metrics answered.
    var answered: Int { texts.count }

    init(ports: [Int]) {
        for port in ports {
            let result = Command.run(["curl", "--silent", "--fail", "--max-time", "3", "http://127.0.0.1:\(port)/metrics"])
            if result.succeeded { texts.append(result.stdout) }
        }
    }

    /// The sum of every sample of `name` (with or without labels), or of those whose labels hold `label` (`reason="wrong_token"`).
    func sum(_ name: String, label: String? = nil) -> Double {
        var total = 0.0
        for text in texts {
            for line in text.split(separator: "\n") where line.hasPrefix(name + "{") || line.hasPrefix(name + " ") {
                if let label, !line.prefix(while: { $0 != " " }).contains(label) { continue }
                total += line.split(separator: " ").last.flatMap { Double(String($0)) } ?? 0
            }
        }
        return total
    }
}
