import CRabbitMQ

/// Converts between Swift field tables and librabbitmq's `amqp_table_t`.
enum FieldTable {
    /// Encodes `table` into memory owned by `pool` (valid until the pool is recycled).
    static func encode(_ table: [String: AMQPFieldValue], in pool: UnsafeMutablePointer<amqp_pool_t>) -> amqp_table_t {
        guard !table.isEmpty else { return amqp_table_t(num_entries: 0, entries: nil) }
        let entries = allocate(amqp_table_entry_t.self, count: table.count, in: pool)
        for (index, (key, value)) in table.sorted(by: { $0.key < $1.key }).enumerated() {
            entries[index] = amqp_table_entry_t(key: bytes(key, in: pool), value: encode(value, in: pool))
        }
        return amqp_table_t(num_entries: Int32(table.count), entries: entries)
    }

    /// Copies a decoded table into Swift values.
    static func decode(_ table: amqp_table_t) -> [String: AMQPFieldValue] {
        var result: [String: AMQPFieldValue] = [:]
        guard let entries = table.entries else { return result }
        for index in 0..<Int(table.num_entries) {
            let entry = entries[index]
            result[string(entry.key)] = decode(entry.value)
        }
        return result
    }

    /// Copies `text` into `pool` as AMQP bytes (empty text needs no memory).
    static func bytes(_ text: String, in pool: UnsafeMutablePointer<amqp_pool_t>) -> amqp_bytes_t {
        bytes(Array(text.utf8), in: pool)
    }

    /// Copies `data` into `pool` as AMQP bytes.
    static func bytes(_ data: [UInt8], in pool: UnsafeMutablePointer<amqp_pool_t>) -> amqp_bytes_t {
        guard !data.isEmpty else { return amqp_bytes_t(len: 0, bytes: nil) }
        let memory = amqp_pool_alloc(pool, data.count)!
        data.withUnsafeBytes { memory.copyMemory(from: $0.baseAddress!, byteCount: data.count) }
        return amqp_bytes_t(len: data.count, bytes: memory)
    }

    /// Copies AMQP bytes into a String (invalid UTF-8 is repaired).
    static func string(_ bytes: amqp_bytes_t) -> String {
        String(decoding: array(bytes), as: UTF8.self)
    }

    /// Copies AMQP bytes into an array.
    static func array(_ bytes: amqp_bytes_t) -> [UInt8] {
        guard let start = bytes.bytes, bytes.len > 0 else { return [] }
        return Array(UnsafeRawBufferPointer(start: start, count: bytes.len))
    }

    private static func allocate<T>(_ type: T.Type, count: Int, in pool: UnsafeMutablePointer<amqp_pool_t>) -> UnsafeMutablePointer<T> {
        let raw = amqp_pool_alloc(pool, MemoryLayout<T>.stride * count)!
        return raw.bindMemory(to: T.self, capacity: count)
    }

    private static func encode(_ value: AMQPFieldValue, in pool: UnsafeMutablePointer<amqp_pool_t>) -> amqp_field_value_t {
        var field = amqp_field_value_t()
        switch value {
        case .string(let text):
            field.kind = UInt8(ascii: "S")
            field.value.bytes = bytes(text, in: pool)
        case .bytes(let data):
            field.kind = UInt8(ascii: "x")
            field.value.bytes = bytes(data, in: pool)
        case .int(let number):
            field.kind = UInt8(ascii: "l")
            field.value.i64 = number
        case .bool(let flag):
            field.kind = UInt8(ascii: "t")
            field.value.boolean = flag ? 1 : 0
        case .double(let number):
            field.kind = UInt8(ascii: "d")
            field.value.f64 = number
        case .timestamp(let seconds):
            field.kind = UInt8(ascii: "T")
            field.value.u64 = seconds
        case .array(let elements):
            field.kind = UInt8(ascii: "A")
            if elements.isEmpty {
                field.value.array = amqp_array_t(num_entries: 0, entries: nil)
            } else {
                let encoded = allocate(amqp_field_value_t.self, count: elements.count, in: pool)
                for (index, element) in elements.enumerated() {
                    encoded[index] = encode(element, in: pool)
                }
                field.value.array = amqp_array_t(num_entries: Int32(elements.count), entries: encoded)
            }
        case .table(let table):
            field.kind = UInt8(ascii: "F")
            field.value.table = encode(table, in: pool)
        case .void:
            field.kind = UInt8(ascii: "V")
        }
        return field
    }

    private static func decode(_ field: amqp_field_value_t) -> AMQPFieldValue {
        let value = field.value
        switch UnicodeScalar(field.kind) {
        case "S": return .string(string(value.bytes))
        case "x": return .bytes(array(value.bytes))
        case "t": return .bool(value.boolean != 0)
        case "b": return .int(Int64(value.i8))
        case "B": return .int(Int64(value.u8))
        case "s": return .int(Int64(value.i16))
        case "u": return .int(Int64(value.u16))
        case "I": return .int(Int64(value.i32))
        case "i": return .int(Int64(value.u32))
        case "l": return .int(value.i64)
        case "L": return .int(Int64(clamping: value.u64))
        case "f": return .double(Double(value.f32))
        case "d": return .double(value.f64)
        case "D":
            var scaled = Double(value.decimal.value)
            for _ in 0..<value.decimal.decimals { scaled /= 10 }
            return .double(scaled)
        case "T": return .timestamp(value.u64)
        case "F": return .table(decode(value.table))
        case "A":
            guard let entries = value.array.entries else { return .array([]) }
            return .array((0..<Int(value.array.num_entries)).map { decode(entries[$0]) })
        default: return .void
        }
    }
}
