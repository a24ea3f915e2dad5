/// Which cluster a measurement ran on: one coordinator and one `baton worker` started with no
/// tuning flags (what a user gets from the defaults), or `--workers` processes of `--concurrency` slots.
enum ClusterKind: String, CaseIterable {
    case `default`
    case tuned

    /// The `baton worker` invocations (arguments after the binary) this cluster starts.
    func workerArguments(_ options: Options) -> [[String]] {
        switch self {
        case .default: [["worker"]]
        case .tuned: Array(repeating: ["worker", "--concurrency", String(options.concurrency)], count: options.workers)
        }
    }
}
