import Foundation

// Decoding a protocol line so that every problem names its field, integers included (A5): Foundation's JSONDecoder
// reports an integer field holding `-1`, `1.5` or `1e30` as "not valid JSON" for the whole line, which names
// nothing and loses the request id the app waits on.

extension WireLine {
    private enum Field: String, CodingKey {
        case type, version, app, token, message, task, name, payload, request, refusal, seconds, unlimited, code
        case error, reason, wake, state, more, restoration
    }

    /// Decodes every field as the synthesized decoder would, except that an integer field holding a number that is
    /// not an integer of its range is reported at that field. Any thread.
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Field.self)
        self.init(type: try container.decode(String.self, forKey: .type))
        self.version = try container.integer(Int.self, .version)
        self.app = try container.decodeIfPresent(String.self, forKey: .app)
        self.token = try container.integer(UInt64.self, .token)
        self.message = try container.decodeIfPresent(String.self, forKey: .message)
        self.task = try container.integer(UInt64.self, .task)
        self.name = try container.decodeIfPresent(String.self, forKey: .name)
        self.payload = try container.decodeIfPresent(String.self, forKey: .payload)
        self.request = try container.integer(Int64.self, .request)
        self.refusal = try container.decodeIfPresent(String.self, forKey: .refusal)
        self.seconds = try container.decodeIfPresent(Double.self, forKey: .seconds)
        self.unlimited = try container.decodeIfPresent(Bool.self, forKey: .unlimited)
        self.code = try container.decodeIfPresent(String.self, forKey: .code)
        self.error = try container.decodeIfPresent(String.self, forKey: .error)
        self.reason = try container.decodeIfPresent(String.self, forKey: .reason)
        self.wake = try container.integer(UInt64.self, .wake)
        self.state = try container.decodeIfPresent(String.self, forKey: .state)
        self.more = try container.decodeIfPresent(Bool.self, forKey: .more)
        self.restoration = try container.decodeIfPresent(String.self, forKey: .restoration)
    }
}

/// The `request` field of a line that did not decode as a whole; nil when absent or not an integer. Any thread.
struct RequestIDOnly: Decodable {
    var request: Int64?

    private enum Field: String, CodingKey {
        case request
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Field.self)
        self.request = try? container.decodeIfPresent(Int64.self, forKey: .request)
    }
}

extension KeyedDecodingContainer {
    /// `decodeIfPresent` for an integer field; a number that is not an integer from `T.min` to `T.max` throws
    /// `dataCorrupted` at this field, saying so.
    fileprivate func integer<T: FixedWidthInteger & Decodable>(_ type: T.Type, _ key: Key) throws -> T? {
        do {
            return try self.decodeIfPresent(T.self, forKey: key)
        } catch DecodingError.typeMismatch(let type, let context) {
            throw DecodingError.typeMismatch(type, context)
        } catch DecodingError.valueNotFound(let type, let context) {
            throw DecodingError.valueNotFound(type, context)
        } catch {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: self.codingPath + [key],
                    debugDescription: "an integer from \(T.min) to \(T.max)"
                )
            )
        }
    }
}
