import Foundation

/// The few protobuf wire-format operations ONNX export needs: write fields, split a message into fields.
struct ProtobufWriter {
    private(set) var data = Data()

    mutating func varint(_ value: UInt64) {
        var v = value
        while v >= 0x80 { data.append(UInt8(v & 0x7F) | 0x80); v >>= 7 }
        data.append(UInt8(v))
    }
    mutating func key(_ field: Int, _ wireType: Int) { varint(UInt64(field << 3 | wireType)) }
    mutating func int(_ field: Int, _ value: Int) { key(field, 0); varint(UInt64(bitPattern: Int64(value))) }
    mutating func bytes(_ field: Int, _ value: Data) { key(field, 2); varint(UInt64(value.count)); data.append(value) }
    mutating func string(_ field: Int, _ value: String) { bytes(field, Data(value.utf8)) }
    mutating func message(_ field: Int, _ build: (inout ProtobufWriter) -> Void) {
        var inner = ProtobufWriter()
        build(&inner)
        bytes(field, inner.data)
    }
    mutating func raw(_ bytes: Data) { data.append(bytes) }
}

/// One top-level field of a serialized message, with its exact bytes (key included).
struct ProtobufField {
    let number: Int
    let bytes: Data
    /// Payload of a length-delimited field.
    let payload: Data?

    /// Splits a message into its fields, or nil if the bytes are not a valid message.
    static func fields(of message: Data) -> [ProtobufField]? {
        let b = [UInt8](message)
        var i = 0, fields: [ProtobufField] = []
        func varint() -> UInt64? {
            var result: UInt64 = 0, shift: UInt64 = 0
            while i < b.count {
                let byte = b[i]; i += 1
                result |= UInt64(byte & 0x7F) << shift
                if byte < 0x80 { return result }
                shift += 7
                if shift > 63 { return nil }
            }
            return nil
        }
        while i < b.count {
            let start = i
            guard let key = varint() else { return nil }
            var payload: Data?
            switch key & 7 {
            case 0: guard varint() != nil else { return nil }
            case 1: i += 8
            case 5: i += 4
            case 2:
                guard let n = varint(), i + Int(n) <= b.count else { return nil }
                payload = Data(b[i..<(i + Int(n))])
                i += Int(n)
            default: return nil
            }
            guard i <= b.count else { return nil }
            fields.append(ProtobufField(number: Int(key >> 3), bytes: Data(b[start..<i]), payload: payload))
        }
        return fields
    }
}
