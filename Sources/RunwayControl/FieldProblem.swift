// Turning a JSONDecoder error into a sentence that names the field and what was expected, for control requests
// and scenario steps.

/// What is wrong with a JSON object that JSONDecoder refused, naming the field: "field 'seconds': expected a
/// number", "field 'id': expected an integer from ... to ..., found 1.5". Any thread.
func fieldProblem(_ error: any Error) -> String {
    func field(_ path: [any CodingKey]) -> String { path.map(\.stringValue).joined(separator: ".") }
    func typeName(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: return "a string"
        case is Int.Type, is Int64.Type, is UInt64.Type: return "an integer"
        case is Double.Type: return "a number"
        case is Bool.Type: return "true or false"
        default: return "a JSON object"
        }
    }
    switch error {
    case DecodingError.keyNotFound(let key, _):
        return "field '\(key.stringValue)' is missing"
    case DecodingError.typeMismatch(let type, let context):
        let name = field(context.codingPath)
        return name.isEmpty ? "expected a JSON object" : "field '\(name)': expected \(typeName(type))"
    case DecodingError.valueNotFound(let type, let context):
        return "field '\(field(context.codingPath))': expected \(typeName(type)), found null"
    case DecodingError.dataCorrupted(let context) where !context.codingPath.isEmpty:
        return "field '\(field(context.codingPath))': \(context.debugDescription)"
    default:
        return "\(error)"
    }
}

extension KeyedDecodingContainer {
    /// Decodes an integer field, or throws `dataCorrupted` at the field's path saying what was expected and what
    /// was found. JSONDecoder itself reports a number that does not fit (`1.5` for an `Int`, `-1` for a `UInt64`)
    /// with an internal error that reaches the caller as corrupted data with an empty coding path ("The given
    /// data was not valid JSON"), which names no field.
    func decodeInteger<T: FixedWidthInteger & Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        do {
            return try self.decodeIfPresent(T.self, forKey: key)
        } catch let error as DecodingError {
            // A string, a null, ...: already names the field; anything else is the number that does not fit.
            guard case .dataCorrupted = error else { throw error }
            throw self.integerProblem(T.self, forKey: key)
        } catch {
            throw self.integerProblem(T.self, forKey: key)
        }
    }

    private func integerProblem<T: FixedWidthInteger>(_ type: T.Type, forKey key: Key) -> DecodingError {
        let number = (try? self.decodeIfPresent(Double.self, forKey: key)) ?? nil
        let found: String
        if let number, number.rounded() == number, abs(number) < 1e18 {
            found = String(Int64(number))
        } else {
            found = number.map { "\($0)" } ?? "another number"
        }
        return DecodingError.dataCorrupted(
            DecodingError.Context(
                codingPath: self.codingPath + [key],
                debugDescription: "expected an integer from \(T.min) to \(T.max), found \(found)"
            )
        )
    }
}
