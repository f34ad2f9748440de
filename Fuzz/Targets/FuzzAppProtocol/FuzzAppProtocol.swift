// libFuzzer target: the app protocol (A4) as the daemon reads it from an app's channel and as RunwayClient reads the
// daemon's lines. One input is a chunk of channel bytes: framed by `LineFramer`, then every line decoded both ways.
//
// Beyond "no crash", two properties trap when broken: the framer gives the same frames however the bytes are split
// into reads, and never a line over its limit; a line that decodes re-encodes to one that decodes to the same value.

import RunwayCore
import RunwayProtocol

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAppProtocol(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    checkFramerSplits(bytes)
    var framer = LineFramer(maximumLineBytes: AppProtocol.maximumLineBytes)
    for frame in framer.append(bytes) + framer.finish() {
        guard case .line(let line) = frame else { continue }
        decodeAppLine(line)
        decodeRunwayLine(line)
    }
    return 0
}

/// The frames of `bytes` fed whole against fed in reads of 1 to 16 bytes (sizes taken from the input, so that the
/// fuzzer explores where the reads cut), with a small limit so that cut lines are common.
private func checkFramerSplits(_ bytes: [UInt8]) {
    let limit = 24
    for keepsCutPrefix in [false, true] {
        var whole = LineFramer(maximumLineBytes: limit, keepsCutPrefix: keepsCutPrefix)
        let expected = whole.append(bytes) + whole.finish()
        var split = LineFramer(maximumLineBytes: limit, keepsCutPrefix: keepsCutPrefix)
        var frames: [LineFramer.Frame] = []
        var start = 0
        while start < bytes.count {
            let end = min(bytes.count, start + 1 + Int(bytes[start] % 16))
            frames += split.append(bytes[start..<end])
            precondition(split.pendingBytes <= limit, "framer holds \(split.pendingBytes) bytes, limit \(limit)")
            start = end
        }
        frames += split.finish()
        precondition(frames == expected, "frames differ by read size: \(frames) against \(expected)")
        for case .line(let line) in frames {
            precondition(line.count <= limit, "a line of \(line.count) bytes passed the limit \(limit)")
        }
    }
}

/// What the daemon does with an app's line: a request, or an error naming what was wrong with it.
private func decodeAppLine(_ line: [UInt8]) {
    let decoded: AppToRunway
    do {
        decoded = try AppProtocolCodec.decodeAppLine(line)
    } catch {
        _ = error.description
        return
    }
    let again = try? AppProtocolCodec.decodeAppLine(AppProtocolCodec.encode(decoded))
    precondition(again == decoded, "app line \(decoded) re-encoded decodes as \(String(describing: again))")
}

/// What RunwayClient does with a line of the daemon.
private func decodeRunwayLine(_ line: [UInt8]) {
    let decoded: RunwayToApp
    do {
        decoded = try AppProtocolCodec.decodeRunwayLine(line)
    } catch {
        _ = error.description
        return
    }
    _ = decoded.hashValue
}
