import Foundation
import Hummingbird
import Logging

/// A webhook receiver for the tests, in this process (Hummingbird on 127.0.0.1): it records every
/// POST to `/hook` (headers, body, time) and answers 500 to the first `failFirst`, 200 after.
final class WebhookReceiver: @unchecked Sendable {
    struct Post {
        let at: Date
        /// By lowercased name.
        let headers: [String: String]
        let body: [UInt8]
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    let port: Int
    // Safe: every access to `received` holds `lock`.
    private let lock = NSLock()
    private var received: [Post] = []
    private let failFirst: Int
    private var task: Task<Void, Error>?

    /// Listens on `port` (a free one when nil).
    init(failFirst: Int = 0, port: Int? = nil) throws {
        self.failFirst = failFirst
        self.port = port ?? HTTPProbe.freePort()
        let router = Router()
        router.post("/hook") { [self] request, _ -> Response in
            let buffer = try await request.body.collect(upTo: 1 << 20)
            var headers: [String: String] = [:]
            for field in request.headers { headers[field.name.canonicalName.lowercased()] = field.value }
            let count = record(Post(at: Date(), headers: headers, body: Array(buffer.readableBytesView)))
            return Response(status: count <= self.failFirst ? .internalServerError : .ok)
        }
        var logger = Logger(label: "webhook-receiver")
        logger.logLevel = .critical  // its cancellation at the end is not an error
        let port = self.port
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)), logger: logger)
        task = Task { try await app.runService() }
        try TestCluster.waitUntil(10, "the receiver to listen") { HTTPProbe.get(port: port, "/") != nil }
    }

    private func record(_ post: Post) -> Int {
        lock.lock()
        defer { lock.unlock() }
        received.append(post)
        return received.count
    }

    var posts: [Post] {
        lock.lock()
        defer { lock.unlock() }
        return received
    }

    var url: String { "http://127.0.0.1:\(port)/hook" }

    func stop() { task?.cancel() }
}
