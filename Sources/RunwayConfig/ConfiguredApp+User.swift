@_spi(Processes) import RunwayCore
@_spi(Processes) import RunwayProcesses

extension ConfiguredApp {
    /// The app with `user` (the daemon-wide `AppUserName`) when it is a process app without a `UserName` of its
    /// own; unchanged otherwise.
    func runningAs(_ user: AppUser?) -> ConfiguredApp {
        guard let user, case .process(var spec) = self.descriptor.kind, spec.user == nil else { return self }
        spec.user = user
        var app = self
        app.descriptor.kind = .process(spec)
        return app
    }
}

extension RunwayConfiguration {
    /// One warning per process app that a daemon running as `daemonUID` and `daemonGID` with the configured
    /// suspension mechanism cannot contain (`AppContainment`): `runway validate` prints them. They are not
    /// configuration errors (the same files are fine for a daemon of another user), so they are not in `warnings`.
    package func containmentWarnings(daemonUID: UInt32, daemonGID: UInt32) -> [ConfigWarning] {
        let inCgroup = self.daemon.suspensionMechanism != .signal
        return self.apps.compactMap { app in
            guard case .process(let spec) = app.descriptor.kind,
                let reason = AppContainment.of(
                    user: spec.user,
                    daemonUID: daemonUID,
                    daemonGID: daemonGID,
                    inCgroup: inCgroup
                ).reason
            else { return nil }
            let key = spec.user == nil ? "" : "UserName"
            return ConfigWarning(
                file: app.file,
                keyPath: key,
                message: "\(app.descriptor.id) is not contained: it \(reason) (Docs/Security.md, containment)"
            )
        }
    }

    /// One warning per uid other than root and `daemonUID` that two or more process apps run as, naming the apps
    /// and the uid: apps of one user may signal, ptrace and read each other (their /proc, their files), so each
    /// is contained from the daemon but not from the others. `runway validate` prints them, and the daemon at its
    /// start; like the containment notes they depend on the daemon's user, so they are not in `warnings`.
    package func sharedUserWarnings(daemonUID: UInt32) -> [ConfigWarning] {
        var appsByUID: [UInt32: [ConfiguredApp]] = [:]
        for app in self.apps {
            guard case .process(let spec) = app.descriptor.kind, let user = spec.user, user.uid != 0,
                user.uid != daemonUID
            else { continue }
            appsByUID[user.uid, default: []].append(app)
        }
        return appsByUID.keys.sorted().compactMap { uid in
            guard let apps = appsByUID[uid], apps.count > 1 else { return nil }
            let names = apps.map(\.descriptor.id.bundleIdentifier).joined(separator: ", ")
            return ConfigWarning(
                file: apps[0].file,
                keyPath: "UserName",
                message: "\(names) run as the same user (uid \(uid)): each may signal and read the others; give "
                    + "each a UserName of its own (Docs/Security.md, containment)"
            )
        }
    }
}
