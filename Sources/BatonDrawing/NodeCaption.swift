/// The lines of text a node shows, shared by the renderers.
enum NodeCaption {
    /// The second line: the procedure (for a map, what each element runs).
    static func procedure(_ node: DrawingNode) -> String {
        switch node.kind {
        case .procedure: return node.procedure
        case .group: return "group"
        case .map: return "map · " + node.procedure
        }
    }

    /// In a run, the third line: the state and the attempts.
    static func state(_ node: DrawingNode) -> String? {
        guard let status = node.status else { return nil }
        let attempts = node.attempts ?? 0
        return "\(status.rawValue) · \(attempts) attempt\(attempts == 1 ? "" : "s")"
    }

    /// Every line, for formats that take one label.
    static func lines(_ node: DrawingNode) -> [String] {
        [node.label, procedure(node)] + (state(node).map { [$0] } ?? [])
    }
}
