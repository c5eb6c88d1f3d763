@_exported import BackbeatEffects
@_exported import BackbeatEngine
@_exported import BackbeatMedia
@_exported import BackbeatMusic
@_exported import BackbeatSession
// The engine a game links: `import Backbeat` brings the whole core API.
//
// The layers are separate modules, so the compiler keeps each to the layers
// below it; this module only gathers the ones a game uses. The media library
// (`BackbeatLibrary`), the desktop bus (`BackbeatDesktop`) and the test
// helpers (`BackbeatTesting`) are products of their own, so a game that does
// not ask for them links no SQLite and no D-Bus.
@_exported import BackbeatSupport
