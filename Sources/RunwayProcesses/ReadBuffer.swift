/// The bytes every output and channel read of one loop thread's children lands in. libuv asks for a
/// buffer, reads into it and calls back, one stream at a time on the loop thread, and the callback copies what it
/// keeps (`OutputThrottle`, `LineFramer`) before it returns; so one buffer serves all of a supervisor's children.
/// It had been 64 KiB per child, allocated at each launch: 12.8 MB at 200 apps, and an arena growth and page
/// faults per spawn. Each `ChildProcess` holds a reference, so the buffer lives as long as the last of them.
///
/// Loop thread only: the supervisor and its children share it on their loop thread, never across threads.
final class ReadBuffer {
    let bytes: UnsafeMutableRawBufferPointer

    /// - Parameter byteCount: The most one read takes (64 KiB by default).
    init(byteCount: Int = 65_536) {
        self.bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: byteCount, alignment: 8)
    }

    deinit { self.bytes.deallocate() }
}
