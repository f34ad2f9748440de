import Foundation

/// What is wrong with a JSON object that JSONDecoder refused, naming the field: "field 'seconds': expected a
/// number". Shared by control requests and scenario steps.
func fieldProblem(_ error: any Error) -> String {
    func field(_ path: [any CodingKey]) -> String { path.map(\.stringValue).joined(separator: ".") }
    func typeName(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: return "a string"
        case is Int.Type: return "an integer"
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
    default:
        return "\(error)"
    }
}
