import Foundation

/// Cuts single processes off from PostgreSQL or RabbitMQ on 127.0.0.1, in one direction or both,
/// with iptables rules on an OS user of their own that this creates (`baton-cut-<pid>-<tag>`). Its
/// rules live in a chain of its own, `BATON-CHAOS-<pid>`, jumped to from OUTPUT; `removeAll()`
/// deletes the chain and the users (also run at exit and on SIGINT/SIGTERM), and `init` first
/// removes what a crashed earlier run (a pid no longer alive) left behind.
///
/// Every packet a cut user sends marks its connection (CONNMARK, the mark being its uid) from the
/// process's start, so the answers to it can be told apart: they are sent by the server's process
/// and pass OUTPUT on the loopback too. Outbound is dropped by owner, inbound by mark.
final class ChaosFirewall: @unchecked Sendable {
    enum Direction: String, CaseIterable {
        case outbound = "its packets to the server"
        case inbound = "the server's packets to it"
        case both = "both directions"
    }

    /// An OS user a victim process runs as.
    struct User: Hashable {
        let name: String
        let uid: UInt32
        let gid: UInt32
        /// The command prefix that runs a program as this user (setpriv execs: the pid stays the program's).
        var prefix: [String] { ["/usr/bin/setpriv", "--reuid", "\(uid)", "--regid", "\(gid)", "--clear-groups", "--"] }
    }

    struct CutError: Error, CustomStringConvertible {
        let description: String
    }

    static let chainPrefix = "BATON-CHAOS-"
    static let userPrefix = "baton-cut-"
    let chain = "\(ChaosFirewall.chainPrefix)\(getpid())"
    private let lock = NSLock()
    private var users: [User] = []
    private var cuts: [User: [[String]]] = [:]
    private var chainMade = false

    /// Makes the chain; removes a chain and users of an earlier run that crashed.
    init() throws {
        guard getuid() == 0 else { throw CutError(description: "network cuts need root (iptables, useradd): run as root or pass --no-network-cuts") }
        Self.removeStale()
        try Self.iptables(["-N", chain])
        chainMade = true
        try Self.iptables(["-I", "OUTPUT", "1", "-j", chain])
    }

    /// A new OS user whose every connection is marked, so that it can be cut later.
    func makeUser(_ tag: String) throws -> User {
        let name = "\(Self.userPrefix)\(getpid())-\(tag)"
        _ = Command.run(["userdel", name])
        let made = Command.run(["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", name])
        guard made.succeeded, let uid = UInt32(Command.run(["id", "-u", name]).stdout), let gid = UInt32(Command.run(["id", "-g", name]).stdout)
        else { throw CutError(description: "cannot create OS user \(name): \(made.stderr)") }
        let user = User(name: name, uid: uid, gid: gid)
        lock.withLock { users.append(user) }
        try Self.iptables(["-A", chain, "-o", "lo", "-m", "owner", "--uid-owner", "\(uid)", "-j", "CONNMARK", "--set-mark", "\(uid)"])
        return user
    }

    /// Drops `user`'s TCP traffic with 127.0.0.1 `ports` in `direction` until `heal(user)`.
    func cut(_ user: User, ports: [Int], _ direction: Direction) throws {
        let list = ports.map(String.init).joined(separator: ",")
        var rules: [[String]] = []
        if direction != .inbound {
            rules.append([
                "-o", "lo", "-p", "tcp", "-d", "127.0.0.1", "-m", "multiport", "--dports", list, "-m", "owner", "--uid-owner", "\(user.uid)", "-j",
                "DROP",
            ])
        }
        if direction != .outbound {
            rules.append([
                "-o", "lo", "-p", "tcp", "-s", "127.0.0.1", "-m", "multiport", "--sports", list, "-m", "connmark", "--mark", "\(user.uid)", "-j",
                "DROP",
            ])
        }
        for rule in rules { try Self.iptables(["-A", chain] + rule) }
        lock.withLock { cuts[user, default: []] += rules }
    }

    /// Removes `user`'s cut.
    func heal(_ user: User) {
        let rules = lock.withLock { cuts.removeValue(forKey: user) ?? [] }
        for rule in rules { try? Self.iptables(["-D", chain] + rule) }
    }

    /// Deletes the chain (every rule in it) and the users. Safe to call more than once, from any thread.
    func removeAll() {
        let (made, gone) = lock.withLock {
            defer { chainMade = false; users = []; cuts = [:] }
            return (chainMade, users)
        }
        if made { Self.removeChain(chain) }
        for user in gone {
            // Its processes may still be ending (userdel refuses a user in use): try for 2 s.
            var tries = 0
            while !Command.run(["userdel", user.name]).succeeded && tries < 20 {
                usleep(100_000)
                tries += 1
            }
        }
    }

    /// The TCP ports of a PostgreSQL or AMQP URL (an AMQP URL may list more hosts after commas, as
    /// `host:port`); every host must be 127.0.0.1, the only address the rules match.
    static func loopbackPorts(of url: String, defaultPort: Int) throws -> [Int] {
        let parts = url.split(separator: ",").map(String.init)
        var ports: [Int] = []
        for (index, part) in parts.enumerated() {
            let hostPort = index == 0 ? (URLComponents(string: part).map { ($0.host ?? "", $0.port) } ?? ("", nil)) : Self.split(part)
            guard hostPort.0 == "127.0.0.1" else {
                throw CutError(description: "network cuts work on 127.0.0.1 only, and \(part) is not on it: pass --no-network-cuts")
            }
            ports.append(hostPort.1 ?? defaultPort)
        }
        return ports
    }

    private static func split(_ hostPort: String) -> (String, Int?) {
        let pieces = hostPort.split(separator: ":", maxSplits: 1)
        return (String(pieces.first ?? ""), pieces.count > 1 ? Int(pieces[1].prefix(while: \.isNumber)) : nil)
    }

    private static func removeChain(_ name: String) {
        while Command.run(["iptables", "-w", "-D", "OUTPUT", "-j", name]).succeeded {}
        _ = Command.run(["iptables", "-w", "-F", name])
        _ = Command.run(["iptables", "-w", "-X", name])
    }

    /// Chains and users named for a chaos run whose process is gone.
    private static func removeStale() {
        func dead(_ suffix: Substring) -> Bool {
            guard let pid = Int32(suffix.prefix(while: \.isNumber)), pid > 0 else { return false }
            return kill(pid, 0) != 0 && errno == ESRCH
        }
        for line in Command.run(["iptables", "-w", "-S"]).stdout.split(separator: "\n") where line.hasPrefix("-N \(chainPrefix)") {
            let name = line.dropFirst(3)
            if dead(name.dropFirst(chainPrefix.count)) {
                say("removing iptables chain \(name) left by an earlier chaos run")
                removeChain(String(name))
            }
        }
        let passwd = (try? String(contentsOfFile: "/etc/passwd", encoding: .utf8)) ?? ""
        for line in passwd.split(separator: "\n") where line.hasPrefix(userPrefix) {
            let name = line.prefix(while: { $0 != ":" })
            if dead(name.dropFirst(userPrefix.count)) {
                say("removing OS user \(name) left by an earlier chaos run")
                _ = Command.run(["userdel", String(name)])
            }
        }
    }

    private static func iptables(_ arguments: [String]) throws {
        let result = Command.run(["iptables", "-w"] + arguments)
        guard result.succeeded else {
            throw CutError(description: "iptables \(arguments.joined(separator: " ")) failed: \(result.stderr)")
        }
    }
}
