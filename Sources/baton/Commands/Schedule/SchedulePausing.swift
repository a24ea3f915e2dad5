import ArgumentParser
import Baton
import BatonCommandLine
import BatonStore

/// Pausing and resuming, shared by both commands.
enum SchedulePausing {
    static func set(_ name: String, paused: Bool, connection: ConnectionOptions, json: Bool) async throws {
        let access = try connection.openSchedules()
        defer { access.close() }
        try await access.setPaused(name, paused)
        if json {
            Output.json(["name": .string(name), "paused": .bool(paused)])
        } else {
            print("schedule \(name) \(paused ? "paused" : "resumed")")
        }
    }
}
