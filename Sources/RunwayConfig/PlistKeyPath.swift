/// A path to a value inside a property list: a top-level key, then keys and array indices.
///
/// Printed the way errors and warnings show it: `UIBackgroundModes[1]`, `EnvironmentVariables.PATH`.
struct PlistKeyPath: Hashable, Sendable, CustomStringConvertible {
    enum Component: Hashable, Sendable {
        case key(String)
        case index(Int)
    }

    var components: [Component]

    init(_ components: [Component]) {
        self.components = components
    }

    /// The path of a top-level key.
    static func key(_ name: String) -> PlistKeyPath {
        PlistKeyPath([.key(name)])
    }

    func appending(_ component: Component) -> PlistKeyPath {
        PlistKeyPath(self.components + [component])
    }

    /// The top-level key the path starts with, if it starts with a key.
    var topLevelKey: String? {
        guard case .key(let name)? = self.components.first else { return nil }
        return name
    }

    var description: String {
        var text = ""
        for component in self.components {
            switch component {
            case .key(let name):
                text += text.isEmpty ? name : "." + name
            case .index(let index):
                text += "[\(index)]"
            }
        }
        return text
    }
}
