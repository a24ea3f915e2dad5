import Foundation
import Testing

/// deploy/systemd, checked by parsing the units (and by `systemd-analyze verify` where it is installed):
/// restart policy, SIGTERM with a stop timeout that covers the drain, the environment file, hardening,
/// and an ExecStart that runs a real `baton` subcommand with flags the CLI accepts.
@Suite("systemd units")
struct SystemdUnitTests {
    /// A unit file as sections of (key, value) lines, in order.
    struct Unit {
        let name: String
        var sections: [String: [(key: String, value: String)]] = [:]

        init(name: String, text: String) throws {
            self.name = name
            var section = ""
            for (number, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let line = raw.trimmingCharacters(in: .whitespaces)
                if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
                if line.hasPrefix("[") && line.hasSuffix("]") {
                    section = String(line.dropFirst().dropLast())
                    continue
                }
                guard !section.isEmpty, let equals = line.firstIndex(of: "=") else {
                    throw UnitError(description: "\(name):\(number + 1): not KEY=VALUE in a section: \(line)")
                }
                sections[section, default: []].append((String(line[..<equals]), String(line[line.index(after: equals)...])))
            }
        }

        func value(_ section: String, _ key: String) -> String? { sections[section]?.last { $0.key == key }?.value }
    }

    struct UnitError: Error, CustomStringConvertible { let description: String }

    static func units() throws -> [Unit] {
        try DeployFiles.files(in: DeployFiles.folder("systemd"), endingWith: [".service"]).map {
            try Unit(name: $0.lastPathComponent, text: DeployFiles.text($0))
        }
    }

    /// Seconds in a systemd time span like `75s`, `2min`, `1min 30s`.
    static func seconds(_ span: String) -> Double? {
        var total = 0.0
        for part in span.split(separator: " ") {
            let digits = part.prefix { $0.isNumber || $0 == "." }
            guard let number = Double(digits) else { return nil }
            switch part.dropFirst(digits.count) {
            case "", "s", "sec": total += number
            case "min", "m": total += number * 60
            case "ms": total += number / 1000
            default: return nil
            }
        }
        return total
    }

    /// The baton arguments of an ExecStart (through `/bin/sh -c '...'` too), with `%i` and `$((...))` left as text.
    static func batonArguments(_ exec: String) -> [String] {
        var command = exec
        if command.hasPrefix("/bin/sh -c '") { command = String(command.dropFirst("/bin/sh -c '".count).dropLast()) }
        let words = command.split(separator: " ").map(String.init)
        guard let index = words.firstIndex(where: { $0.hasSuffix("/baton") }) else { return [] }
        return Array(words[(index + 1)...])
    }

    @Test("the units exist: a coordinator, a worker template and a migration oneshot")
    func present() throws {
        let names = Set(try Self.units().map(\.name))
        #expect(names == ["baton-coordinator.service", "baton-worker@.service", "baton-migrate.service"])
        let migrate = try #require(try Self.units().first { $0.name == "baton-migrate.service" })
        #expect(migrate.value("Service", "Type") == "oneshot")
        let coordinator = try #require(try Self.units().first { $0.name == "baton-coordinator.service" })
        #expect(coordinator.value("Unit", "Requires")?.contains("baton-migrate.service") == true)
        #expect(coordinator.value("Unit", "After")?.contains("baton-migrate.service") == true)
    }

    @Test("long-running units restart on failure, stop with SIGTERM and wait out the drain")
    func restartAndStop() throws {
        for unit in try Self.units() where unit.name != "baton-migrate.service" {
            #expect(unit.value("Service", "Restart") == "on-failure", "\(unit.name)")
            let backoff = try #require(unit.value("Service", "RestartSec").flatMap(Self.seconds), "\(unit.name): RestartSec")
            #expect(backoff >= 1, "\(unit.name): restarts without a pause")
            #expect(unit.value("Unit", "StartLimitBurst") != nil && unit.value("Unit", "StartLimitIntervalSec") != nil, "\(unit.name)")
            #expect(unit.value("Service", "KillSignal") == "SIGTERM", "\(unit.name)")
            let stop = try #require(unit.value("Service", "TimeoutStopSec").flatMap(Self.seconds), "\(unit.name): TimeoutStopSec")
            let arguments = Self.batonArguments(unit.value("Service", "ExecStart") ?? "")
            let grace = DeployFiles.value(of: "--shutdown-grace", in: arguments).flatMap(Double.init) ?? 0
            #expect(stop > grace + 5, "\(unit.name): TimeoutStopSec \(stop) s does not cover --shutdown-grace \(grace) s")
        }
    }

    @Test("every unit reads its URLs from an EnvironmentFile and is hardened")
    func environmentAndHardening() throws {
        for unit in try Self.units() {
            // The shared file, then the role's own with its URLs (one broker user per role).
            let role = unit.name.dropFirst("baton-".count).prefix { $0 != "." && $0 != "@" }
            let files = unit.sections["Service", default: []].filter { $0.key == "EnvironmentFile" }.map { $0.value }
            #expect(files == ["/etc/baton/baton.env", "/etc/baton/\(role).env"], "\(unit.name): \(files)")
            #expect(unit.value("Service", "User") == "baton", "\(unit.name): runs as root")
            for (key, value) in [
                ("NoNewPrivileges", "yes"), ("ProtectSystem", "strict"), ("ProtectHome", "yes"), ("PrivateTmp", "yes"),
                ("PrivateDevices", "yes"), ("CapabilityBoundingSet", ""),
            ] {
                #expect(unit.value("Service", key) == value, "\(unit.name): \(key)")
            }
        }
        // The example environment files set what the units use, as placeholders; each role's broker
        // URL names that role's user, and workers get no database URL.
        let folder = DeployFiles.folder("systemd")
        let shared = try DeployFiles.text(folder.appendingPathComponent("baton.env.example"))
        #expect(shared.contains("BATON_COORDINATOR_METRICS="))
        #expect(!shared.contains("_URL="), "URLs belong in the role's own file")
        for role in ["coordinator", "worker", "migrate"] {
            let example = try DeployFiles.text(folder.appendingPathComponent("\(role).env.example"))
            #expect(example.contains("BATON_AMQP_URL=amqp://baton-\(role):CHANGE-ME@"), "\(role).env.example")
            #expect(example.contains("BATON_DATABASE_URL=") == (role != "worker"), "\(role).env.example")
        }
    }

    @Test("ExecStart runs a real baton subcommand with flags the CLI accepts")
    func commands() throws {
        var seen: Set<String> = []
        for unit in try Self.units() {
            let exec = try #require(unit.value("Service", "ExecStart"), "\(unit.name)")
            let arguments = Self.batonArguments(exec)
            let subcommand = try #require(arguments.first, "\(unit.name): no baton command in \(exec)")
            seen.insert(subcommand)
            #expect(try DeployFiles.unknownFlags(subcommand, Array(arguments.dropFirst())) == [], "\(unit.name)")
        }
        #expect(seen == ["coordinator", "worker", "migrate"])
        // The worker template's port arithmetic gives instance N the base port plus N, as the shell computes it.
        let worker = try #require(try Self.units().first { $0.name == "baton-worker@.service" })
        let exec = try #require(worker.value("Service", "ExecStart"))
        let script = String(exec.dropFirst("/bin/sh -c '".count).dropLast()).replacingOccurrences(of: "%i", with: "3")
            .replacingOccurrences(of: "exec /usr/local/bin/baton", with: "echo")
        let echoed = try DeployFiles.run("/bin/sh", ["-c", script])
        #expect(echoed.output.contains("--metrics 127.0.0.1:9473"), "\(echoed.output)")
    }

    @Test("systemd-analyze verify finds nothing wrong (where systemd is installed)")
    func verify() throws {
        let analyze = "/usr/bin/systemd-analyze"
        guard FileManager.default.isExecutableFile(atPath: analyze) else { return }
        // Copies that run the baton built here, so the check covers the executable paths too.
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("baton-units-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        var paths: [String] = []
        for url in DeployFiles.files(in: DeployFiles.folder("systemd"), endingWith: [".service"]) {
            let name = url.lastPathComponent.replacingOccurrences(of: "@.service", with: "@0.service")
            let text = try DeployFiles.text(url).replacingOccurrences(of: "/usr/local/bin/baton", with: DeployFiles.batonPath)
            let copy = scratch.appendingPathComponent(name)
            try text.write(to: copy, atomically: true, encoding: .utf8)
            paths.append(copy.path)
        }
        let result = try DeployFiles.run(analyze, ["verify", "--man=no"] + paths)
        // Units this machine does not have (postgresql.service...) are only ordering hints: not findings.
        let findings = result.output.split(separator: "\n").filter { !$0.contains("not found") && !$0.contains("No such file") }
        #expect(findings.isEmpty, "\(result.output)")
    }
}
