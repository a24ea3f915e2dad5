import BatonStore
import Foundation

/// The audit entry of a token made or revoked from the CLI: no token, the OS user as the source.
enum TokenAudit {
    static func entry(_ action: String, target: String? = nil) -> AuditEntry {
        AuditEntry(action: action, target: target, source: "cli (OS user \(ProcessInfo.processInfo.userName))")
    }
}
