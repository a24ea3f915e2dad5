extension GraphDecoder {
    /// `{"key": TEMPLATE, "weight": N}` on a node, in `defaults` (`node` nil: no `$from` in the key, it
    /// would apply to every node) or (`items`: `$item` and `$index` allowed in the key) in a map for its
    /// children; `field` is where it stands (`fair`, `defaults/fair`, `map/fair`).
    func decodeFair(
        _ json: JSON, node: String?, field: String, scope: NodeScope, items: Bool = false, problem: (String?, String, String) -> Void
    ) -> FairPolicy? {
        guard case let .object(o) = json else {
            problem(node, field, "must be an object like {\"key\": \"tenant-a\", \"weight\": 1}, found \(json.kindName)")
            return nil
        }
        for key in o.keys where !["key", "weight"].contains(key) {
            problem(node, "\(field)/\(key)", "unknown field (expected one of: key, weight)")
        }
        guard let keyJSON = o["key"] else {
            problem(node, "\(field)/key", "is required: a string, or a $from, $input or $item reference")
            return nil
        }
        let key: Template
        if let node {
            key = decodeTemplate(keyJSON, node: node, field: "\(field)/key", scope: scope, items: items, problem: problem)
        } else if keyJSON.serialized().contains("\"$from\"") {
            problem(nil, "\(field)/key", "cannot use $from in defaults (it would apply to every node): set it per node")
            return nil
        } else {
            key = .literal(keyJSON)
        }
        if case let .literal(value) = key, case let .failure(e) = FairPolicy.keyText(value) {
            problem(node, "\(field)/key", e.description.replacingOccurrences(of: "fair/key must evaluate to", with: "must be"))
            return nil
        }
        var weight = 1
        if let w = o["weight"] {
            guard let n = w.intValue, (1...FairPolicy.maxWeight).contains(n) else {
                problem(node, "\(field)/weight", "must be an integer from 1 to \(FairPolicy.maxWeight), found \(w)")
                return nil
            }
            weight = n
        }
        return FairPolicy(key: key, weight: weight)
    }
}
