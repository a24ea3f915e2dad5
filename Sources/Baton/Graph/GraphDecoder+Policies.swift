import Foundation

extension GraphDecoder {
    /// Reads the control-flow fields of a node (or of `defaults`) on top of `base`.
    func decodePolicies(
        _ fields: JSONObject, base: NodePolicies, node: String?, fieldPrefix: String, scope: NodeScope,
        problem: @escaping (String?, String, String) -> Void
    ) -> NodePolicies {
        var p = base
        func report(_ field: String) -> (String, String) -> Void {
            { sub, message in problem(node, fieldPrefix + field + (sub.isEmpty ? "" : "/" + sub), message) }
        }
        if let v = fields["dependencies"] {
            if let s = v.stringValue, let rule = DependencyRule(rawValue: s) {
                p.dependencies = rule
            } else {
                problem(node, fieldPrefix + "dependencies", "must be \"all-succeeded\", \"none-failed\" or \"all-finished\", found \(v)")
            }
        }
        if let v = fields["on_failure"] {
            if let s = v.stringValue, let policy = FailurePolicy(rawValue: s) {
                p.onFailure = policy
            } else {
                problem(node, fieldPrefix + "on_failure", "must be \"fail\" or \"ignore\", found \(v)")
            }
        }
        if let v = fields["timeout"] {
            switch DurationText.parse(v) {
            case let .success(s) where s > 0: p.timeout = s
            case .success: problem(node, fieldPrefix + "timeout", "must be longer than 0")
            case let .failure(e): problem(node, fieldPrefix + "timeout", e.description)
            }
        }
        if let v = fields["retry"] { p.retry = decodeRetry(v, report: report("retry")) }
        if let v = fields["mutex"] { p.mutex = decodeMutex(v, report: report("mutex")) }
        if let v = fields["cache"] { p.cache = decodeCache(v, report: report("cache")) }
        if let v = fields["fair"] { p.fair = decodeFair(v, node: node, field: fieldPrefix + "fair", scope: scope, problem: problem) }
        guard let node else { return p }  // the rest is per node only
        if let v = fields["concurrency"] { p.concurrency = decodeConcurrency(v, node: node, scope: scope, problem: problem) }
        if let v = fields["rate"] { p.rate = decodeRate(v, node: node, field: "rate", scope: scope, problem: problem) }
        if let v = fields["when"] {
            p.when = decodeTemplate(v, node: node, field: "when", scope: scope, problem: problem)
            if case let .literal(value) = p.when!, value.boolValue == nil {
                problem(node, "when", "must be a boolean or a $from reference, found \(value.kindName)")
            }
        }
        if let v = fields["condition"] { p.condition = decodeCondition(v, node: node, scope: scope, problem: problem) }
        if let v = fields["repeat"] { p.repeatPolicy = decodeRepeat(v, report: report("repeat")) }
        return p
    }

    private func decodeRetry(_ json: JSON, report: (String, String) -> Void) -> RetryPolicy? {
        guard case let .object(o) = json else { report("", "must be an object like {\"attempts\": 3, \"wait\": {\"constant\": \"1s\"}}"); return nil }
        for key in o.keys where !["attempts", "wait", "jitter"].contains(key) {
            report(key, "unknown field (expected one of: attempts, jitter, wait)")
        }
        guard let attemptsJSON = o["attempts"] else { report("attempts", "is required"); return nil }
        guard let attempts = attemptsJSON.intValue, (1...1000).contains(attempts) else {
            report("attempts", "must be an integer from 1 to 1000, found \(attemptsJSON)")
            return nil
        }
        var wait = WaitStrategy.immediate
        if let w = o["wait"] {
            guard let decoded = WaitStrategy.decode(w, report: { report("wait" + ($0.isEmpty ? "" : "/" + $0), $1) }) else { return nil }
            wait = decoded
        }
        var jitter = false
        if let j = o["jitter"] {
            guard let b = j.boolValue else { report("jitter", "must be true or false, found \(j.kindName)"); return nil }
            jitter = b
        }
        return RetryPolicy(attempts: attempts, wait: wait, jitter: jitter)
    }

    private func decodeRepeat(_ json: JSON, report: (String, String) -> Void) -> RepeatPolicy? {
        guard case let .object(o) = json else {
            report("", "must be an object like {\"until\": {\"select\": \"/done\", \"equals\": true}, \"max\": 10}"); return nil
        }
        for key in o.keys where !["until", "wait", "max"].contains(key) { report(key, "unknown field (expected one of: max, until, wait)") }
        guard case let .object(until)? = o["until"] else { report("until", "is required: an object with select and equals"); return nil }
        for key in until.keys where !["select", "equals"].contains(key) { report("until/\(key)", "unknown field (expected one of: equals, select)") }
        var pointer = JSONPointer(tokens: [])
        if let s = until["select"] {
            guard case let .string(text) = s else { report("until/select", "must be a JSON pointer string, found \(s.kindName)"); return nil }
            do { pointer = try JSONPointer(parsing: text) } catch {
                report("until/select", "invalid JSON pointer '\(text)': \(error.reason)"); return nil
            }
        }
        guard let equals = until["equals"] else { report("until/equals", "is required"); return nil }
        var wait = WaitStrategy.immediate
        if let w = o["wait"] {
            guard let decoded = WaitStrategy.decode(w, report: { report("wait" + ($0.isEmpty ? "" : "/" + $0), $1) }) else { return nil }
            wait = decoded
        }
        var max = 100
        if let m = o["max"] {
            guard let n = m.intValue, (1...100_000).contains(n) else { report("max", "must be an integer from 1 to 100000, found \(m)"); return nil }
            max = n
        }
        return RepeatPolicy(select: pointer, equals: equals, wait: wait, max: max)
    }

    private func decodeCondition(_ json: JSON, node: String, scope: NodeScope, problem: (String?, String, String) -> Void) -> ConditionSpec? {
        guard case let .object(o) = json else {
            problem(node, "condition", "must be an object like {\"procedure\": \"...\", \"input\": {...}, \"negate\": false}")
            return nil
        }
        for key in o.keys where !["procedure", "input", "negate"].contains(key) {
            problem(node, "condition/\(key)", "unknown field (expected one of: input, negate, procedure)")
        }
        guard case let .string(procedure)? = o["procedure"], !procedure.isEmpty else {
            problem(node, "condition/procedure", "is required: the name of a procedure that returns true or false")
            return nil
        }
        if procedure == DelayProcedure.name {  // the coordinator runs it, as a timer: no worker ever evaluates it
            problem(node, "condition/procedure", "baton.delay cannot be a condition")
        } else {
            checkKnown(procedure, node: node, field: "condition/procedure", problem: problem)
        }
        var negate = false
        if let n = o["negate"] {
            guard let b = n.boolValue else { problem(node, "condition/negate", "must be true or false, found \(n.kindName)"); return nil }
            negate = b
        }
        let input = decodeTemplate(o["input"] ?? .object(JSONObject()), node: node, field: "condition/input", scope: scope, problem: problem)
        return ConditionSpec(procedure: procedure, input: input, negate: negate)
    }

    private func decodeMutex(_ json: JSON, report: (String, String) -> Void) -> [String]? {
        guard case let .array(items) = json else { report("", "must be an array of mutex names like [\"db\"], found \(json.kindName)"); return nil }
        guard !items.isEmpty else { report("", "must name at least one mutex"); return nil }
        var names: [String] = []
        for (i, item) in items.enumerated() {
            guard case let .string(name) = item else { report(String(i), "must be a mutex name string, found \(item.kindName)"); return nil }
            if let why = NodeKey.problem(with: name) { report(String(i), "invalid mutex name '\(name)': \(why)"); return nil }
            if names.contains(name) { report(String(i), "names mutex '\(name)' twice"); return nil }
            names.append(name)
        }
        return names
    }

    private func decodeCache(_ json: JSON, report: (String, String) -> Void) -> CachePolicy? {
        guard case let .object(o) = json else { report("", "must be an object like {\"ttl\": \"1h\"}, found \(json.kindName)"); return nil }
        for key in o.keys where key != "ttl" { report(key, "unknown field (expected: ttl)") }
        guard let ttl = o["ttl"] else { report("ttl", "is required: how long an output may be reused, like \"1h\""); return nil }
        switch DurationText.parse(ttl) {
        case let .success(s) where s > 0: return CachePolicy(ttl: s)
        case .success: report("ttl", "must be longer than 0"); return nil
        case let .failure(e): report("ttl", e.description); return nil
        }
    }

    private func decodeConcurrency(_ json: JSON, node: String, scope: NodeScope, problem: (String?, String, String) -> Void) -> ConcurrencyPolicy? {
        guard case let .object(o) = json else {
            problem(
                node, "concurrency",
                "must be an object like {\"key\": {\"$from\": \"a\", \"select\": \"/customer\"}, \"limit\": 2}, found \(json.kindName)")
            return nil
        }
        for key in o.keys where !["key", "limit"].contains(key) { problem(node, "concurrency/\(key)", "unknown field (expected one of: key, limit)") }
        guard let keyJSON = o["key"] else { problem(node, "concurrency/key", "is required: a string or a $from reference"); return nil }
        let key = decodeTemplate(keyJSON, node: node, field: "concurrency/key", scope: scope, problem: problem)
        if case let .literal(value) = key, case let .failure(e) = ConcurrencyPolicy.keyText(value) {
            problem(node, "concurrency/key", e.description.replacingOccurrences(of: "concurrency/key must evaluate to", with: "must be"))
            return nil
        }
        guard let limitJSON = o["limit"] else { problem(node, "concurrency/limit", "is required: a positive integer"); return nil }
        guard let limit = limitJSON.intValue, (1...1_000_000).contains(limit) else {
            problem(node, "concurrency/limit", "must be an integer from 1 to 1000000, found \(limitJSON)")
            return nil
        }
        return ConcurrencyPolicy(key: key, limit: limit)
    }

    /// `mutex`, `concurrency`, `cache` and `rate` need a procedure that a worker runs: not `baton.delay`, not a
    /// group or map node (its children may have their own; a map's through `map/rate`). Those from `defaults` do not apply there.
    /// `cache` needs a node that runs once (no `repeat`).
    func checkAdmission(
        _ policies: inout NodePolicies, own: JSONObject, kind: String, procedure: String, node: String,
        problem: (String?, String, String) -> Void
    ) {
        guard kind != "procedure" || procedure == DelayProcedure.name else {
            if policies.cache != nil && policies.repeatPolicy != nil { problem(node, "cache", "cannot be combined with repeat") }
            return
        }
        let what = kind == "procedure" ? "with baton.delay (it runs as a timer, not on a worker)" : "on a \(kind) node (set it on its children)"
        // A signal node refused them already.
        for field in ["mutex", "concurrency", "cache", "rate", "fair"] where own[field] != nil && kind != "signal" {
            problem(node, field, "cannot be used \(what)" + (kind == "map" && ["rate", "fair"].contains(field) ? "; use map/\(field)" : ""))
        }
        policies.mutex = nil
        policies.concurrency = nil
        policies.cache = nil
        policies.rate = nil
        policies.fair = nil
    }

    /// A literal `baton.delay` input is checked now; one with references is checked when it runs.
    func checkDelayInput(_ input: Template, node: String, problem: (String?, String, String) -> Void) {
        guard case let .literal(json) = input else { return }
        if case let .failure(error) = DelayProcedure.dueDate(from: json, now: .distantPast) {
            problem(node, "input", error.message)
        }
    }
}
