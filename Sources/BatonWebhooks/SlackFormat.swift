import Baton

/// A Slack incoming-webhook message (`{"text": …}`) for a delivery's event (format `slack`): one line
/// naming the event, the run and, for node events, the node and its error.
public enum SlackFormat {
    /// The message body for the event `payload` (the trigger's JSON); the payload itself when it is not JSON.
    public static func body(of payload: String) -> String {
        guard let event = try? JSONParser.parse(payload) else { return payload }
        return JSON.object(JSONObject([("text", .string(text(of: event)))])).serialized()
    }

    /// The line: `:x: run.failed: run nightly (c0ffee…) failed: step 'load' failed`.
    public static func text(of event: JSON) -> String {
        let type = event["type"]?.stringValue ?? "event"
        let icon =
            switch type {
            case "run.succeeded": ":white_check_mark:"
            case "run.failed", "node.failed": ":x:"
            case "run.cancelled": ":no_entry_sign:"
            case "node.retrying": ":repeat:"
            default: ":hourglass:"
            }
        let run = event["run"]
        let name = escape(run?["name"]?.stringValue ?? "?")
        let id = run?["id"]?.stringValue ?? "?"
        var line = "\(icon) \(type): run *\(name)* (`\(id)`)"
        if let node = event["node"], let key = node["key"]?.stringValue {
            line += ", node `\(escape(key))`"
            if let procedure = node["procedure"]?.stringValue { line += " (\(escape(procedure)))" }
            if let attempt = node["attempt"]?.intValue { line += ", attempt \(attempt)" }
            if let error = node["error"]?.stringValue { line += ": \(escape(String(error.prefix(500))))" }
        } else if let error = run?["error"]?.stringValue {
            line += ": \(escape(String(error.prefix(500))))"
        } else if let status = run?["status"]?.stringValue {
            line += " \(status)"
        }
        return line
    }

    /// Slack's three control characters as entities.
    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }
}
