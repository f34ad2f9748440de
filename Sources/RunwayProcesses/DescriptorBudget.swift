/// This process's file descriptors under `RLIMIT_NOFILE`, and the reserve a launch may not take.
///
/// At the limit every `accept` fails with EMFILE: the control socket and the metrics endpoint would stop answering
/// while the apps' pipes, pidfds and channels hold every descriptor. So a launch (and a KeepAlive restart, which is
/// one) is refused when it would leave fewer than `reserve` descriptors free, before it opens anything.
///
/// Counted, not looked up: what an app's run and its output files hold is known from its spec (`runCharge`,
/// `fileCharge`), charged when the run starts and released when its exit is handled, so a launch costs one
/// comparison instead of a walk of `/proc/self/fd` (which holds tens of thousands of entries near the limit). What
/// the process held before its first app (`baseline`) is counted once, when the budget is made; the reserve covers
/// what it opens later on its own: control and metrics clients, the files it writes. Pure; the supervisor reads the
/// limit and the baseline and keeps the value (loop thread only).
struct DescriptorBudget: Hashable, Sendable {
    /// `RLIMIT_NOFILE`'s soft limit: no descriptor numbered this or above can be opened. Read again in each loop
    /// turn with a launch (an operator may change it with `prlimit`).
    var limit: Int
    /// The descriptors a launch must leave free.
    let reserve: Int
    /// Descriptors open before any app's, including the four spawn slots that the first spawn opens.
    let baseline: Int
    /// Descriptors charged to the apps' runs and output files.
    private(set) var held = 0

    /// The most descriptors one run of an app holds in this process: its pidfd and the read ends of its stdout
    /// and stderr pipes; its end of the protocol socket (a protocol app); its `oom_score_adj` (when the supervisor
    /// adjusts it, opened at the first value written); with the freezer, its cgroup's `cgroup.freeze` and
    /// `cgroup.events` (opened at the first suspension).
    static func runCharge(speaksProtocol: Bool, freezer: Bool, adjustsOOMScore: Bool) -> Int {
        3 + (speaksProtocol ? 1 : 0) + (adjustsOOMScore ? 1 : 0) + (freezer ? 2 : 0)
    }

    /// What a spawn opens only until it returns: the child's ends of the stdout and stderr pipes and of the
    /// protocol socket, the cgroup directory it is cloned into, and the cgroup v1 leaves' `cgroup.procs` it joins.
    static func spawnCharge(speaksProtocol: Bool, freezer: Bool, cgroupV1Leaves: Int) -> Int {
        2 + (speaksProtocol ? 1 : 0) + (freezer ? 1 : 0) + cgroupV1Leaves
    }

    /// An app's output files (`StandardOutPath`, `StandardErrorPath`; one when both name the same file): each is
    /// held open with its directory from the app's first run on.
    static func fileCharge(files: Int) -> Int { 2 * files }

    /// Descriptors free once `charge` more are held.
    func free(after charge: Int) -> Int { self.limit - self.baseline - self.held - charge }

    /// True when holding `charge` more, with `transient` more open during the spawn, leaves at least `reserve` free.
    func admits(_ charge: Int, transient: Int) -> Bool {
        self.free(after: charge + transient) >= self.reserve
    }

    mutating func charge(_ count: Int) {
        precondition(count >= 0, "charge=\(count)")
        self.held += count
    }

    mutating func release(_ count: Int) {
        precondition(count >= 0 && count <= self.held, "release=\(count); held=\(self.held)")
        self.held -= count
    }
}
