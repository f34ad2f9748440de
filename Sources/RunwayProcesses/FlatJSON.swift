import RunwayLoop

/// One-line JSON objects whose values are strings or unsigned integers: all the state file needs, without
/// Foundation (the `Runway` module does not import it).
enum FlatJSON {
    enum Value: Hashable, Sendable {
        case string(String)
        case number(UInt64)
    }

    /// `{"key":value,...}` in the given order; strings escaped as JSON requires.
    static func encode(_ fields: [(String, Value)]) -> String {
        let members = fields.map { key, value -> String in
            switch value {
            case .string(let text): return "\(Self.quoted(key)):\(Self.quoted(text))"
            case .number(let number): return "\(Self.quoted(key)):\(number)"
            }
        }
        return "{" + members.joined(separator: ",") + "}"
    }

    /// The members of one flat object, or nil when the line is not one (nested values, floats, negative
    /// numbers, `true`/`false`/`null` are not accepted).
    static func decode(_ line: Substring) -> [String: Value]? {
        var parser = Parser(bytes: Array(line.utf8))
        return parser.object()
    }

    private static func quoted(_ text: String) -> String { JSONText.quoted(text) }

    private struct Parser {
        let bytes: [UInt8]
        var index = 0

        mutating func object() -> [String: Value]? {
            guard self.take(UInt8(ascii: "{")) else { return nil }
            var fields: [String: Value] = [:]
            if self.take(UInt8(ascii: "}")) { return self.atEnd ? fields : nil }
            repeat {
                guard let key = self.string(), self.take(UInt8(ascii: ":")), let value = self.value() else {
                    return nil
                }
                fields[key] = value
            } while self.take(UInt8(ascii: ","))
            return self.take(UInt8(ascii: "}")) && self.atEnd ? fields : nil
        }

        private var atEnd: Bool {
            mutating get {
                self.skipSpaces()
                return self.index == self.bytes.count
            }
        }

        private mutating func value() -> Value? {
            self.skipSpaces()
            guard self.index < self.bytes.count else { return nil }
            if self.bytes[self.index] == UInt8(ascii: "\"") { return self.string().map(Value.string) }
            var number: UInt64 = 0
            let start = self.index
            while self.index < self.bytes.count,
                (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self.bytes[self.index])
            {
                let (times, overflow1) = number.multipliedReportingOverflow(by: 10)
                let (sum, overflow2) = times.addingReportingOverflow(UInt64(self.bytes[self.index] - UInt8(ascii: "0")))
                guard !overflow1, !overflow2 else { return nil }
                number = sum
                self.index += 1
            }
            return self.index > start ? .number(number) : nil
        }

        private mutating func string() -> String? {
            guard self.take(UInt8(ascii: "\"")) else { return nil }
            var scalars = String.UnicodeScalarView()
            var raw: [UInt8] = []
            func flush() {
                scalars.append(contentsOf: String(decoding: raw, as: UTF8.self).unicodeScalars)
                raw = []
            }
            while self.index < self.bytes.count {
                let byte = self.bytes[self.index]
                self.index += 1
                switch byte {
                case UInt8(ascii: "\""):
                    flush()
                    return String(scalars)
                case UInt8(ascii: "\\"):
                    flush()
                    guard self.index < self.bytes.count else { return nil }
                    let escape = self.bytes[self.index]
                    self.index += 1
                    switch escape {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): raw.append(escape)
                    case UInt8(ascii: "n"): raw.append(0x0A)
                    case UInt8(ascii: "t"): raw.append(0x09)
                    case UInt8(ascii: "r"): raw.append(0x0D)
                    case UInt8(ascii: "u"):
                        guard self.index + 4 <= self.bytes.count,
                            let code = UInt32(
                                String(decoding: self.bytes[self.index..<self.index + 4], as: UTF8.self),
                                radix: 16
                            ),
                            let scalar = Unicode.Scalar(code)
                        else { return nil }
                        self.index += 4
                        scalars.append(scalar)
                    default: return nil
                    }
                default:
                    raw.append(byte)
                }
            }
            return nil
        }

        private mutating func take(_ byte: UInt8) -> Bool {
            self.skipSpaces()
            guard self.index < self.bytes.count, self.bytes[self.index] == byte else { return false }
            self.index += 1
            return true
        }

        private mutating func skipSpaces() {
            while self.index < self.bytes.count, self.bytes[self.index] == UInt8(ascii: " ") { self.index += 1 }
        }
    }
}
