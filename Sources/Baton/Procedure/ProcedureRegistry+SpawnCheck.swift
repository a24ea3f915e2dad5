import Foundation

extension ProcedureRegistry {
    /// The type problems of a graph a procedure spawned (`{"nodes": ..., "output": ...}`), its node
    /// inputs checked against this registry's schemas as `baton submit` checks a graph's, before
    /// the coordinator adds it to the run. Procedures this registry does not serve are not checked;
    /// a document that is not a valid graph has no type problems here (the coordinator lists what
    /// is wrong with it when it decodes it).
    public func typeProblems(ofSpawned document: JSON) -> [GraphProblem] {
        guard case let .object(root) = document, let nodes = root["nodes"] else { return [] }
        var graph = JSONObject([("nodes", nodes)])
        if let defaults = root["defaults"] { graph["defaults"] = defaults }
        guard let decoded = try? GraphDecoder().decode(.object(graph)) else { return [] }
        return TypeChecker(schemas: checkedSchemas).check(decoded)
    }

    /// The failure of a spawning attempt whose graph does not fit the procedures' schemas, or nil.
    func spawnedTypeFailure(_ document: EncodedJSON) -> AttemptOutcome<EncodedJSON>? {
        guard let json = try? document.decoded() else { return nil }
        let problems = typeProblems(ofSpawned: json)
        guard !problems.isEmpty else { return nil }
        let n = problems.count
        return .failed(
            message: "spawned an invalid graph (\(n) problem\(n == 1 ? "" : "s")): \(problems.map(\.description).joined(separator: "; "))",
            permanent: true)
    }
}
