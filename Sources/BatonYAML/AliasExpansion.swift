// libyaml, which Yams builds for itself (a target, not a product, of the Yams package): its event
// stream is the only place where an alias can be counted before Yams composes a tree from it.
import CYaml

/// Counts the nodes that aliases add to a YAML text, from libyaml's events, before Yams composes it.
///
/// Yams resolves an alias to the anchored node itself, which costs nothing; but converting the tree
/// copies every alias, and Yams hashes each mapping key in full to find duplicates, so ten lines of
/// nested aliases (a "billion laughs") would cost minutes and gigabytes. Each anchor's expanded size
/// is remembered when its node ends, so an alias costs one addition here. Aliases may add `limit`
/// nodes, or `perNodeWritten` for each node the text writes if that is more (a large graph that merges
/// its defaults into every node adds a few per node): so aliases make a document cost at most a
/// fixed amount more, or ten times as much, as it would without them.
enum AliasExpansion {
    /// Throws at the alias with which the nodes aliases add pass what is allowed. A text libyaml
    /// cannot parse passes: Yams then reports the problem in its words.
    static func check(_ bytes: [UInt8], limit: Int, perNodeWritten: Int = 10) throws(YAMLError) {
        let refusal: YAMLError? = bytes.withUnsafeBufferPointer { buffer in
            var parser = yaml_parser_t()
            guard yaml_parser_initialize(&parser) == 1 else { return nil }
            defer { yaml_parser_delete(&parser) }
            yaml_parser_set_input_string(&parser, buffer.baseAddress, buffer.count)
            var counter = Counter(limit: limit, perNodeWritten: perNodeWritten)
            var event = yaml_event_t()
            while yaml_parser_parse(&parser, &event) == 1 {
                defer { yaml_event_delete(&event) }
                if event.type == YAML_STREAM_END_EVENT { return nil }
                if let refusal = counter.count(event) { return refusal }
            }
            return nil
        }
        if let refusal { throw refusal }
    }

    /// The running count: the open lists and mappings with their expanded sizes so far, the
    /// expanded size of each anchor whose node has ended, the nodes written and those aliases add.
    private struct Counter {
        let limit: Int
        let perNodeWritten: Int
        var open: [(anchor: String?, nodes: Int)] = []
        var anchored: [String: Int] = [:]
        var written = 0
        var added = 0

        init(limit: Int, perNodeWritten: Int) {
            self.limit = limit
            self.perNodeWritten = perNodeWritten
        }

        mutating func count(_ event: yaml_event_t) -> YAMLError? {
            switch event.type {
            case YAML_SCALAR_EVENT:
                written += 1
                ended(anchor: Self.name(event.data.scalar.anchor), nodes: 1)
            case YAML_SEQUENCE_START_EVENT:
                written += 1
                open.append((Self.name(event.data.sequence_start.anchor), 1))
            case YAML_MAPPING_START_EVENT:
                written += 1
                open.append((Self.name(event.data.mapping_start.anchor), 1))
            case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
                if let node = open.popLast() { ended(anchor: node.anchor, nodes: node.nodes) }
            case YAML_ALIAS_EVENT:
                // An undefined alias counts one node: Yams refuses it.
                let nodes = Self.name(event.data.alias.anchor).flatMap { anchored[$0] } ?? 1
                added += nodes
                let allowed = max(limit, perNodeWritten * written)
                if added > allowed {
                    let mark = YAMLMark(line: Int(event.start_mark.line) + 1, column: Int(event.start_mark.column) + 1)
                    let why = allowed > limit ? ", \(perNodeWritten) times the nodes it writes" : ""
                    return YAMLError(mark: mark, message: "the document expands to more than \(allowed) nodes through aliases\(why)")
                }
                if !open.isEmpty { open[open.count - 1].nodes += nodes }
            default:
                break
            }
            return nil
        }

        private mutating func ended(anchor: String?, nodes: Int) {
            if let anchor { anchored[anchor] = nodes }
            if !open.isEmpty { open[open.count - 1].nodes += nodes }
        }

        private static func name(_ anchor: UnsafeMutablePointer<yaml_char_t>?) -> String? {
            anchor.map { String(cString: $0) }
        }
    }
}
