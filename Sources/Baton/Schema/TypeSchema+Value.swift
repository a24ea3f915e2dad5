extension TypeSchema {
    /// The exact shape of a literal value: every member of an object required, an array's
    /// elements their common shape.
    public init(shapeOf value: JSON) {
        switch value {
        case .null: self = .null
        case .bool: self = .boolean
        case .int: self = .integer
        case .double: self = .number
        case .string: self = .string
        case let .array(items): self = .array(items: TypeSchema.common(items.map(TypeSchema.init(shapeOf:))))
        case let .object(members): self = .object(members.map { SchemaProperty($0.key, TypeSchema(shapeOf: $0.value)) })
        }
    }

    /// One shape for values of all these shapes: `any` unless they agree (integers and numbers
    /// agree on `number`; `null` makes the shape nullable); `any` for no values.
    public static func common(_ shapes: [TypeSchema]) -> TypeSchema {
        guard var result = shapes.first else { return .any }
        var nullable = false
        for shape in shapes {
            if shape == .null {
                nullable = true
                continue
            }
            if result == .null {
                result = shape
                continue
            }
            if shape == result { continue }
            if [shape, result].allSatisfy({ $0 == .integer || $0 == .number }) {
                result = .number
                continue
            }
            return .any
        }
        return nullable && result != .null ? .nullable(result) : result
    }
}
