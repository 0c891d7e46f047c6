// swift-tools-version: 6.2
import PackageDescription

/// Our code's `async` functions run on their caller's executor unless marked `@concurrent`
/// (SE-0461): a request's task stays on its event loop through our calls instead of being queued
/// again at each one. Measured in BENCHMARKS.md, "Issue 41, seventeenth session". Where a
/// library compiled without it asks for a `@concurrent` function (Hummingbird's middleware
/// `handle` and its `next`, the closure that calls its body writer), ours says `@concurrent`.
let ours: [SwiftSetting] = [.enableUpcomingFeature("NonisolatedNonsendingByDefault")]

let package = Package(
  name: "PointApp",
  platforms: [.macOS(.v15)],
  products: [
    .executable(name: "pointapp", targets: ["pointapp"]),
    .executable(name: "pointapp-bench", targets: ["pointapp-bench"]),
  ],
  dependencies: [
    .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
    .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.1"),
    .package(url: "https://github.com/pointfreeco/swift-dependencies", from: "1.17.1", traits: ["Foundation", "Clocks"]),
    .package(url: "https://github.com/pointfreeco/swift-clocks", from: "1.1.1"),
    .package(url: "https://github.com/pointfreeco/swift-case-paths", from: "1.10.0"),
    .package(url: "https://github.com/pointfreeco/swift-identified-collections", from: "1.1.1"),
    .package(url: "https://github.com/pointfreeco/swift-custom-dump", from: "1.7.3", traits: []),
    .package(url: "https://github.com/pointfreeco/xctest-dynamic-overlay", from: "1.13.1"),
    .package(url: "https://github.com/pointfreeco/swift-snapshot-testing", from: "1.19.7"),
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
    .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
    .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
    .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
    .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    .package(url: "https://github.com/hummingbird-project/hummingbird-auth", from: "2.5.0"),
    .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
  ],
  targets: [
    .target(
      name: "Composable",
      dependencies: [
        .product(name: "CasePaths", package: "swift-case-paths"),
        .product(name: "Dependencies", package: "swift-dependencies"),
        .product(name: "IdentifiedCollections", package: "swift-identified-collections"),
        .product(name: "IssueReporting", package: "xctest-dynamic-overlay"),
      ],
      swiftSettings: ours
    ),
    .target(
      name: "ComposableTesting",
      dependencies: [
        "Composable",
        .product(name: "Clocks", package: "swift-clocks"),
        .product(name: "CustomDump", package: "swift-custom-dump"),
        .product(name: "IssueReporting", package: "xctest-dynamic-overlay"),
      ],
      swiftSettings: ours
    ),
    .target(
      name: "PointApp",
      dependencies: [
        "Composable",
        .product(name: "DependenciesMacros", package: "swift-dependencies"),
      ],
      resources: [.copy("Resources/catalog.json"), .copy("Resources/common-passwords.txt")],
      swiftSettings: ours
    ),
    .target(
      name: "PointAppWeb",
      dependencies: [
        "PointApp",
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "Mustache", package: "swift-mustache"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOSSL", package: "swift-nio-ssl"),
        .product(name: "Crypto", package: "swift-crypto"),
        .product(name: "Metrics", package: "swift-metrics"),
        .product(name: "Prometheus", package: "swift-prometheus"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
        .product(name: "PostgresNIO", package: "postgres-nio"),
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
        .product(name: "NIOHTTP1", package: "swift-nio"),
      ],
      swiftSettings: ours
    ),
    .executableTarget(
      name: "pointapp",
      dependencies: [
        "PointAppWeb",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
      ],
      swiftSettings: ours
    ),
    .executableTarget(
      name: "pointapp-bench",
      dependencies: [
        "Composable", "PointApp", "PointAppWeb",
        .product(name: "Dependencies", package: "swift-dependencies"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
      ],
      swiftSettings: ours
    ),
    .testTarget(
      name: "ComposableTests",
      dependencies: [
        "Composable", "ComposableTesting",
        .product(name: "Clocks", package: "swift-clocks"),
        .product(name: "DependenciesTestSupport", package: "swift-dependencies"),
      ],
      swiftSettings: ours
    ),
    .testTarget(
      name: "PointAppTests",
      dependencies: [
        "PointApp", "ComposableTesting",
        .product(name: "Clocks", package: "swift-clocks"),
        .product(name: "CustomDump", package: "swift-custom-dump"),
        .product(name: "DependenciesTestSupport", package: "swift-dependencies"),
      ],
      swiftSettings: ours
    ),
    .testTarget(
      name: "PointAppWebTests",
      dependencies: [
        "PointAppWeb",
        .product(name: "HummingbirdTesting", package: "hummingbird"),
        .product(name: "PostgresNIO", package: "postgres-nio"),
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
        .product(name: "Prometheus", package: "swift-prometheus"),
        .product(name: "SnapshotTesting", package: "swift-snapshot-testing"),
        .product(name: "DependenciesTestSupport", package: "swift-dependencies"),
        .product(name: "ServiceLifecycleTestKit", package: "swift-service-lifecycle"),
      ],
      exclude: ["__Snapshots__"],
      resources: [.copy("Fixtures")],
      swiftSettings: ours
    ),
  ],
  swiftLanguageModes: [.v6]
)
