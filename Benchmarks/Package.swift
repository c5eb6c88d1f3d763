// swift-tools-version: 6.1
// Backbeat's micro-benchmarks, in a package of their own (as swift-nio keeps
// its), so neither `make test` nor a game ever builds the harness. Run them
// with `make bench-micro`, or here with `swift package benchmark`.
import PackageDescription

let package = Package(
    name: "BackbeatBenchmarks",
    dependencies: [
        .package(name: "Backbeat", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", exact: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .systemLibrary(name: "COpenALRaw", path: "COpenALRaw"),
        .executableTarget(
            name: "OpenALReference",
            dependencies: ["COpenALRaw", .product(name: "Benchmark", package: "benchmark")],
            path: "Benchmarks/OpenALReference",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "BackbeatMicro",
            dependencies: [
                .product(name: "Backbeat", package: "Backbeat"),
                .product(name: "BackbeatLibrary", package: "Backbeat"),
                .product(name: "BackbeatTesting", package: "Backbeat"),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/BackbeatMicro",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ]
)
