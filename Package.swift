// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "Backbeat",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Backbeat", targets: ["Backbeat"]),
        .executable(name: "backbeat", targets: ["backbeat"]),
        .executable(name: "drumpad", targets: ["drumpad"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.0.0"),
    ],
    targets: [
        .systemLibrary(
            name: "COpenAL", pkgConfig: "openal",
            providers: [.apt(["libopenal-dev"])]),
        .systemLibrary(
            name: "CVorbis", pkgConfig: "vorbisfile",
            providers: [.apt(["libvorbis-dev"])]),
        .systemLibrary(
            name: "CSndfile", pkgConfig: "sndfile",
            providers: [.apt(["libsndfile1-dev"])]),
        .systemLibrary(
            name: "CSamplerate", pkgConfig: "samplerate",
            providers: [.apt(["libsamplerate0-dev"])]),
        .systemLibrary(
            name: "CStb", pkgConfig: "stb",
            providers: [.apt(["libstb-dev"])]),
        .systemLibrary(
            name: "CEbur128", pkgConfig: "libebur128",
            providers: [.apt(["libebur128-dev"])]),
        .systemLibrary(
            name: "CDBus", pkgConfig: "dbus-1",
            providers: [.apt(["libdbus-1-dev"])]),
        .target(
            name: "Backbeat",
            dependencies: [
                "COpenAL", "CVorbis", "CSndfile", "CSamplerate", "CStb", "CEbur128", "CDBus",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]),
        .target(
            name: "BackbeatBench",
            dependencies: ["Backbeat"]),
        .executableTarget(
            name: "backbeat",
            dependencies: [
                "Backbeat", "BackbeatBench",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        .target(
            name: "DrumpadCore",
            dependencies: ["Backbeat"],
            path: "Demo/DrumpadCore"),
        .executableTarget(
            name: "drumpad",
            dependencies: ["Backbeat", "DrumpadCore"],
            path: "Demo/drumpad"),
        .testTarget(
            name: "BackbeatTests",
            dependencies: ["Backbeat", "DrumpadCore"]),
        .testTarget(
            name: "BackbeatBenchTests",
            dependencies: ["Backbeat", "BackbeatBench"]),
    ],
    swiftLanguageModes: [.v6]
)

// Fuzz targets (each runs libFuzzer's driver): only when asked for, so a
// normal build never needs libFuzzer. `make fuzz` sets BACKBEAT_FUZZ=1 and
// builds them with -sanitize=fuzzer,address in their own scratch path.
if Context.environment["BACKBEAT_FUZZ"] == "1" {
    package.targets.append(.systemLibrary(name: "CLibFuzzer", path: "Fuzz/CLibFuzzer"))
    package.targets.append(.target(name: "FuzzSupport", dependencies: ["Backbeat"], path: "Fuzz/FuzzSupport"))
    let fuzzers: [(String, Target.Dependency)] = [
        ("FuzzVorbisComments", "Backbeat"), ("FuzzPictureBlock", "Backbeat"),
        ("FuzzOggAsset", "FuzzSupport"), ("FuzzWAVAsset", "FuzzSupport"),
        ("FuzzPlaylist", "Backbeat"), ("FuzzDrumpadCommand", "DrumpadCore"),
    ]
    for (name, dependency) in fuzzers {
        package.targets.append(.executableTarget(name: name, dependencies: [dependency, "CLibFuzzer"], path: "Fuzz/\(name)"))
        package.products.append(.executable(name: name, targets: [name]))
    }
}
