import Foundation
import PackagePlugin

/// Names the commit a build is made from: before each build, `Scripts/build-commit.sh` writes
/// `BuildCommit.swift` (`runwayBuildCommit`) into the plugin's work directory from `git rev-parse HEAD` of the
/// package, and the target compiles it (`RunwayBuildInfo`). A prebuild command, because the commit is not an input
/// file SwiftPM could watch; the script rewrites the file only when the commit changes, so an unchanged tree
/// compiles nothing again.
@main
struct RunwayBuildCommit: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let output = context.pluginWorkDirectoryURL.appending(path: "Generated")
        let script = context.package.directoryURL.appending(path: "Scripts/build-commit.sh")
        return [
            .prebuildCommand(
                displayName: "Naming the commit of this build",
                executable: URL(filePath: "/bin/sh"),
                arguments: [
                    script.path(percentEncoded: false),
                    context.package.directoryURL.path(percentEncoded: false),
                    output.appending(path: "BuildCommit.swift").path(percentEncoded: false),
                ],
                outputFilesDirectory: output
            )
        ]
    }
}
