import ArgumentParser
import Baton
import BatonCommandLine
import BatonSeams

/// `KIND NAME` of `baton pause` and `baton resume`; a schedule is the schedule's own pause
/// (`baton schedule pause`), the others rows of `baton.pauses`.
struct PauseArguments: ParsableArguments {
    @Argument(help: "What to pause: procedure, pool, run or schedule (or `list`, to list what is paused).") var kind: String
    @Argument(help: "Its name (a procedure's, a pool's or a schedule's; a run's id).") var name: String?

    /// What `kind` names: a pause target kind, or a schedule; a clear one-line refusal (exit 2) otherwise.
    func target() throws -> (target: PauseTarget?, schedule: String?) {
        guard let name else { throw CLIFailure("give the \(kind == "schedule" ? "schedule's name" : "name") after '\(kind)'", exitCode: 2) }
        if kind == "schedule" { return (nil, name) }
        guard let parsed = PauseKind(rawValue: kind) else {
            throw CLIFailure("'\(kind)' is not something to pause: give procedure, pool, run or schedule", exitCode: 2)
        }
        if let problem = PauseTarget.problem(kind: parsed, name: name) { throw CLIFailure(problem, exitCode: 2) }
        return (PauseTarget(parsed, name), nil)
    }
}

/// Pausing and resuming, shared by both commands.
enum Pausing {
    static func set(_ arguments: PauseArguments, paused: Bool, connection: ConnectionOptions, json: Bool) async throws {
        if arguments.kind == "list", arguments.name == nil {
            guard paused else { throw CLIFailure("`baton resume` needs KIND NAME; `baton pause list` lists what is paused", exitCode: 2) }
            try await list(connection: connection, json: json)
            return
        }
        let (target, schedule) = try arguments.target()
        if let schedule {
            try await SchedulePausing.set(schedule, paused: paused, connection: connection, json: json)
            return
        }
        let access = try connection.openPauses()
        defer { access.close() }
        let (stored, changed) = paused ? try await access.pause(target!) : try await access.resume(target!)
        if json {
            Output.json([
                "kind": .string(stored.kind.rawValue), "name": .string(stored.name), "paused": .bool(paused), "changed": .bool(changed),
            ])
        } else if changed {
            print(
                paused
                    ? "\(stored) paused: nothing new is dispatched for it; what runs finishes (`baton resume \(stored.kind.rawValue) \(stored.name)`)"
                    : "\(stored) resumed: its waiting nodes go out in order")
        } else {
            print(paused ? "\(stored) was already paused" : "\(stored) was not paused")
        }
    }

    static func list(connection: ConnectionOptions, json: Bool) async throws {
        let access = try connection.openPauses()
        defer { access.close() }
        let rows = try await access.pauses()
        if json {
            Output.json(.array(rows.map(\.json)))
            return
        }
        if rows.isEmpty {
            print("nothing is paused")
            return
        }
        Output.table(
            ["KIND", "NAME", "PAUSED AT", "BY"],
            rows.map { [$0.target.kind.rawValue, $0.target.name, CivilDate.iso8601($0.pausedAt), $0.pausedBy ?? "-"] })
    }
}
