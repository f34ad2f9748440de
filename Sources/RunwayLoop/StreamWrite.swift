import CLibUV

/// Queues a copy of `bytes`, then `terminator` if given, on a libuv stream; the copy and the request are freed
/// when the write completes (or at once if it cannot be queued). Loop thread only.
///
/// - Parameters:
///   - completion: Runs when the write completes; it must call `releaseWriteCopy` on the request. The default
///     only does that.
/// - Returns: 0, or the `uv_write` status when nothing was queued (the stream is closing or broken).
package func writeCopy(
    of bytes: [UInt8],
    terminator: UInt8? = nil,
    to stream: UnsafeMutablePointer<uv_stream_t>,
    completion: uv_write_cb = { request, _ in if let request { releaseWriteCopy(request) } }
) -> Int32 {
    let length = bytes.count + (terminator == nil ? 0 : 1)
    let request = UnsafeMutablePointer<uv_write_t>.allocate(capacity: 1)
    let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: length, alignment: 1)
    storage.copyBytes(from: bytes)
    if let terminator { storage[bytes.count] = terminator }
    request.pointee.data = storage.baseAddress
    var buffer = uv_buf_init(storage.baseAddress?.assumingMemoryBound(to: CChar.self), UInt32(length))
    let status = uv_write(request, stream, &buffer, 1, completion)
    if status != 0 {
        storage.deallocate()
        request.deallocate()
    }
    return status
}

/// Frees a request made by `writeCopy` and its copy of the bytes.
package func releaseWriteCopy(_ request: UnsafeMutablePointer<uv_write_t>) {
    request.pointee.data?.deallocate()
    request.deallocate()
}
