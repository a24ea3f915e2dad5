import Baton
import Foundation
import Testing

/// Headless Chromium driven over the DevTools protocol on a pipe (`--remote-debugging-pipe`:
/// commands in on fd 3, replies out on fd 4, each a JSON text ended by a NUL), so a test can keep
/// a page open and watch it change as a person would, with no reloads.
final class ChromiumSession {
    struct Failure: Error, CustomStringConvertible { let description: String }

    private var pid: pid_t = 0
    private let toBrowser: Int32
    private let fromBrowser: Int32
    private var buffer: [UInt8] = []
    private var nextID = 0
    private var sessionID = ""
    private let profile: URL

    /// Starts the browser and opens `url` in a page.
    init(url: String) throws {
        let executable = try Chromium.executable()
        signal(SIGPIPE, SIG_IGN)  // a browser that died makes writes fail, not the test process
        profile = FileManager.default.temporaryDirectory.appendingPathComponent("baton-chromium-\(UUID().uuidString.prefix(8))")
        var commands: [Int32] = [0, 0]
        var replies: [Int32] = [0, 0]
        guard pipe(&commands) == 0, pipe(&replies) == 0 else { throw Failure(description: "pipe: errno \(errno)") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, commands[0], 3)
        posix_spawn_file_actions_adddup2(&actions, replies[1], 4)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        for fd in commands + replies where fd > 4 { posix_spawn_file_actions_addclose(&actions, fd) }
        let arguments = [
            executable, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run", "--disable-extensions",
            "--remote-debugging-pipe", "--user-data-dir=\(profile.path)", "about:blank",
        ]
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        let spawned = posix_spawn(&pid, executable, &actions, nil, &argv, environ)
        Foundation.close(commands[0])
        Foundation.close(replies[1])
        toBrowser = commands[1]
        fromBrowser = replies[0]
        guard spawned == 0 else { throw Failure(description: "posix_spawn \(executable): \(spawned)") }
        let target = try call("Target.createTarget", ["url": .string(url)], session: false)
        guard let targetID = target["targetId"]?.stringValue else { throw Failure(description: "no target: \(target)") }
        let attached = try call("Target.attachToTarget", ["targetId": .string(targetID), "flatten": true], session: false)
        guard let session = attached["sessionId"]?.stringValue else { throw Failure(description: "not attached: \(attached)") }
        sessionID = session
        // Until the page has loaded, there may be no context to evaluate in yet.
        try waitFor(30, "the page to load", "document.readyState") { $0 == "complete" }
    }

    deinit { close() }

    func close() {
        guard pid != 0 else { return }
        kill(pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        pid = 0
        Foundation.close(toBrowser)
        Foundation.close(fromBrowser)
        try? FileManager.default.removeItem(at: profile)
    }

    /// The value of a JavaScript expression in the page (null if it threw or is not JSON).
    func evaluate(_ expression: String) throws -> JSON {
        let reply = try call("Runtime.evaluate", ["expression": .string(expression), "returnByValue": true, "awaitPromise": true])
        return reply["result"]?["value"] ?? .null
    }

    /// Evaluates `expression` every 100 ms until `condition` holds for its value; records an issue after `seconds`.
    @discardableResult
    func waitFor(_ seconds: Double, _ what: String, _ expression: String, _ condition: (JSON) -> Bool) throws -> JSON {
        let deadline = Date().addingTimeInterval(seconds)
        var value: JSON = .null
        while Date() < deadline {
            value = (try? evaluate(expression)) ?? .null  // e.g. "Cannot find default execution context" while loading
            if condition(value) { return value }
            usleep(100_000)
        }
        Issue.record("timed out after \(seconds) s waiting for \(what); last value: \(value)")
        throw TimeoutError(what: what)
    }

    /// Lays the page out for a window of `width` by `height` CSS pixels.
    func setViewport(width: Int, height: Int) throws {
        _ = try call(
            "Emulation.setDeviceMetricsOverride",
            ["width": .int(Int64(width)), "height": .int(Int64(height)), "deviceScaleFactor": 1, "mobile": false])
    }

    /// A PNG of the element `selector` as the page shows it now, written to `path`.
    func screenshot(of selector: String, to path: String) throws {
        let rect = try evaluate(
            """
            (() => { const e = document.querySelector(\(JSON.string(selector).serialized())); e.scrollIntoView();
              const r = e.getBoundingClientRect();
              return { x: r.left + window.scrollX, y: r.top + window.scrollY, width: r.width, height: r.height, scale: 1 }; })()
            """)
        guard rect["width"] != nil else { throw Failure(description: "no element \(selector) to screenshot") }
        let reply = try call("Page.captureScreenshot", ["format": "png", "clip": rect, "captureBeyondViewport": true])
        guard let data = reply["data"]?.stringValue.flatMap({ Data(base64Encoded: $0) }) else {
            throw Failure(description: "Page.captureScreenshot gave no image")
        }
        try data.write(to: URL(fileURLWithPath: path))
    }

    private func call(_ method: String, _ parameters: JSON, session: Bool = true) throws -> JSON {
        nextID += 1
        let id = nextID
        var message: [(key: String, value: JSON)] = [("id", .int(Int64(id))), ("method", .string(method)), ("params", parameters)]
        if session { message.append(("sessionId", .string(sessionID))) }
        let bytes = Array(JSON.object(JSONObject(message)).serialized().utf8) + [0]
        guard write(toBrowser, bytes, bytes.count) == bytes.count else { throw Failure(description: "chromium is gone (\(method))") }
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            while let end = buffer.firstIndex(of: 0) {
                let text = String(decoding: buffer[..<end], as: UTF8.self)
                buffer.removeSubrange(...end)
                let reply = try JSONParser.parse(text, maxDepth: 1024)
                guard reply["id"]?.intValue == id else { continue }  // events and other replies
                if let error = reply["error"] { throw Failure(description: "\(method): \(error)") }
                return reply["result"] ?? .null
            }
            var descriptor = pollfd(fd: fromBrowser, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, 1000) >= 0 else { throw Failure(description: "poll: errno \(errno)") }
            guard descriptor.revents != 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            let n = read(fromBrowser, &chunk, chunk.count)
            guard n > 0 else { throw Failure(description: "chromium closed its pipe (\(method))") }
            buffer += chunk[0..<n]
        }
        throw Failure(description: "no reply to \(method) within 30 s")
    }
}
