import ArgumentParser
import Baton
import BatonCommandLine
import BatonStore

/// Pausing and resuming, shared by both commands.
enum SchedulePausing {
    static func set(_ name: String, paused: Bool, connection: ConnectionOptions, json: Bool) throws {
        let store = try connection.openStore()
        defer { store.close() }
        guard try store.setSchedulePaused(name, paused) else { throw ScheduleLookup.unknown(name) }
        if json {
            Output.json(["name": .string(name), "paused": .bool(paused)])
        } else {
            print("schedule \(name) \(paused ? "paused" : "resumed")")
        }
    }
}
