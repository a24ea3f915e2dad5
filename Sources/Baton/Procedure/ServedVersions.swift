/// Which versions of each procedure live workers serve, by pool: what submit plans an unpinned node
/// on (the newest version served in its pool, else anywhere, else 1).
public struct ServedVersions: Sendable, Equatable {
    /// Pool -> base name -> versions served there.
    public private(set) var byPool: [String: [String: Set<Int>]] = [:]
    /// Base name -> versions served in any pool.
    public private(set) var anywhere: [String: Set<Int>] = [:]

    public init() {}

    /// From workers' pools and the routed names they announce (`acme.greet`, `acme.greet@2`).
    public init(workers: [(pools: [String], procedures: [String])]) {
        for worker in workers {
            for routed in worker.procedures {
                guard let name = ProcedureName(parsing: routed) else { continue }
                anywhere[name.base, default: []].insert(name.version)
                for pool in worker.pools { byPool[pool, default: [:]][name.base, default: []].insert(name.version) }
            }
        }
    }

    /// Versions served in every pool (a registry run in process, `baton run --local`).
    public init(everywhere procedures: some Sequence<String>) {
        for routed in procedures {
            guard let name = ProcedureName(parsing: routed) else { continue }
            anywhere[name.base, default: []].insert(name.version)
        }
    }

    /// The version an unpinned node of `base` in `pool` is planned on.
    public func newest(_ base: String, pool: String) -> Int {
        byPool[pool]?[base]?.max() ?? anywhere[base]?.max() ?? 1
    }

    /// The versions of `base` served anywhere, ascending.
    public func versions(of base: String) -> [Int] { (anywhere[base] ?? []).sorted() }
}
