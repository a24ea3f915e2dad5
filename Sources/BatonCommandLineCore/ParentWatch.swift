import Foundation

/// A supervised worker process shuts down gracefully (SIGTERM to itself) if its
/// supervisor goes away, so no worker is left orphaned, taking work nobody watches.
public enum ParentWatch {
    public static func start() {
        let parent = getppid()
        let thread = Thread {
            while getppid() == parent { Thread.sleep(forTimeInterval: 1) }
            kill(getpid(), SIGTERM)
        }
        thread.name = "baton-parent-watch"
        thread.start()
    }
}
