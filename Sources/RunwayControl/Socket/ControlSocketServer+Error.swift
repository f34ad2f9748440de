import CLibUV

/// The control socket could not be set up: which path, which step, and why. A value; any thread.
package struct ControlSocketError: Error, CustomStringConvertible {
    package var path: String
    package var step: String
    package var reason: String

    package init(path: String, step: String, reason: String) {
        self.path = path
        self.step = step
        self.reason = reason
    }

    /// The step failed with libuv status `status` (a negative errno); the reason is its `uv_strerror` text.
    init(path: String, step: String, status: Int32) {
        self.init(path: path, step: step, reason: String(cString: uv_strerror(status)))
    }

    /// `control socket PATH: STEP failed: REASON`, or `control socket PATH: REASON` when the step is empty (the
    /// reason then says what is wrong with the path itself).
    package var description: String {
        self.step.isEmpty
            ? "control socket \(self.path): \(self.reason)"
            : "control socket \(self.path): \(self.step) failed: \(self.reason)"
    }
}
