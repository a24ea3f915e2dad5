import Foundation

/// Counts the AMQP messages that entered the queues of one RabbitMQ vhost, through `rabbitmqctl eval`.
///
/// RabbitMQ 3.10 keeps no per-vhost publish counter without the management plugin (not enabled
/// here), and `rabbit_global_counters` counts the whole broker, which other clients share. Every
/// classic queue, though, numbers the messages it enqueues (`next_seq_id` in its backing queue
/// status; a priority queue sums its sub-queues), so the sum over the vhost's queues, taken before
/// and after a scenario, counts every message Baton published there: tasks, results, heartbeats,
/// republished tasks and control messages. A message counts once per queue it reaches: in Baton
/// only a control message (fanout to every worker) reaches more than one, and an unroutable one
/// none. Queues created meanwhile count from zero; a queue deleted meanwhile is left out.
///
/// Needs `rabbitmqctl` and the Erlang cookie of the broker's node (`BATON_RMQ_NODE`, default
/// `baton@localhost`, as deploy/local/services.sh starts it); without them every count is nil.
struct MessageCounter {
    let vhost: String
    let node: String
    let rabbitmqctl: String?

    init(vhost: String, node: String) {
        self.vhost = vhost
        self.node = node
        let path =
            (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init) + ["/usr/sbin", "/usr/lib/rabbitmq/bin"]
        rabbitmqctl = path.map { "\($0)/rabbitmqctl" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Messages enqueued so far by each queue of the vhost, or nil when the broker cannot be asked.
    func snapshot() -> [String: Int64]? {
        guard let rabbitmqctl, !vhost.contains("\""), !vhost.contains("\\") else { return nil }
        let expression = """
            [{element(4, amqqueue:get_name(Q)), try proplists:get_value(next_seq_id, proplists:get_value(backing_queue_status, \
            rabbit_amqqueue:info(Q, [backing_queue_status]), []), -1) catch _:_ -> -1 end} || Q <- rabbit_amqqueue:list(<<"\(vhost)">>)].
            """
        guard let output = Self.run(rabbitmqctl, ["-q", "-n", node, "eval", expression], timeout: 30) else { return nil }
        // [{<<"baton.results">>,6690},\n {<<"baton.heartbeats">>,104}, ...]
        var counts: [String: Int64] = [:]
        let pattern = /\{<<"((?:[^"\\]|\\.)*)">>,\s*(-?\d+)\}/
        for match in output.matches(of: pattern) {
            guard let n = Int64(match.output.2), n >= 0 else { return nil }  // a queue that is not classic: no count
            counts[String(match.output.1)] = n
        }
        return output.hasPrefix("[") ? counts : nil
    }

    /// Messages enqueued between two snapshots.
    static func delta(_ before: [String: Int64]?, _ after: [String: Int64]?) -> Int64? {
        guard let before, let after else { return nil }
        return after.reduce(0) { $0 + max(0, $1.value - (before[$1.key] ?? 0)) }
    }

    /// Runs a command and returns its standard output if it exits 0 within `timeout` seconds.
    private static func run(_ path: String, _ arguments: [String], timeout: Double) -> String? {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: path)
        p.arguments = arguments
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        do { try p.run() } catch { return nil }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { if p.isRunning { p.terminate() } }
        // Read while it runs (a full pipe would block it) until it exits or is stopped.
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        guard p.terminationReason == .exit, p.terminationStatus == 0 else { return nil }
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
