import Baton
import BatonSeams

/// Pauses: read from the store when a `baton_pauses` notification comes and on every poll, and
/// handed to every cached run, whose nodes held by a pause that ended go out (in the next commit).
extension CoordinatorLoop {
    func readPauses() throws {
        guard let store else { return }
        let now = try store.loadPauses()
        guard now != pauses else { return }
        pauses = now
        metrics?.pauses(now)
        for id in runs.keys.sorted() {
            let commands = runs[id]!.setPauses(now, at: self.now(), random: configuration.random, tokens: configuration.attemptTokens)
            if !commands.isEmpty { record(id, commands) }
        }
        logger.info("pauses: \(now.count == 0 ? "none" : now.targets.map(\.description).joined(separator: ", "))")
    }
}
