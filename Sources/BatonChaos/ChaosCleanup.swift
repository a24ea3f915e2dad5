import Foundation

/// What must be undone however the suite ends (iptables rules and OS users, a broker alarm, the
/// processes it started, its own RabbitMQ cluster): run once, in the order added (those added
/// `last` after the others), at exit (also after `fail`) and on SIGINT
/// or SIGTERM, which then end the suite with status 128 + the signal.
final class ChaosCleanup: @unchecked Sendable {
    static let shared = ChaosCleanup()
    private let lock = NSLock()
    private var actions: [@Sendable () -> Void] = []
    private var lastActions: [@Sendable () -> Void] = []
    private var sources: [any DispatchSourceSignal] = []

    func add(last: Bool = false, _ action: @escaping @Sendable () -> Void) {
        lock.withLock { if last { lastActions.append(action) } else { actions.append(action) } }
    }

    /// Runs every action added so far, once.
    func runAll() {
        let due = lock.withLock {
            defer { (actions, lastActions) = ([], []) }
            return actions + lastActions
        }
        for action in due { action() }
    }

    /// Runs the actions at exit, and on SIGINT and SIGTERM before exiting.
    func install() {
        atexit { ChaosCleanup.shared.runAll() }
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                say("signal \(number): removing the network cuts and alarms, stopping the processes")
                exit(128 + number)
            }
            source.resume()
            lock.withLock { sources.append(source) }
        }
    }
}
