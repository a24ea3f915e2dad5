/// The layered (Sugiyama-style) layout of one scope: the top level, or the inside of one cluster,
/// whose items are leaves and (already laid out) clusters. Layers by longest path, order within
/// layers by barycenter sweeps, x by pulling each item toward its neighbors while keeping order and
/// spacing; a layer wider than `maxRowWidth` wraps onto several rows of a grid.
struct LayoutScope {
    struct Spacing {
        var layerGap: Double
        var nodeGap: Double
        var rowGap: Double
        var dummyGap: Double
        var maxRowWidth: Double
    }

    /// A chain of the edges between two items: the dummy vertices it passes through.
    struct Chain {
        let from: Int
        let to: Int
        var dummies: [Int]
    }

    let widths: [Double]
    let heights: [Double]
    /// Per vertex (items first, then dummies).
    private(set) var layer: [Int] = []
    private(set) var x: [Double] = []  // centers
    private(set) var y: [Double] = []  // tops
    private(set) var row: [Int] = []
    private(set) var layerTop: [Double] = []
    private(set) var layerBottom: [Double] = []
    private(set) var rows: [Int] = []  // rows per layer
    /// Per layer: the top of each row, and each row's height (one row unless the layer wraps).
    private(set) var rowTops: [[Double]] = []
    private(set) var rowHeights: [[Double]] = []
    /// Per layer: the left and right of its items (a wrapped layer's edges run just outside them).
    private(set) var blockLeft: [Double] = []
    private(set) var blockRight: [Double] = []
    private var rowGap = 0.0
    private var nodeGap = 0.0
    private var layerGap = 0.0
    private(set) var chains: [Chain] = []
    private(set) var width: Double = 0
    private(set) var height: Double = 0

    /// Lays out `widths.count` items joined by `edges` (item index pairs; duplicates allowed).
    init(widths: [Double], heights: [Double], edges: [(Int, Int)], spacing: Spacing) {
        self.widths = widths
        self.heights = heights
        let n = widths.count
        guard n > 0 else { return }
        assignLayers(n, edges)
        let (layers, vertexWidth) = makeChains(n, edges)
        let ordered = Self.order(layers, chains: chains, vertexCount: vertexWidth.count)
        place(ordered, vertexWidth: vertexWidth, itemCount: n, spacing: spacing)
    }

    // MARK: layers

    private mutating func assignLayers(_ n: Int, _ edges: [(Int, Int)]) {
        var succ = [[Int]](repeating: [], count: n)
        var pred = [[Int]](repeating: [], count: n)
        var indegree = [Int](repeating: 0, count: n)
        for (u, v) in edges where u != v {
            succ[u].append(v)
            pred[v].append(u)
            indegree[v] += 1
        }
        layer = [Int](repeating: 0, count: n)
        var queue = (0..<n).filter { indegree[$0] == 0 }
        var head = 0
        var done = [Bool](repeating: false, count: n)
        var topo: [Int] = []
        while head < queue.count {
            let u = queue[head]
            head += 1
            done[u] = true
            topo.append(u)
            for v in succ[u] {
                layer[v] = max(layer[v], layer[u] + 1)
                indegree[v] -= 1
                if indegree[v] == 0 { queue.append(v) }
            }
        }
        // Vertices on a cycle (only a hand-made drawing has one) go below the rest.
        let bottom = (layer.max() ?? 0) + 1
        for v in 0..<n where !done[v] { layer[v] = bottom }
        // A node that only feeds others sits right above the first of them, not at the very top.
        for u in topo.reversed() where pred[u].isEmpty && !succ[u].isEmpty {
            let below = succ[u].filter { done[$0] }.map { layer[$0] }.min() ?? layer[u] + 1
            layer[u] = max(layer[u], below - 1)
        }
    }

    /// One chain per distinct pair of items, with a dummy vertex on each layer it crosses.
    private mutating func makeChains(_ n: Int, _ edges: [(Int, Int)]) -> (layers: [[Int]], vertexWidth: [Double]) {
        var vertexWidth = widths
        var seen = Set<Int>()
        for (u, v) in edges where u != v && seen.insert(u * n + v).inserted {
            var chain = Chain(from: u, to: v, dummies: [])
            if layer[v] > layer[u] + 1 {
                for l in (layer[u] + 1)..<layer[v] {
                    chain.dummies.append(vertexWidth.count)
                    vertexWidth.append(0)
                    layer.append(l)
                }
            }
            chains.append(chain)
        }
        var layers = [[Int]](repeating: [], count: (layer.max() ?? 0) + 1)
        for v in 0..<vertexWidth.count { layers[layer[v]].append(v) }
        return (layers, vertexWidth)
    }

    // MARK: order

    /// Barycenter sweeps, down then up, keeping the order with the fewest crossings.
    private static func order(_ initial: [[Int]], chains: [Chain], vertexCount: Int) -> [[Int]] {
        var up = [[Int]](repeating: [], count: vertexCount)
        var down = [[Int]](repeating: [], count: vertexCount)
        for chain in chains {
            let path = [chain.from] + chain.dummies + [chain.to]
            for (a, b) in zip(path, path.dropFirst()) {
                down[a].append(b)
                up[b].append(a)
            }
        }
        var layers = initial
        var best = layers
        var bestCrossings = crossings(layers, down)
        guard layers.count > 1, bestCrossings > 0 else { return layers }
        var position = [Int](repeating: 0, count: vertexCount)
        func index() { for l in layers { for (i, v) in l.enumerated() { position[v] = i } } }
        index()
        for iteration in 0..<16 {
            let downward = iteration % 2 == 0
            let sequence = downward ? Array(1..<layers.count) : Array((0..<(layers.count - 1)).reversed())
            for l in sequence {
                let keyed = layers[l].map { v -> (Double, Int, Int) in
                    let neighbors = downward ? up[v] : down[v]
                    let center =
                        neighbors.isEmpty ? Double(position[v]) : Double(neighbors.reduce(0) { $0 + position[$1] }) / Double(neighbors.count)
                    return (center, position[v], v)
                }
                layers[l] = keyed.sorted { ($0.0, $0.1) < ($1.0, $1.1) }.map(\.2)
                for (i, v) in layers[l].enumerated() { position[v] = i }
            }
            let count = crossings(layers, down)
            if count < bestCrossings {
                bestCrossings = count
                best = layers
                if count == 0 { break }
            }
        }
        return best
    }

    /// How many pairs of edges between adjacent layers cross.
    static func crossings(_ layers: [[Int]], _ down: [[Int]]) -> Int {
        var position: [Int: Int] = [:]
        for l in layers { for (i, v) in l.enumerated() { position[v] = i } }
        var total = 0
        for l in layers.dropLast() {
            var pairs: [(Int, Int)] = []
            for (i, u) in l.enumerated() { for v in down[u] { pairs.append((i, position[v]!)) } }
            pairs.sort { $0 < $1 }
            // Count inversions of the targets (merge-sort style via a Fenwick tree).
            let size = (pairs.map(\.1).max() ?? 0) + 2
            var tree = [Int](repeating: 0, count: size + 1)
            var seen = 0
            for (_, target) in pairs {
                var i = target + 1
                var notGreater = 0
                while i > 0 {
                    notGreater += tree[i]
                    i -= i & -i
                }
                total += seen - notGreater
                i = target + 1
                while i <= size {
                    tree[i] += 1
                    i += i & -i
                }
                seen += 1
            }
        }
        return total
    }

    // MARK: coordinates

    private mutating func place(_ layers: [[Int]], vertexWidth: [Double], itemCount n: Int, spacing: Spacing) {
        let count = vertexWidth.count
        x = [Double](repeating: 0, count: count)
        y = [Double](repeating: 0, count: count)
        row = [Int](repeating: 0, count: count)
        rows = [Int](repeating: 1, count: layers.count)
        var up = [[Int]](repeating: [], count: count)
        var down = [[Int]](repeating: [], count: count)
        for chain in chains {
            let path = [chain.from] + chain.dummies + [chain.to]
            for (a, b) in zip(path, path.dropFirst()) {
                down[a].append(b)
                up[b].append(a)
            }
        }
        func gap(_ a: Int, _ b: Int) -> Double { a < n && b < n ? spacing.nodeGap : spacing.dummyGap }

        // Wrapped layers: rows filled in order up to the width, centered; the layer's dummies to the right.
        var offsets: [[Double]] = []  // per layer, each vertex's center relative to the layer's left
        var wrapped = [Bool](repeating: false, count: layers.count)
        for vertices in layers {
            let items = vertices.filter { $0 < n }
            let total = vertices.reduce(0) { $0 + vertexWidth[$1] } + Double(max(0, vertices.count - 1)) * spacing.nodeGap
            if total > spacing.maxRowWidth && items.count > 1 {
                wrapped[layersOrdered.count] = true
                var rowsOfItems: [[Int]] = [[]]
                var rowWidth = 0.0
                for v in items {
                    let w = vertexWidth[v]
                    if !rowsOfItems[rowsOfItems.count - 1].isEmpty && rowWidth + spacing.nodeGap + w > spacing.maxRowWidth {
                        rowsOfItems.append([])
                        rowWidth = 0
                    }
                    rowWidth += (rowsOfItems[rowsOfItems.count - 1].isEmpty ? 0 : spacing.nodeGap) + w
                    rowsOfItems[rowsOfItems.count - 1].append(v)
                }
                let widthOf = { (r: [Int]) in r.reduce(0) { $0 + vertexWidth[$1] } + Double(r.count - 1) * spacing.nodeGap }
                let block = rowsOfItems.map(widthOf).max()!
                rows[layersOrdered.count] = rowsOfItems.count
                var offset: [Double] = []
                var ordered: [Int] = []
                for (k, r) in rowsOfItems.enumerated() {
                    var left = (block - widthOf(r)) / 2
                    for v in r {
                        row[v] = k
                        offset.append(left + vertexWidth[v] / 2)
                        ordered.append(v)
                        left += vertexWidth[v] + spacing.nodeGap
                    }
                }
                var dummyX = block + spacing.nodeGap
                for v in vertices where v >= n {
                    offset.append(dummyX)
                    ordered.append(v)
                    dummyX += spacing.dummyGap
                }
                offsets.append(offset)
                layersOrdered.append(ordered)
            } else {
                var offset: [Double] = []
                var left = 0.0
                for (i, v) in vertices.enumerated() {
                    if i > 0 { left += gap(vertices[i - 1], v) }
                    offset.append(left + vertexWidth[v] / 2)
                    left += vertexWidth[v]
                }
                offsets.append(offset)
                layersOrdered.append(vertices)
            }
        }
        // Every layer stays within the widest one's width: pulling toward neighbors must not let the
        // layers drift sideways one after the other.
        let widest =
            layersOrdered.indices.map { l in
                layersOrdered[l].indices.map { offsets[l][$0] + vertexWidth[layersOrdered[l][$0]] / 2 }.max() ?? 0
            }.max() ?? 0
        func keepWithin(_ vertices: [Int]) {
            guard let left = vertices.map({ x[$0] - vertexWidth[$0] / 2 }).min(),
                let right = vertices.map({ x[$0] + vertexWidth[$0] / 2 }).max()
            else { return }
            let shift = left < 0 ? -left : right > widest ? max(widest - right, -left) : 0
            for v in vertices { x[v] += shift }
        }
        for (l, vertices) in layersOrdered.enumerated() {
            let packed = vertices.indices.map { offsets[l][$0] + vertexWidth[vertices[$0]] / 2 }.max() ?? 0
            for (i, v) in vertices.enumerated() { x[v] = offsets[l][i] + (widest - packed) / 2 }
        }

        // Pull each layer toward its neighbors, alternately from above and from below.
        if layersOrdered.count > 1 {
            for iteration in 0..<10 {
                let downward = iteration % 2 == 0
                let sequence = downward ? Array(1..<layersOrdered.count) : Array((0..<(layersOrdered.count - 1)).reversed())
                for l in sequence {
                    let vertices = layersOrdered[l]
                    let desired = vertices.map { v -> Double in
                        let neighbors = downward ? up[v] : down[v]
                        return neighbors.isEmpty ? x[v] : neighbors.reduce(0) { $0 + x[$1] } / Double(neighbors.count)
                    }
                    if wrapped[l] {
                        let shift = zip(desired, offsets[l]).reduce(0) { $0 + $1.0 - $1.1 } / Double(vertices.count)
                        for (i, v) in vertices.enumerated() { x[v] = offsets[l][i] + shift }
                    } else {
                        var separation: [Double] = [0]
                        for i in vertices.indices.dropFirst() {
                            separation.append((vertexWidth[vertices[i - 1]] + vertexWidth[vertices[i]]) / 2 + gap(vertices[i - 1], vertices[i]))
                        }
                        let placed = Self.inOrder(desired, separation)
                        for (i, v) in vertices.enumerated() { x[v] = placed[i] }
                    }
                    keepWithin(vertices)
                }
            }
        }
        let left = (0..<count).map { x[$0] - vertexWidth[$0] / 2 }.min() ?? 0
        for v in 0..<count { x[v] -= left }
        width = (0..<count).map { x[$0] + vertexWidth[$0] / 2 }.max() ?? 0

        // Rows and layers top to bottom.
        rowGap = spacing.rowGap
        nodeGap = spacing.nodeGap
        layerGap = spacing.layerGap
        var top = 0.0
        for (l, vertices) in layersOrdered.enumerated() {
            var heightsOfRows = [Double](repeating: 0, count: rows[l])
            for v in vertices where v < n { heightsOfRows[row[v]] = max(heightsOfRows[row[v]], heights[v]) }
            var tops: [Double] = []
            var rowTop = top
            for h in heightsOfRows {
                tops.append(rowTop)
                rowTop += h + spacing.rowGap
            }
            rowTops.append(tops)
            rowHeights.append(heightsOfRows)
            layerTop.append(top)
            let items = vertices.filter { $0 < n }
            blockLeft.append(items.map { x[$0] - widths[$0] / 2 }.min() ?? 0)
            blockRight.append(items.map { x[$0] + widths[$0] / 2 }.max() ?? 0)
            for v in vertices {
                let h = v < n ? heights[v] : 0
                y[v] = tops[row[v]] + (heightsOfRows[row[v]] - h) / 2
            }
            top = rowTop - spacing.rowGap
            layerBottom.append(top)
            top += spacing.layerGap
        }
        height = layerBottom.last ?? 0
    }

    private var layersOrdered: [[Int]] = []

    /// Centers as close as can be to `desired` (least squares) keeping the order and at least
    /// `separation[i]` between center i-1 and i: isotonic regression by pooling adjacent violators.
    static func inOrder(_ desired: [Double], _ separation: [Double]) -> [Double] {
        var offset: [Double] = []
        var sum = 0.0
        for s in separation {
            sum += s
            offset.append(sum)
        }
        var blocks: [(mean: Double, count: Int)] = []
        for (d, o) in zip(desired, offset) {
            blocks.append((d - o, 1))
            while blocks.count > 1, blocks[blocks.count - 2].mean > blocks[blocks.count - 1].mean {
                let b = blocks.removeLast()
                let a = blocks.removeLast()
                blocks.append(((a.mean * Double(a.count) + b.mean * Double(b.count)) / Double(a.count + b.count), a.count + b.count))
            }
        }
        var result: [Double] = []
        var i = 0
        for block in blocks {
            for _ in 0..<block.count {
                result.append(block.mean + offset[i])
                i += 1
            }
        }
        return result
    }

    /// For an item above the last row of a wrapped layer, how an edge leaves it: down into the gap
    /// below its row, right along it past the layer's items, down below the layer. Nil otherwise.
    func exit(_ u: Int, from start: DrawingPoint) -> [DrawingPoint]? {
        let l = layer[u]
        guard row[u] < rows[l] - 1 else { return nil }
        let gapY = rowTops[l][row[u]] + rowHeights[l][row[u]] + rowGap * 0.35
        let busX = blockRight[l] + nodeGap * 0.5
        return [start, DrawingPoint(x: start.x, y: gapY), DrawingPoint(x: busX, y: gapY), DrawingPoint(x: busX, y: layerBottom[l] + layerGap * 0.4)]
    }

    /// For an item below the first row of a wrapped layer, how an edge reaches it: down the left of
    /// the layer's items, right along the gap above its row, down into it. Nil otherwise.
    func entry(_ v: Int, to end: DrawingPoint) -> [DrawingPoint]? {
        let l = layer[v]
        guard row[v] > 0 else { return nil }
        let gapY = rowTops[l][row[v]] - rowGap * 0.35
        let busX = blockLeft[l] - nodeGap * 0.5
        return [DrawingPoint(x: busX, y: layerTop[l] - layerGap * 0.4), DrawingPoint(x: busX, y: gapY), DrawingPoint(x: end.x, y: gapY), end]
    }
}
