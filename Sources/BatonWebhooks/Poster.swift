import AsyncHTTPClient
import Foundation

/// Posts a batch of webhook requests at once and waits for every answer, from a plain thread (the
/// delivery loop's): the posts run as tasks, the thread waits on a semaphore.
struct Poster: Sendable {
    typealias Outcome = DeliveryOutcome

    let client: HTTPClient
    let timeout: Double

    /// The answers to `requests`, in order.
    func post(_ requests: [WebhookRequest]) -> [Outcome] {
        let box = OutcomeBox(count: requests.count)
        let done = DispatchSemaphore(value: 0)
        Task {
            await withTaskGroup(of: (Int, Outcome).self) { group in
                for (i, request) in requests.enumerated() { group.addTask { (i, await send(request)) } }
                for await (i, outcome) in group { box.set(i, outcome) }
            }
            done.signal()
        }
        done.wait()
        return box.values
    }

    private func send(_ request: WebhookRequest) async -> Outcome {
        let started = Date()
        func elapsed() -> Int { Int(Date().timeIntervalSince(started) * 1000) }
        var http = HTTPClientRequest(url: request.url)
        http.method = .POST
        for (name, value) in request.headers { http.headers.add(name: name, value: value) }
        http.body = .bytes(request.body)
        do {
            let response = try await client.execute(http, timeout: .milliseconds(Int64(timeout * 1000)))
            // Only the status matters; read at most 64 KiB of the body and drop the rest.
            var seen = 0
            for try await part in response.body {
                seen += part.readableBytes
                if seen > 65_536 { break }
            }
            return Outcome(status: Int(response.status.code), error: nil, durationMs: elapsed())
        } catch {
            return Outcome(status: nil, error: String(describing: error), durationMs: elapsed())
        }
    }
}

/// The outcomes of one batch, written by the posting tasks and read by the waiting thread after.
final class OutcomeBox: @unchecked Sendable {
    // Safe: every access holds `lock`.
    private let lock = NSLock()
    private var outcomes: [Poster.Outcome?]

    init(count: Int) { outcomes = Array(repeating: nil, count: count) }

    func set(_ i: Int, _ outcome: Poster.Outcome) {
        lock.lock()
        outcomes[i] = outcome
        lock.unlock()
    }

    var values: [Poster.Outcome] {
        lock.lock()
        defer { lock.unlock() }
        return outcomes.map { $0 ?? Poster.Outcome(status: nil, error: "not sent", durationMs: 0) }
    }
}
