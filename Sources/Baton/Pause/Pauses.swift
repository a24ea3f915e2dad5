/// What is paused across the cluster (`baton pause`, `baton.pauses`): no new task goes out for a
/// paused procedure, pool or run. The coordinator keeps one copy, read from the store when a
/// `baton_pauses` notification comes (and on every poll), and hands it to each run it holds
/// (`RunState.setPauses`); a copy shares its sets until one changes.
public struct Pauses: Sendable, Equatable {
    public var procedures: Set<String>
    public var pools: Set<String>
    public var runs: Set<String>

    public init(procedures: Set<String> = [], pools: Set<String> = [], runs: Set<String> = []) {
        self.procedures = procedures
        self.pools = pools
        self.runs = runs
    }

    /// The pauses `targets` list.
    public init(_ targets: some Sequence<PauseTarget>) {
        self.init()
        for target in targets { insert(target) }
    }

    public var isEmpty: Bool { procedures.isEmpty && pools.isEmpty && runs.isEmpty }
    /// How many pauses there are.
    public var count: Int { procedures.count + pools.count + runs.count }

    public mutating func insert(_ target: PauseTarget) {
        switch target.kind {
        case .procedure: procedures.insert(target.name)
        case .pool: pools.insert(target.name)
        case .run: runs.insert(target.name)
        }
    }

    public mutating func remove(_ target: PauseTarget) {
        switch target.kind {
        case .procedure: procedures.remove(target.name)
        case .pool: pools.remove(target.name)
        case .run: runs.remove(target.name)
        }
    }

    public func contains(_ target: PauseTarget) -> Bool {
        switch target.kind {
        case .procedure: procedures.contains(target.name)
        case .pool: pools.contains(target.name)
        case .run: runs.contains(target.name)
        }
    }

    /// Every pause, by kind then name.
    public var targets: [PauseTarget] {
        runs.sorted().map { PauseTarget(.run, $0) } + pools.sorted().map { PauseTarget(.pool, $0) }
            + procedures.sorted().map { PauseTarget(.procedure, $0) }
    }

    /// Why a task of `procedure` in `pool` of run `runID` may not go out now (the run's pause first,
    /// then the pool's, then the procedure's), or nil when it may. A procedure's pause by its plain
    /// name holds every version of it; one by `name@N` holds that version only.
    public func reason(run runID: String, pool: String, procedure: String) -> PauseTarget? {
        if isEmpty { return nil }
        if runs.contains(runID) { return PauseTarget(.run, runID) }
        if pools.contains(pool) { return PauseTarget(.pool, pool) }
        if procedures.contains(procedure) { return PauseTarget(.procedure, procedure) }
        if let at = procedure.lastIndex(of: "@"), procedures.contains(String(procedure[..<at])) {
            return PauseTarget(.procedure, String(procedure[..<at]))
        }
        return nil
    }
}
