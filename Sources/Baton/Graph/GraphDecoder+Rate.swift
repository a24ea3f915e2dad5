extension GraphDecoder {
    /// `{"key": TEMPLATE, "limit": N, "per": DURATION}`, on a node or (`items`: `$item` and `$index`
    /// allowed in the key) in a map for its children; `field` is where it stands (`rate`, `map/rate`).
    func decodeRate(
        _ json: JSON, node: String, field: String, scope: NodeScope, items: Bool = false, problem: (String?, String, String) -> Void
    ) -> RatePolicy? {
        guard case let .object(o) = json else {
            problem(node, field, "must be an object like {\"key\": \"api\", \"limit\": 5, \"per\": \"1s\"}, found \(json.kindName)")
            return nil
        }
        for key in o.keys where !["key", "limit", "per"].contains(key) {
            problem(node, "\(field)/\(key)", "unknown field (expected one of: key, limit, per)")
        }
        guard let keyJSON = o["key"] else {
            problem(node, "\(field)/key", "is required: a string, or a $from, $input or $item reference")
            return nil
        }
        let key = decodeTemplate(keyJSON, node: node, field: "\(field)/key", scope: scope, items: items, problem: problem)
        if case let .literal(value) = key, case let .failure(e) = RatePolicy.keyText(value) {
            problem(node, "\(field)/key", e.description.replacingOccurrences(of: "rate/key must evaluate to", with: "must be"))
            return nil
        }
        guard let limitJSON = o["limit"] else { problem(node, "\(field)/limit", "is required: a positive integer"); return nil }
        guard let limit = limitJSON.intValue, (1...1_000_000).contains(limit) else {
            problem(node, "\(field)/limit", "must be an integer from 1 to 1000000, found \(limitJSON)")
            return nil
        }
        guard let perJSON = o["per"] else { problem(node, "\(field)/per", "is required: a duration like \"1s\" or \"1m\""); return nil }
        switch DurationText.parse(perJSON) {
        case let .success(s) where s >= 0.001: return RatePolicy(key: key, limit: limit, per: s)
        case .success: problem(node, "\(field)/per", "must be at least 1ms"); return nil
        case let .failure(e): problem(node, "\(field)/per", e.description); return nil
        }
    }
}
