import Foundation

/// Resolved inputs out of memory. With `dropsInputs` (the coordinator's), a node's resolved input is
/// not held in its state once the commands that carry it (the node's change, for the store, and its
/// task, for the broker) are handed out: those carry their own copy until committed and published, and
/// the store keeps it with the node. A retry, a repeat, a task the broker lost or returned, a
/// dead-lettered unstarted task and a cache store build the input again from the node's template and
/// its dependencies' outputs (read back from the store when they were offloaded), as the first attempt
/// did: the dependencies ended before the node started and do not change while it has not ended, so
/// the input built again injects the same values. One that cannot be built fails its node alone.
extension RunState {
    /// Why a node's input could not be built again: an output it injects is gone from memory and store.
    struct InputRebuildFailure: Error, CustomStringConvertible {
        let description: String
    }

    /// `template` with the dependencies' visible outputs injected. A dependency that succeeded but
    /// whose offloaded output cannot be read back is refused (`InputRebuildFailure`) rather than
    /// injected as `null`; a `select` with no target throws its `TemplateError`.
    func resolveInput(_ template: Template) throws -> JSON {
        var missing: String?
        let value = try template.resolve { key in
            guard let node = nodes[key], node.status == .succeeded else { return nil }
            if let output = output(of: key, node) { return output }
            if node.outputOffloaded, missing == nil { missing = key }
            return .null
        }
        if let missing {
            throw InputRebuildFailure(
                description: "the output of '\(missing)', which the input injects, was dropped from memory and cannot be read back from the store")
        }
        return value
    }

    /// The input `key`'s current phase was (or is about to be) sent with: held, or built again. The
    /// error says why it cannot be built, as the node's error.
    func currentInput(_ key: String) -> Result<JSON, InputRebuildFailure> {
        let node = nodes[key]!
        let definition = graph.nodes[key]!
        let template: Template
        if node.phase == .condition, let condition = definition.policies.condition {
            template = condition.input
        } else if let input = node.input {
            return .success(input)
        } else {
            template = definition.input
        }
        do { return .success(try resolveInput(template)) } catch {
            let phase = node.phase == .condition ? "condition input" : "input"
            return .failure(InputRebuildFailure(description: "the \(phase) of attempt \(node.attempt) cannot be built again: \(error)"))
        }
    }

    /// `state` as it is held: without its input when `dropsInputs`.
    func held(_ state: NodeState) -> NodeState {
        guard dropsInputs, state.input != nil else { return state }
        var state = state
        state.input = nil
        return state
    }

    /// Drops the inputs every node holds (a run just loaded holds those the store gave it), when `dropsInputs`.
    mutating func dropHeldInputs() {
        guard dropsInputs else { return }
        for key in graph.order where nodes[key]?.input != nil { nodes[key]!.input = nil }
    }

    /// About the bytes of the resolved inputs held in memory (none once a run with `dropsInputs` started).
    public var heldInputBytes: Int { nodes.values.reduce(0) { $0 + ($1.input?.estimatedBytes ?? 0) } }

    /// About the bytes of the outputs and inputs held in memory: what the memory budget bounds.
    public var heldBytes: Int { nodes.values.reduce(0) { $0 + ($1.output?.estimatedBytes ?? 0) + ($1.input?.estimatedBytes ?? 0) } }
}
