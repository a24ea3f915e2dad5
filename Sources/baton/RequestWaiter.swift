import Baton
import BatonCommandLine
import BatonStore
import Foundation

/// Waits until the coordinator has handled a request; returns the run's status then, or nil on timeout.
struct RequestWaiter {
    let store: Store
    let requestID: Int
    let runID: String
    let timeout: Double

    func wait() async throws -> RunStatus? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if try store.requestHandled(requestID) { return try store.progress(ofRun: runID).status }
            try await Task.sleep(for: .milliseconds(50))  // a display's refresh, not synchronisation: the result is read from the database
        }
        return nil
    }
}
