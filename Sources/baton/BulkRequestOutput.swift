import Baton
import BatonCommandLine
import BatonDashboard
import BatonStore

/// What `baton cancel|retry --where` reads and prints: the filter checked before any connection, then
/// the count (and with `--dry-run` the first runs), in words or `--json`.
enum BulkRequestOutput {
    /// The `--where` values as a filter `action` can use, or the one-line refusal (exit 2).
    static func filter(_ values: [String], for action: BulkAction) throws -> RunFilter {
        let filter: RunFilter
        switch RunFilter.parse(values) {
        case .success(let parsed): filter = parsed
        case .failure(let problem): throw CLIFailure(problem.description, exitCode: 2)
        }
        if let problem = filter.problem(for: action) { throw CLIFailure(problem.description, exitCode: 2) }
        return filter
    }

    /// The refusal when neither a run nor `--where` is given, or both, or a flag that needs one of them.
    static func usage(_ verb: String, runID: String?, filters: [String], dryRun: Bool) throws {
        if runID != nil, !filters.isEmpty { throw CLIFailure("give a run id or --where, not both", exitCode: 2) }
        if runID == nil, filters.isEmpty {
            throw CLIFailure(
                "give a run id, or --where FILTER to \(verb) every run it matches (\(RunFilter.keys.map { $0 + "=" }.joined(separator: ", ")))",
                exitCode: 2)
        }
        if dryRun, filters.isEmpty { throw CLIFailure("--dry-run goes with --where", exitCode: 2) }
    }

    static func show(_ answer: BulkAnswer, json: Bool) {
        let verb = answer.action.rawValue
        if json {
            var object: [(key: String, value: JSON)] = [
                ("action", .string(verb)), ("where", .string(answer.filter)), ("dry_run", .bool(answer.dryRun)),
                ("matched", .int(Int64(answer.matched))),
            ]
            if answer.dryRun {
                object.append(("runs", .array(answer.runs.map(DashboardJSON.run))))
            } else {
                object += [("applied", .int(Int64(answer.applied))), ("batches", .int(Int64(answer.batches)))]
            }
            Output.json(.object(JSONObject(object)))
            return
        }
        guard answer.matched > 0 else {
            print("no \(answer.action.statuses.map(\.rawValue).joined(separator: " or ")) run matches \(answer.filter); nothing to \(verb)")
            return
        }
        if answer.dryRun {
            print(
                "would \(verb) \(answer.matched) run(s) matching \(answer.filter)\(answer.matched > answer.runs.count ? "; the first \(answer.runs.count):" : ":")"
            )
            Output.table(
                ["RUN", "NAME", "STATUS", "SUBMITTED", "ERROR"],
                answer.runs.map {
                    [$0.id, Output.truncate($0.name, 30), $0.status.rawValue, Output.time($0.submittedAt), Output.truncate($0.error ?? "", 60)]
                })
            return
        }
        let applied =
            switch answer.applied {
            case answer.matched: "all applied"
            case 0: "no coordinator has applied them yet (they will be when one runs)"
            default: "\(answer.applied) applied; no coordinator has applied the rest yet (they will be when one runs)"
            }
        print("\(verb) requested for \(answer.matched) run(s) matching \(answer.filter) in \(answer.batches) batch(es); \(applied)")
    }
}
