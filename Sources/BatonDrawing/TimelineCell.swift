import Baton

/// What one character of a timeline bar shows, drawn over what shows less (`rank`).
enum TimelineCell: Equatable {
    case empty
    case waiting
    case queued
    /// Still running (no outcome yet).
    case running
    /// A condition that said yes.
    case condition
    case ended(TimelineOutcome)

    var rank: Int {
        switch self {
        case .empty: return 0
        case .waiting: return 1
        case .queued: return 2
        case .running, .condition, .ended: return 3
        }
    }

    var character: Character {
        switch self {
        case .empty: return " "
        case .waiting: return "."
        case .queued: return "-"
        case .running: return ">"
        case .condition: return "?"
        case .ended(let outcome): return Self.character(outcome)
        }
    }

    /// The ANSI SGR code of its color.
    var color: String {
        switch self {
        case .empty: return "0"
        case .waiting: return "2"
        case .queued: return "33"
        case .running, .condition: return "34"
        case .ended(let outcome):
            switch outcome {
            case .succeeded: return "32"
            case .failed, .deadLettered: return "31"
            case .timedOut: return "35"
            case .cancelled, .skipped: return "90"
            case .lost: return "33"
            }
        }
    }

    static func character(_ outcome: TimelineOutcome) -> Character {
        switch outcome {
        case .succeeded: return "#"
        case .failed: return "x"
        case .timedOut: return "T"
        case .cancelled: return "/"
        case .skipped: return "s"
        case .deadLettered: return "D"
        case .lost: return "L"
        }
    }

    /// Each cell's meaning, in the order the legend lists them.
    static let legend: [(TimelineCell, String)] =
        [(.waiting, "waiting"), (.queued, "queued"), (.running, "running"), (.condition, "condition")]
        + TimelineOutcome.allCases.map { (.ended($0), $0.rawValue.replacingOccurrences(of: "_", with: " ")) }
}
