// The error of a control reply and the envelope of an event line (Docs/ControlProtocol.md), beside the requests and
// replies of ControlProtocol.swift.

package struct ControlErrorPayload: Error, Codable, Hashable, Sendable {
    /// Machine-readable: `invalidJSON`, `invalidRequest`, `unsupportedVersion`, `unknownCommand`, `lineTooLong`,
    /// `peerNotAllowed`, `tooManyClients`, `reloadFailed`, or a scheduler code (`unknownApp`, `illegalCommand`,
    /// `noBudget`, `stopping`, ...).
    package var code: String
    /// For people: names the field, app, state or limit involved.
    package var message: String

    package init(code: String, message: String) {
        self.code = code
        self.message = message
    }
}

/// An event line: `{"v":1,"event":{...}}`.
package struct ControlEventLine: Codable, Hashable, Sendable {
    package var v = ControlProtocol.version
    package var event: TransitionPayload
}
