import Foundation

/// What a worker's report does to a node: conditions, success and repeat, failure and retry.
extension RunState {
    mutating func apply(_ result: NodeResult, into out: inout Commands) {
        guard var node = nodes[result.key], node.status == .queued || node.status == .running,
            node.attempt == result.attempt, node.phase == result.phase,
            children[result.key] == nil  // a node running what it spawned has had its attempt's result
        else { return }  // stale or duplicate
        let key = result.key
        if let worker = result.worker, redelivered(key, node, to: worker, into: &out) { node.status = .queued }
        node.worker = result.worker.map { intern($0) } ?? node.worker
        if node.status == .queued {
            // The worker skipped its "started" report (a quick attempt, or one delivered again): record
            // the start the result implies.
            node.status = .running
            set(
                key, node,
                NodeChange(
                    key: key, status: .running, attempt: result.attempt, worker: node.worker,
                    startedAt: result.startedAt, event: node.phase == .condition ? .conditionStarted : nil), into: &out)
        }
        if result.phase == .condition {
            applyCondition(result, into: &out)
            return
        }
        switch result.outcome {
        case let .spawned(document):
            nodes[key] = node
            spawn(key, document: document, result: result, into: &out)
        case let .succeeded(output):
            if let policy = graph.nodes[key]!.policies.repeatPolicy {
                node.runs += 1
                node.output = output
                node.failures = 0
                node.deadline = nil
                let selected = try? policy.select.resolve(in: output)
                if selected == policy.equals {
                    nodes[key] = node
                    evaluate(
                        end(
                            key, as: .succeeded, output: output, worker: result.worker, startedAt: result.startedAt,
                            finishedAt: result.finishedAt, into: &out), into: &out)
                } else if node.runs >= policy.max {
                    nodes[key] = node
                    let found = selected.map { $0.serialized() } ?? "nothing"
                    evaluate(
                        end(
                            key, as: .failed,
                            error: "repeat: output at '\(policy.select)' was \(found), not \(policy.equals.serialized()), after \(node.runs) runs",
                            output: output, worker: result.worker, startedAt: result.startedAt, finishedAt: result.finishedAt, into: &out), into: &out
                    )
                } else {
                    wait(
                        key, node, for: .repeat, delay: policy.wait.delay(after: node.runs, random: out.random()), error: nil,
                        output: output, into: &out)
                }
                return
            }
            node.output = output
            nodes[key] = node
            if let input = try? currentInput(key).get(), let lookup = cacheLookup(key, input: input) {
                out.append(.cacheStore(key: key, lookup: lookup, output: output))
            }
            evaluate(
                end(
                    key, as: .succeeded, output: output, worker: result.worker, startedAt: result.startedAt,
                    finishedAt: result.finishedAt, into: &out), into: &out)
        case let .failed(message, permanent):
            out.thrown = result.errorType.map { (key, $0) }
            failAttempt(
                key, message: message, permanent: permanent, event: nil, startedAt: result.startedAt, finishedAt: result.finishedAt, into: &out)
            out.thrown = nil
        }
    }

    /// A failed attempt: retried after its back-off while attempts remain, else the node fails.
    mutating func failAttempt(
        _ key: String, message: String, permanent: Bool, event: EventKind?, startedAt: Date? = nil,
        finishedAt: Date? = nil, into out: inout Commands
    ) {
        var node = nodes[key]!
        node.failures += 1
        node.deadline = nil
        if !permanent, let retry = graph.nodes[key]!.policies.retry, node.failures < retry.attempts {
            let delay = retry.delay(afterFailures: node.failures, random: out.random(), jitterRandom: out.random())
            if let event {  // record how the attempt ended (e.g. timed out) before the retry
                out.append(.event(key: key, kind: event, detail: ["attempt": .int(Int64(node.attempt)), "error": .string(message)]))
            }
            wait(key, node, for: .retry, delay: delay, error: message, output: nil, into: &out)
            return
        }
        nodes[key] = node
        evaluate(end(key, as: .failed, error: message, startedAt: startedAt, finishedAt: finishedAt, event: event, into: &out), into: &out)
    }

    /// Puts a node into `waiting` until `delay` from now.
    private mutating func wait(
        _ key: String, _ state: NodeState, for reason: WaitReason, delay: Double, error: String?, output: JSON?,
        into out: inout Commands
    ) {
        var node = state
        node.status = .waiting
        node.waitingFor = reason
        node.dueAt = out.now.addingTimeInterval(delay)
        node.error = error
        set(
            key, node,
            NodeChange(
                key: key, status: .waiting, attempt: node.attempt, output: output, error: error,
                finishedAt: out.now, event: reason == .retry ? .retrying : .repeating, dueAt: node.dueAt), into: &out)
    }

    private mutating func applyCondition(_ result: NodeResult, into out: inout Commands) {
        let key = result.key
        let condition = graph.nodes[key]!.policies.condition!
        switch result.outcome {
        case let .succeeded(value):
            guard let truth = value.boolValue else {
                evaluate(
                    end(
                        key, as: .failed, error: "condition \(condition.procedure) returned \(value.serialized()), not true or false",
                        into: &out), into: &out)
                return
            }
            if truth != condition.negate {
                evaluate(beginRun(key, newAttempt: false, into: &out), into: &out)
            } else {
                let said = condition.negate ? "true (negated)" : "false"
                evaluate(end(key, as: .skipped, error: "condition \(condition.procedure) was \(said)", into: &out), into: &out)
            }
        case let .failed(message, _):
            evaluate(end(key, as: .failed, error: "condition \(condition.procedure) failed: \(message)", into: &out), into: &out)
        case .spawned:
            evaluate(
                end(key, as: .failed, error: "condition \(condition.procedure) returned a graph to run, not true or false", into: &out), into: &out)
        }
    }
}
