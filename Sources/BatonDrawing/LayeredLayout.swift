/// Lays out a drawing top to bottom in layers, Sugiyama-style, clusters included: each cluster's
/// inside is laid out first, then the cluster is one item of the scope around it (an edge between
/// nodes of different clusters counts, in the scope that holds both, as an edge between the items
/// that contain them). Wide layers wrap onto rows (`maxRowWidth`), so a fan-out of 500 nodes makes a
/// block of rows rather than a picture 70 000 pixels wide; edges into and out of a wrapped layer's
/// inner rows run along the gaps between its rows and down its sides.
public struct LayeredLayout: Sendable {
    public var metrics = LayoutMetrics()
    public var layerGap = 60.0
    public var nodeGap = 28.0
    public var rowGap = 26.0
    public var dummyGap = 14.0
    /// A layer wider than this (pixels) wraps onto several rows.
    public var maxRowWidth = 1800.0

    public init() {}

    private static let top = ""  // the key of the top scope (no node key is empty)

    private struct Scope {
        var items: [String]
        var index: [String: Int]
        var layout: LayoutScope
        var chains: [Int: LayoutScope.Chain]  // by from * items + to
        var size: (width: Double, height: Double)
        var contentOffset: Double = 0  // a cluster wider than its content centers it
    }

    public func layout(_ drawing: GraphDrawing) -> DrawingLayout {
        var children: [String: [String]] = [:]
        for node in drawing.nodes { children[node.parent ?? Self.top, default: []].append(node.key) }
        func scopes(of key: String) -> [String] {  // enclosing scopes, innermost first
            var result: [String] = []
            var current = drawing.node(key)?.parent
            while let parent = current {
                result.append(parent)
                current = drawing.node(parent)?.parent
            }
            return result + [Self.top]
        }
        // Each edge belongs to the innermost scope around both ends, between the items holding them.
        var owned: [String: [(edge: Int, from: String, to: String)]] = [:]
        var owner: [Int: String] = [:]
        for (e, edge) in drawing.edges.enumerated() {
            let fromChain = [edge.from] + scopes(of: edge.from)
            let toChain = [edge.to] + scopes(of: edge.to)
            let toScopes = Set(toChain.dropFirst())
            guard let i = fromChain.dropFirst().firstIndex(where: { toScopes.contains($0) }) else { continue }
            let scope = fromChain[i]
            let j = toChain.firstIndex(of: scope)!
            let from = fromChain[i - 1]
            let to = toChain[j - 1]
            guard from != to, from != scope, to != scope else { continue }
            owned[scope, default: []].append((e, from, to))
            owner[e] = scope
        }

        var laid: [String: Scope] = [:]
        let spacing = LayoutScope.Spacing(
            layerGap: layerGap, nodeGap: nodeGap, rowGap: rowGap, dummyGap: dummyGap, maxRowWidth: maxRowWidth)
        func lay(_ scope: String) -> (width: Double, height: Double) {
            let items = children[scope] ?? []
            var index: [String: Int] = [:]
            for (i, key) in items.enumerated() { index[key] = i }
            var widths: [Double] = []
            var heights: [Double] = []
            for key in items {
                if children[key] != nil {
                    let inner = lay(key)
                    let header = metrics.clusterHeaderWidth(drawing.node(key)!)
                    let width = max(inner.width + 2 * metrics.clusterPadding, header)
                    laid[key]!.contentOffset = (width - inner.width) / 2
                    widths.append(width)
                    heights.append(inner.height + metrics.clusterHeader + metrics.clusterPadding)
                } else {
                    let size = metrics.nodeSize(drawing.node(key)!)
                    widths.append(size.width)
                    heights.append(size.height)
                }
            }
            let pairs = (owned[scope] ?? []).map { (index[$0.from]!, index[$0.to]!) }
            let layout = LayoutScope(widths: widths, heights: heights, edges: pairs, spacing: spacing)
            var chains: [Int: LayoutScope.Chain] = [:]
            for chain in layout.chains { chains[chain.from * items.count + chain.to] = chain }
            laid[scope] = Scope(items: items, index: index, layout: layout, chains: chains, size: (layout.width, layout.height))
            return (layout.width, layout.height)
        }
        let size = lay(Self.top)

        var boxes: [String: DrawingRect] = [:]
        var origins: [String: DrawingPoint] = [:]
        func place(_ scope: String, _ origin: DrawingPoint) {
            origins[scope] = origin
            let s = laid[scope]!
            for (i, key) in s.items.enumerated() {
                let w = s.layout.widths[i]
                let box = DrawingRect(x: origin.x + s.layout.x[i] - w / 2, y: origin.y + s.layout.y[i], width: w, height: s.layout.heights[i])
                boxes[key] = box
                if let inner = laid[key] {
                    place(key, DrawingPoint(x: box.x + inner.contentOffset, y: box.y + metrics.clusterHeader))
                }
            }
        }
        place(Self.top, DrawingPoint(x: 0, y: 0))

        var routes: [DrawingRoute] = []
        for (e, edge) in drawing.edges.enumerated() {
            let source = boxes[edge.from]!
            let target = boxes[edge.to]!
            guard let scope = owner[e], let s = laid[scope], let origin = origins[scope] else {
                routes.append(
                    DrawingRoute(
                        edge: edge, points: [DrawingPoint(x: source.midX, y: source.maxY), DrawingPoint(x: target.midX, y: target.y)],
                        fromLayer: -1, toLayer: -1))
                continue
            }
            let fromKey = ([edge.from] + scopes(of: edge.from)).first { drawing.node($0)?.parent ?? Self.top == scope }!
            let toKey = ([edge.to] + scopes(of: edge.to)).first { drawing.node($0)?.parent ?? Self.top == scope }!
            let u = s.index[fromKey]!
            let v = s.index[toKey]!
            let l = s.layout
            let local = { (p: DrawingPoint) in DrawingPoint(x: p.x - origin.x, y: p.y - origin.y) }
            let global = { (p: DrawingPoint) in DrawingPoint(x: p.x + origin.x, y: p.y + origin.y) }
            let start = DrawingPoint(x: source.midX, y: source.maxY)
            var points = l.exit(u, from: local(start))?.map(global) ?? [start]
            for d in s.chains[u * s.items.count + v]?.dummies ?? [] {
                let x = origin.x + l.x[d]
                points.append(DrawingPoint(x: x, y: origin.y + l.layerTop[l.layer[d]]))
                if l.layerBottom[l.layer[d]] > l.layerTop[l.layer[d]] { points.append(DrawingPoint(x: x, y: origin.y + l.layerBottom[l.layer[d]])) }
            }
            let end = DrawingPoint(x: target.midX, y: target.y)
            points += l.entry(v, to: local(end))?.map(global) ?? [end]
            routes.append(DrawingRoute(edge: edge, points: points, fromLayer: l.layer[u], toLayer: l.layer[v]))
        }
        return DrawingLayout(width: size.width, height: size.height, boxes: boxes, routes: routes)
    }
}
