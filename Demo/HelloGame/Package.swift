// swift-tools-version: 6.0
import PackageDescription

// A game that links only the `Backbeat` product: no media library, no
// desktop bus, so no SQLite and no D-Bus in its executable.
let package = Package(
    name: "HelloGame",
    dependencies: [
        .package(name: "Backbeat", path: "../..")
    ],
    targets: [
        .executableTarget(
            name: "HelloGame",
            dependencies: [.product(name: "Backbeat", package: "Backbeat")])
    ],
    swiftLanguageModes: [.v6]
)
