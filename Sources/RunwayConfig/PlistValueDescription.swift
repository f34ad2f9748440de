import Foundation

/// Describes a raw property-list value for the "found" part of a ``ConfigError``: its plist type and a short
/// value, e.g. `string "thirty"`, `integer 3`, `real -3.0`, `real nan`, `boolean true`, `array of 2 elements`.
/// A missing value is `nothing`.
///
/// - Parameters:
///   - value: A value as returned by `PropertyListSerialization`, or nil when the key is absent.
/// - Returns: A phrase that reads after "found".
func describePlistValue(_ value: Any?) -> String {
    guard let value else { return "nothing" }
    // Booleans first: Foundation bridges Bool to NSNumber, and an NSNumber made from 1 also casts to Bool.
    if type(of: value) == Bool.self, let boolean = value as? Bool {
        return "boolean \(boolean)"
    }
    if let number = value as? NSNumber {
        switch String(cString: number.objCType) {
        case "c", "B":
            return "boolean \(number.boolValue)"
        case "f", "d":
            return "real \(number.doubleValue)"
        case "Q":
            return "integer \(number.uint64Value)"
        default:
            return "integer \(number.int64Value)"
        }
    }
    if let string = value as? String {
        return "string " + quotedPlistString(string)
    }
    if let date = value as? Date {
        return "date \(ISO8601DateFormatter().string(from: date))"
    }
    if let data = value as? Data {
        return "data of \(plural(data.count, "byte"))"
    }
    if let array = value as? [Any] {
        return "array of \(plural(array.count, "element"))"
    }
    if let dictionary = value as? [String: Any] {
        return "dictionary of \(plural(dictionary.count, "key"))"
    }
    return "a value of type \(type(of: value))"
}

/// `"text"` with Swift escapes; texts over 60 characters are cut and followed by `… (N characters)`.
func quotedPlistString(_ string: String) -> String {
    let limit = 60
    guard string.count > limit else { return string.debugDescription }
    return String(string.prefix(limit)).debugDescription + "… (\(string.count) characters)"
}

private func plural(_ count: Int, _ noun: String) -> String {
    count == 1 ? "1 \(noun)" : "\(count) \(noun)s"
}
