/// What a `ProbeDecoder` learned about one value while a type decoded itself from it.
final class ProbeSlot {
    private enum State {
        case unset
        case fixed(TypeSchema)
        case object(order: [String], members: [String: (slot: ProbeSlot, required: Bool)])
        case array(ProbeSlot)
    }

    private var state = State.unset
    /// The type asked whether the value is `null` (an `Optional`, or `decodeNil`).
    var nullable = false
    /// Keys the type asked about with `contains`: reading them is conditional, so they are optional.
    private var conditional: Set<String> = []

    /// The value has this shape (a scalar, or a shape known without probing).
    func set(_ schema: TypeSchema) { state = .fixed(schema) }

    /// The value is an object; members are added with `member`.
    func becomeObject() {
        if case .object = state { return }
        state = .object(order: [], members: [:])
    }

    /// The slot of the member `key`, read with `decode` (required) or `decodeIfPresent` (not).
    func member(_ key: String, required: Bool) -> ProbeSlot {
        becomeObject()
        guard case .object(var order, var members) = state else { preconditionFailure("becomeObject makes an object") }
        let slot = ProbeSlot()
        if members[key] == nil { order.append(key) }
        members[key] = (slot, required && !conditional.contains(key))
        state = .object(order: order, members: members)
        return slot
    }

    /// The type asked whether `key` is present.
    func markConditional(_ key: String) { conditional.insert(key) }

    /// The value is an array; the returned slot describes its elements.
    func elements() -> ProbeSlot {
        if case let .array(items) = state { return items }
        let items = ProbeSlot()
        state = .array(items)
        return items
    }

    /// The schema recorded: a slot nothing was asked of is `any`.
    var schema: TypeSchema {
        let base: TypeSchema
        switch state {
        case .unset: base = .any
        case let .fixed(schema): base = schema
        case let .object(order, members):
            base = .object(order.map { SchemaProperty($0, members[$0]!.slot.schema, required: members[$0]!.required) })
        case let .array(items): base = .array(items: items.schema)
        }
        guard nullable else { return base }
        switch base {
        case .any, .null, .nullable: return base
        default: return .nullable(base)
        }
    }
}
