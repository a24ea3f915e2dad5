/// Signals in the simulation: each waiting signal node gets one signal, a second and a late one are refused.
extension ClusterSimulation {
    /// Sends the unsent signal at `index`, as `baton signal` does; a second one to the same node must be refused.
    func sendSignal(_ index: Int) {
        let (runID, key, value) = unsentSignals.remove(at: index)
        do {
            try store.signal(run: runID, node: key, value: value)
            checker.signalled(runID: runID, key: key, value: value)
            trace("signal to \(key) of \(runID) sent")
        } catch {
            // Refused only when there is nothing left to signal: the run or the node ended (a dependency failed, say).
            let ended = store.run(runID)?.status.isTerminal == true || store.node(key, ofRun: runID)?.status.isTerminal == true
            if !ended { checker.violate("run \(runID) node \(key): its first signal was refused: \(error)") }
            trace("signal to \(key) of \(runID) refused: \(error)")
            return
        }
        if (try? store.signal(run: runID, node: key, value: "second")) != nil {
            checker.violate("run \(runID) node \(key): a second signal was accepted")
        }
    }

    /// Once the runs ended: a signal to any of their signal nodes is refused, and stores nothing.
    func refuseLateSignals() {
        for run in submitted where store.run(run.runID)?.status.isTerminal == true {
            for key in run.graph.signals.keys.sorted() + run.graph.silentSignals {
                if (try? store.signal(run: run.runID, node: key, value: "late")) != nil {
                    checker.violate("run \(run.runID) node \(key): a signal after the run ended was accepted")
                }
            }
        }
    }
}
