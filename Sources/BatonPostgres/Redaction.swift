import Foundation

/// Returns `url` with every credential replaced by `***`, for logs and errors.
///
/// Handles URIs (`postgresql://user:secret@host/db` becomes
/// `postgresql://user:***@host/db`, and a `password=` query parameter is masked)
/// and keyword/value strings (`host=h password=secret` becomes `host=h password=***`).
/// When in doubt it masks too much rather than too little.
public func redactedURL(_ url: String) -> String {
    guard let schemeEnd = url.range(of: "://") else {
        return redactKeywordPasswords(url)
    }
    let prefix = url[..<schemeEnd.upperBound]
    var rest = String(url[schemeEnd.upperBound...])
    // A password may itself contain '@', '/' or '?': take the last '@' as the end of the user info.
    if let at = rest.lastIndex(of: "@") {
        let userInfo = rest[..<at]
        if let colon = userInfo.firstIndex(of: ":") {
            rest = String(userInfo[..<colon]) + ":***" + rest[at...]
        }
    }
    return String(prefix) + redactQueryPasswords(rest)
}

/// Masks `password=` values in a URI's query string.
private func redactQueryPasswords(_ text: String) -> String {
    text.replacing(#/([?&]password=)[^&#]*/#.ignoresCase()) { match in
        "\(match.output.1)***"
    }
}

/// Masks `password=value` and `password = 'quoted value'` in a keyword/value connection string.
private func redactKeywordPasswords(_ text: String) -> String {
    text.replacing(#/password\s*=\s*(?:'(?:[^'\\]|\\.)*'?|\S+)/#.ignoresCase()) { _ in
        "password=***"
    }
}

/// Removes credentials from a libpq message about `url`: masks the given secrets
/// (everywhere if 3+ characters long, else only where libpq quotes them, so a
/// one-letter password does not garble the text), then (if `patterns`) any URI or
/// `password=` left.
func redactMessage(_ message: String, secrets: [String], patterns: Bool = true) -> String {
    var text = message
    for secret in secrets where !secret.isEmpty {
        text =
            secret.count >= 3
            ? text.replacingOccurrences(of: secret, with: "***")
            : text.replacingOccurrences(of: "\"\(secret)\"", with: "\"***\"")
    }
    guard patterns else { return text }
    text = text.replacing(#/[A-Za-z][A-Za-z0-9+.\-]*://\S+/#) { match in
        redactedURL(String(match.output))
    }
    return redactKeywordPasswords(text)
}

/// The password(s) a connection string carries, raw and percent-decoded,
/// so they can be scrubbed from anything libpq echoes back.
func passwords(in url: String) -> [String] {
    var found: [String] = []
    if let schemeEnd = url.range(of: "://") {
        let rest = url[schemeEnd.upperBound...]
        if let at = rest.lastIndex(of: "@"), let colon = rest[..<at].firstIndex(of: ":") {
            found.append(String(rest[rest.index(after: colon)..<at]))
        }
        for match in url.matches(of: #/[?&]password=([^&#]*)/#.ignoresCase()) {
            found.append(String(match.output.1))
        }
    } else {
        for match in url.matches(of: #/password\s*=\s*(?:'((?:[^'\\]|\\.)*)'?|(\S+))/#.ignoresCase()) {
            if let quoted = match.output.1 { found.append(String(quoted)) }
            if let bare = match.output.2 { found.append(String(bare)) }
        }
    }
    found += found.compactMap { $0.removingPercentEncoding }
    return Array(Set(found)).sorted { $0.count > $1.count }
}
