import BatonCommandLine
import Foundation

/// Where a run command goes: the database (the default), or a `baton server` with a token
/// (`--server URL` or `BATON_SERVER`, with `BATON_TOKEN`).
enum CLITarget: Equatable {
    case database
    case server(URL, token: String)

    /// The flag wins over the environment; a server without a token, or a URL that is not
    /// http(s)://HOST, is a configuration error (one line, exit 2).
    static func decide(serverFlag: String?, environment: [String: String]) throws -> CLITarget {
        let (name, given): (String, String?) =
            serverFlag != nil ? ("--server", serverFlag) : ("BATON_SERVER", environment["BATON_SERVER"].flatMap { $0.isEmpty ? nil : $0 })
        guard let text = given else { return .database }
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host?.isEmpty == false
        else {
            throw CLIFailure("\(name): '\(text)' is not an http:// or https:// URL with a host (for example http://127.0.0.1:8080)", exitCode: 2)
        }
        guard let token = environment["BATON_TOKEN"], !token.isEmpty else {
            throw CLIFailure("\(name) is set but BATON_TOKEN is not: set BATON_TOKEN to a token from `baton token create`", exitCode: 2)
        }
        return .server(url, token: token)
    }
}
