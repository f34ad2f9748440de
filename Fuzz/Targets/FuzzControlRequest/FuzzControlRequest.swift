// libFuzzer target: the control protocol (K1) as the daemon reads a local client's connection. One input is a chunk
// of connection bytes: framed by `LineFramer` at the daemon's line limit, then every line decoded by
// `ControlService.decode`, the daemon's own entry point, and its `command` looked up.
//
// Beyond "no crash": a request that decodes re-encodes (as `ControlClient` sends it) to one that decodes to the same
// request, and a refused line gets a code of the protocol and a message that says something.

import Foundation
import RunwayCore

@testable import RunwayControl

private let refusalCodes: Set<String> = ["invalidJSON", "invalidRequest"]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzControlRequest(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    var framer = LineFramer(maximumLineBytes: ControlProtocol.maxLineBytes)
    for frame in framer.append(bytes) + framer.finish() {
        guard case .line(let line) = frame else { continue }
        switch ControlService.decode(line) {
        case .success(let request):
            _ = ControlCommand(request.command)?.needsApp
            let encoded = Array(ControlProtocol.encodedLine(request).dropLast())
            guard case .success(let again) = ControlService.decode(encoded) else {
                preconditionFailure("request \(request) re-encoded does not decode")
            }
            precondition(again == request, "request \(request) re-encoded decodes as \(again)")
        case .failure(let error):
            precondition(refusalCodes.contains(error.code), "refusal code \(error.code) is not a protocol one")
            precondition(!error.message.isEmpty, "refusal \(error.code) without a message")
        }
    }
    return 0
}
