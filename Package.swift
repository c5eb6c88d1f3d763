// swift-tools-version: 6.1
import PackageDescription

// Built and tested on Linux only (OpenAL Soft, PulseAudio, D-Bus), so no
// Apple platform is listed: `platforms` names Apple platforms alone.
let package = Package(
    name: "Backbeat",
    products: [
        // What a game links: the engine, effects, music, session and media.
        .library(name: "Backbeat", targets: ["Backbeat"]),
        // The media library (SQLite, artwork, loudness) and the music player's library queues.
        .library(name: "BackbeatLibrary", targets: ["BackbeatLibrary"]),
        // D-Bus and MPRIS: other audio on the desktop, the system player, publishing a player.
        .library(name: "BackbeatDesktop", targets: ["BackbeatDesktop"]),
        // For a game's own tests: offline engine helpers, scripted environments, sample analysis.
        .library(name: "BackbeatTesting", targets: ["BackbeatTesting"]),
        // Acoustics from a level's geometry (Embree ray casts): a product of its own, so that a
        // game without geometry links no ray tracer.
        .library(name: "BackbeatAcoustics", targets: ["BackbeatAcoustics"]),
        .executable(name: "backbeat", targets: ["backbeat"]),
        .executable(name: "drumpad", targets: ["drumpad"]),
    ],
    // A game that links only `Backbeat` can turn the default traits off (`traits: []` on its
    // dependency on Backbeat): SwiftPM then resolves none of the packages below, which only
    // BackbeatLibrary, the command-line tool (argument parser, swift-nio) and `make docs` use.
    traits: [
        .trait(name: "MediaLibrary", description: "BackbeatLibrary's SQLite index, through GRDB.swift."),
        .trait(name: "CommandLineTool", description: "The backbeat tool, through swift-argument-parser."),
        .default(enabledTraits: ["MediaLibrary", "CommandLineTool"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.0.0"),
        // The `backbeat` logger: what a developer needs to hear (a sound that
        // failed to load, a voice refused, a song skipped, a device lost).
        .package(url: "https://github.com/apple/swift-log", from: "1.16.0"),
        // `make docs`: builds the DocC catalog and fails on a broken link.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        // `backbeat monitor PID --web`: the page's HTTP and WebSocket server, in
        // the command-line tool only (a game never serves a web page).
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.0"),
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
            name: "CZip", pkgConfig: "libzip",
            providers: [.apt(["libzip-dev"])]),
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
        // Debian's libembree-dev ships no embree3.pc (only CMake files), so no pkgConfig: the
        // header and the library are on the default paths.
        .systemLibrary(name: "CEmbree", providers: [.apt(["libembree-dev"])]),
        // Layers, bottom up: each target uses only those above it in this list.
        .target(name: "BackbeatSupport"),
        // The monitor protocol (snapshots, events, commands as JSON lines), the
        // game's Unix-socket server and the client the tool uses. Below the
        // engine so `BACKBEAT_MONITOR=1` needs no code in the game.
        .target(name: "BackbeatTelemetry", dependencies: ["BackbeatSupport"]),
        // Routes the ALSA library's (variadic) error handler to Swift; the one door is ALLog.
        .target(name: "CAlsaLog", linkerSettings: [.linkedLibrary("dl")]),
        // Server change events from PulseAudio, through the libpulse OpenAL Soft loads (dlopen, no headers).
        .target(name: "CPulseEvents", linkerSettings: [.linkedLibrary("dl")]),
        .target(name: "BackbeatOpenAL", dependencies: ["COpenAL", "CAlsaLog", "CPulseEvents", "BackbeatSupport"]),
        .target(
            name: "BackbeatMedia", dependencies: ["BackbeatSupport", "CVorbis", "CSndfile", "CSamplerate", "CZip"]),
        .target(name: "BackbeatSession", dependencies: ["BackbeatSupport", "BackbeatMedia"]),
        // The capture file (format, writer, reader): below the engine, which
        // records into it, so `BACKBEAT_CAPTURE=FILE` needs no code in the game.
        .target(name: "BackbeatCapture", dependencies: ["BackbeatSupport", "BackbeatMedia"]),
        .target(
            name: "BackbeatEngine",
            dependencies: [
                "BackbeatSupport", "BackbeatOpenAL", "BackbeatMedia", "BackbeatSession", "BackbeatTelemetry",
                "BackbeatCapture", .product(name: "Logging", package: "swift-log"),
            ]),
        .target(
            name: "BackbeatEffects",
            dependencies: [
                "BackbeatSupport", "BackbeatOpenAL", "BackbeatMedia", "BackbeatEngine", "BackbeatTelemetry",
                "BackbeatCapture",
            ]),
        .target(
            name: "BackbeatMusic",
            dependencies: [
                "BackbeatSupport", "BackbeatOpenAL", "BackbeatMedia", "BackbeatSession", "BackbeatEngine",
                "BackbeatTelemetry", "BackbeatCapture",
                .product(name: "Logging", package: "swift-log"),
            ]),
        .target(
            name: "Backbeat",
            dependencies: [
                "BackbeatSupport", "BackbeatMedia", "BackbeatSession", "BackbeatEngine", "BackbeatEffects",
                "BackbeatMusic",
            ]),
        // Replays a capture offline (`backbeat replay`): above every module a
        // capture records, since it calls them again as the game did.
        .target(
            name: "BackbeatReplay",
            dependencies: [
                "Backbeat", "BackbeatSupport", "BackbeatMedia", "BackbeatSession", "BackbeatEngine", "BackbeatEffects",
                "BackbeatMusic", "BackbeatCapture",
            ]),
        .target(
            name: "BackbeatLibrary",
            dependencies: [
                "Backbeat", "BackbeatSupport", "BackbeatMedia", "BackbeatMusic", "CStb", "CEbur128",
                .product(name: "GRDB", package: "GRDB.swift", condition: .when(traits: ["MediaLibrary"])),
            ]),
        .target(
            name: "BackbeatDesktop",
            dependencies: ["Backbeat", "BackbeatSupport", "BackbeatMedia", "BackbeatSession", "BackbeatMusic", "CDBus"]),
        // Above Backbeat, beside BackbeatLibrary: the one door to Embree is its RayScene.
        .target(
            name: "BackbeatAcoustics",
            dependencies: [
                "Backbeat", "BackbeatSupport", "BackbeatMedia", "BackbeatEngine", "BackbeatEffects", "BackbeatOpenAL",
                "CEmbree",
            ]),
        .target(
            name: "BackbeatTesting",
            dependencies: ["Backbeat", "BackbeatSupport", "BackbeatMedia", "BackbeatSession", "BackbeatEngine"]),
        // Benchmark suites, and the raw-OpenAL reference they measure against.
        .target(
            name: "BackbeatBench",
            dependencies: [
                "Backbeat", "BackbeatSupport", "BackbeatOpenAL", "BackbeatEngine", "BackbeatEffects", "BackbeatLibrary",
                "BackbeatTesting", "BackbeatTelemetry", "BackbeatCapture", "BackbeatReplay", "BackbeatAcoustics",
                "COpenAL", "CEmbree",
            ]),
        .executableTarget(
            name: "backbeat",
            dependencies: [
                "Backbeat", "BackbeatLibrary", "BackbeatDesktop", "BackbeatBench", "BackbeatTelemetry",
                "BackbeatReplay", "BackbeatCapture",
                .product(
                    name: "ArgumentParser", package: "swift-argument-parser",
                    condition: .when(traits: ["CommandLineTool"])),
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["CommandLineTool"])),
                .product(name: "NIOPosix", package: "swift-nio", condition: .when(traits: ["CommandLineTool"])),
                .product(name: "NIOHTTP1", package: "swift-nio", condition: .when(traits: ["CommandLineTool"])),
                .product(name: "NIOWebSocket", package: "swift-nio", condition: .when(traits: ["CommandLineTool"])),
            ],
            // `monitor --web`'s page, compiled into the tool: nothing to find on disk at run time.
            resources: [
                .embedInCode("Web/Assets/index.html"), .embedInCode("Web/Assets/monitor.css"),
                .embedInCode("Web/Assets/monitor.js"),
            ]),
        .target(
            name: "DrumpadCore",
            dependencies: ["Backbeat", "BackbeatLibrary", "BackbeatDesktop", "BackbeatAcoustics"],
            path: "Demo/DrumpadCore"),
        .executableTarget(
            name: "drumpad",
            dependencies: ["Backbeat", "BackbeatLibrary", "BackbeatDesktop", "DrumpadCore"],
            path: "Demo/drumpad"),
        // Test-only fixtures the test targets share: generated media and
        // libraries, a private D-Bus daemon, mpv. What a game could use for
        // its own tests is in BackbeatTesting instead.
        .target(
            name: "BackbeatTestFixtures",
            dependencies: ["Backbeat", "BackbeatLibrary", "BackbeatDesktop", "BackbeatTesting", "FuzzSupport"],
            path: "Tests/BackbeatTestFixtures"),
        // What the fuzzers share (Ogg page CRC repair, asset exercise); built
        // always, since the tests patch hostile Ogg files with it too.
        .target(name: "FuzzSupport", dependencies: ["BackbeatMedia"], path: "Fuzz/FuzzSupport"),
        // Device scenes the tests run as child processes on a private sound
        // server (OpenAL picks its backends once per process).
        .executableTarget(
            name: "DeviceScenes",
            dependencies: ["Backbeat", "BackbeatTesting"],
            path: "Tests/DeviceScenes"),
        // The README's and the articles' code, type-checked: Scripts/snippets.py
        // writes its sources from the markdown (`make snippets`). Snippets
        // leave values unused, as examples do; their warnings say nothing. In
        // no product, so the unsafe flag costs a package that depends on
        // Backbeat nothing.
        .target(
            name: "DocSnippets",
            dependencies: [
                "Backbeat", "BackbeatLibrary", "BackbeatDesktop", "BackbeatTesting", "DrumpadCore",
                "BackbeatAcoustics", .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/Snippets",
            swiftSettings: [.unsafeFlags(["-suppress-warnings"])]),
        // One test target per module, named after it, each depending on what
        // its files import; the integration target drives the command-line
        // tool and the device scenes as child processes.
        .testTarget(name: "BackbeatOpenALTests", dependencies: ["BackbeatOpenAL", "COpenAL"]),
        .testTarget(name: "BackbeatTelemetryTests", dependencies: ["BackbeatTelemetry", "BackbeatSupport"]),
        .testTarget(
            name: "BackbeatCaptureTests",
            dependencies: [
                "Backbeat", "BackbeatSupport", "BackbeatMedia", "BackbeatEngine", "BackbeatEffects", "BackbeatMusic",
                "BackbeatSession", "BackbeatCapture", "BackbeatReplay", "BackbeatTesting", "BackbeatTestFixtures",
            ]),
        .testTarget(
            name: "BackbeatMediaTests",
            dependencies: [
                "Backbeat", "BackbeatSupport", "BackbeatMedia", "BackbeatMusic", "BackbeatTesting",
                "BackbeatTestFixtures", "FuzzSupport",
            ]),
        .testTarget(
            name: "BackbeatSessionTests",
            dependencies: ["Backbeat", "BackbeatSupport", "BackbeatSession", "BackbeatTesting"]),
        .testTarget(
            name: "BackbeatEngineTests",
            dependencies: [
                "Backbeat", "BackbeatSupport", "BackbeatOpenAL", "BackbeatMedia", "BackbeatEngine", "BackbeatEffects",
                "BackbeatMusic", "BackbeatLibrary", "BackbeatTesting", "BackbeatTestFixtures", "BackbeatTelemetry",
                .product(name: "Logging", package: "swift-log"),
            ]),
        .testTarget(
            name: "BackbeatEffectsTests",
            dependencies: [
                "Backbeat", "BackbeatSupport", "BackbeatMedia", "BackbeatEngine", "BackbeatEffects", "BackbeatTesting",
                "BackbeatTestFixtures", "BackbeatTelemetry",
            ]),
        .testTarget(
            name: "BackbeatMusicTests",
            dependencies: [
                "Backbeat", "BackbeatSupport", "BackbeatMedia", "BackbeatMusic", "BackbeatLibrary", "BackbeatTesting",
                "BackbeatTestFixtures", "BackbeatEngine", "BackbeatTelemetry",
            ]),
        .testTarget(
            name: "BackbeatLibraryTests",
            dependencies: ["Backbeat", "BackbeatLibrary", "BackbeatTesting", "BackbeatTestFixtures"]),
        .testTarget(
            name: "BackbeatDesktopTests",
            dependencies: ["Backbeat", "BackbeatLibrary", "BackbeatDesktop", "BackbeatTesting", "BackbeatTestFixtures"]),
        .testTarget(
            name: "BackbeatAcousticsTests",
            dependencies: [
                "Backbeat", "BackbeatSupport", "BackbeatMedia", "BackbeatEngine", "BackbeatEffects",
                "BackbeatAcoustics",
                "BackbeatTesting", "CEmbree", "BackbeatCapture", "BackbeatReplay",
            ]),
        .testTarget(name: "BackbeatTestingTests", dependencies: ["Backbeat", "BackbeatTesting"]),
        .testTarget(
            name: "BackbeatIntegrationTests",
            dependencies: [
                "Backbeat", "BackbeatSupport", "BackbeatMedia", "BackbeatTesting", "BackbeatTestFixtures",
                "BackbeatCapture",
            ]),
        .testTarget(
            name: "DrumpadTests",
            dependencies: [
                "DrumpadCore", "Backbeat", "BackbeatLibrary", "BackbeatDesktop", "BackbeatTesting",
                "BackbeatTestFixtures", "BackbeatTelemetry", "BackbeatReplay",
            ]),
        .testTarget(
            name: "BackbeatBenchTests",
            dependencies: ["Backbeat", "BackbeatBench", "BackbeatTesting", "BackbeatAcoustics"]),
    ],
    swiftLanguageModes: [.v6]
)

// Fuzz targets (each runs libFuzzer's driver): only when asked for, so a
// normal build never needs libFuzzer. `make fuzz` sets BACKBEAT_FUZZ=1 and
// builds them with -sanitize=fuzzer,address in their own scratch path.
if Context.environment["BACKBEAT_FUZZ"] == "1" {
    package.targets.append(.systemLibrary(name: "CLibFuzzer", path: "Fuzz/CLibFuzzer"))
    package.targets.append(.target(name: "FuzzDriver", dependencies: ["CLibFuzzer"], path: "Fuzz/FuzzDriver"))
    // libFuzzer's custom mutator that repairs Ogg page CRCs after each mutation.
    package.targets.append(
        .target(name: "FuzzOggMutator", dependencies: ["FuzzSupport", "CLibFuzzer"], path: "Fuzz/FuzzOggMutator"))
    let fuzzers: [(String, [Target.Dependency])] = [
        ("FuzzVorbisComments", ["BackbeatMedia"]), ("FuzzPictureBlock", ["BackbeatMedia"]),
        ("FuzzOggAsset", ["FuzzSupport", "FuzzOggMutator"]), ("FuzzWAVAsset", ["FuzzSupport"]),
        ("FuzzArchive", ["FuzzSupport"]), ("FuzzCapture", ["BackbeatCapture", "BackbeatReplay"]),
        ("FuzzPlaylist", ["BackbeatLibrary"]), ("FuzzDrumpadCommand", ["DrumpadCore"]),
        ("FuzzAudioAsset", ["Backbeat", "FuzzDriver", "FuzzOggMutator"]),
        ("FuzzSoundEffect", ["Backbeat", "FuzzDriver", "FuzzOggMutator"]),
        ("FuzzLibraryScan", ["Backbeat", "BackbeatLibrary", "FuzzDriver", "FuzzOggMutator"]),
        ("FuzzMPRISDispatch", ["Backbeat", "BackbeatDesktop", "FuzzDriver", "FuzzSupport"]),
        ("FuzzAcousticsOBJ", ["BackbeatAcoustics"]),
    ]
    for (name, dependencies) in fuzzers {
        package.targets.append(
            .executableTarget(name: name, dependencies: dependencies + ["CLibFuzzer"], path: "Fuzz/\(name)"))
        package.products.append(.executable(name: name, targets: [name]))
    }
}
