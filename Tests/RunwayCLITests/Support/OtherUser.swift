import Foundation

// Another user, played by uid 65534 (`nobody`) through setpriv, which needs root.

let nobody: UInt32 = 65_534
let setpriv = "/usr/bin/setpriv"
/// The launcher that runs a command as `nobody`, with no supplementary groups.
let asNobody = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"]
/// True when this process can run commands as `nobody` (root, and setpriv installed).
let canSwitchUser = getuid() == 0 && FileManager.default.isExecutableFile(atPath: setpriv)
