// swift-tools-version: 6.1
import PackageDescription

// A game that links only the `Backbeat` product: no media library, no
// desktop bus, so no SQLite and no D-Bus in its executable. With Backbeat's
// traits off it does not even fetch GRDB.swift, swift-argument-parser or
// swift-docc-plugin.
let package = Package(
    name: "HelloGame",
    dependencies: [
        .package(name: "Backbeat", path: "../..", traits: [])
    ],
    targets: [
        .executableTarget(
            name: "HelloGame",
            dependencies: [.product(name: "Backbeat", package: "Backbeat")])
    ],
    swiftLanguageModes: [.v6]
)
