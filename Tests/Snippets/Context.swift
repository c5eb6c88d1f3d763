// The names the README's and the articles' snippets use without defining
// them. Scripts/snippets.py wraps each markdown file's blocks as methods of
// a struct that conforms to SnippetContext (README.md's is READMESnippets),
// so a block sees these as it sees its own names. Nothing here runs: the
// target exists to type-check the snippets.
import Backbeat
import BackbeatDesktop
import BackbeatLibrary
import Foundation

protocol SnippetContext {}

extension SnippetContext {
    var engine: AudioEngine { fatalError() }
}

/// Stands for the game's own objects (the hero, a camera, an emitter) and
/// its asset store.
struct GameObject {
    var position: Audio3DPoint { fatalError() }
    var feet: Audio3DPoint { fatalError() }
    var orientation: Audio3DVectorOrientation { fatalError() }
    var forward: Audio3DPoint { fatalError() }
    var up: Audio3DPoint { fatalError() }
    func show(_ text: String) {}
    func flash() {}
}

struct GameAssets {
    func data(named path: String) -> Data? { fatalError() }
    func bytes(of path: String) throws -> Data { fatalError() }
}

extension SnippetContext {
    // Files and folders.
    var url: URL { fatalError() }
    var urls: [URL] { fatalError() }
    var motorURL: URL { fatalError() }
    var hitURL: URL { fatalError() }
    var hit: URL { fatalError() }
    var exploreURL: URL { fatalError() }
    var exploreDrumsURL: URL { fatalError() }
    var combatURL: URL { fatalError() }
    var bridgeURL: URL { fatalError() }
    var bossURL: URL { fatalError() }
    var jingleURL: URL { fatalError() }
    var bossTheme: URL { fatalError() }
    var levelTheme: URL { fatalError() }
    var levelTracks: [URL] { fatalError() }
    var song: URL { fatalError() }
    var level: URL { fatalError() }
    var musicFolder: URL { fatalError() }
    var drumsFolder: URL { fatalError() }
    var bytes: Data { fatalError() }
    var hitBytes: Data { fatalError() }
    var bankBytes: Data { fatalError() }
    var menuBankData: Data { fatalError() }
    var assets: GameAssets { fatalError() }
    var gameAssets: GameAssets { fatalError() }

    // Sounds, voices and buses.
    var nextBeat: MediaTime { fatalError() }
    var step1: SoundEffect { fatalError() }
    var step2: SoundEffect { fatalError() }
    var step3: SoundEffect { fatalError() }
    var fire: SoundEffect { fatalError() }
    var roar: SoundEffect { fatalError() }
    var generator: SoundEffect { fatalError() }
    var footstep: SoundEffect { fatalError() }
    var footsteps: SoundEffect { fatalError() }
    var kick: SoundEffect { fatalError() }
    var motor: SoundEffect { fatalError() }
    var effect: SoundEffect { fatalError() }
    var line: SoundEffect { fatalError() }
    var humPCM: PCMBuffer { fatalError() }
    var someBuffer: PCMBuffer { fatalError() }
    var voice: Voice { fatalError() }
    var voices: [Voice] { fatalError() }
    var torch: Voice { fatalError() }
    var car: Voice { fatalError() }
    var bird: Voice { fatalError() }
    var menuMusic: Voice { fatalError() }
    var foleyBus: Bus { fatalError() }
    var worldBus: Bus { fatalError() }
    var depth: GameParameter { fatalError() }

    // Places.
    var start: Audio3DPoint { fatalError() }
    var corner: Audio3DPoint { fatalError() }
    var end: Audio3DPoint { fatalError() }
    var positions: [Audio3DPoint] { fatalError() }
    var hero: GameObject { fatalError() }
    var camera: GameObject { fatalError() }
    var hud: GameObject { fatalError() }
    var emitters: [GameObject] { fatalError() }

    // Music, the session, capture and the library.
    var explore: MusicSection { fatalError() }
    var combat: MusicSection { fatalError() }
    var music: AdaptiveMusicPlayer { fatalError() }
    var session: AudioSession { fatalError() }
    var desktop: DesktopEnvironment { fatalError() }
    var mic: AudioCaptureDevice? { fatalError() }
    var capture: AudioCapture { fatalError() }
    var library: MediaLibrary { fatalError() }
    var item: MediaItem { fatalError() }
    var album: MediaItemCollection { fatalError() }
    func showTitle(_ title: String?) {}
}

// Where two files use one name for two things: Scripts/snippets.py makes a
// file's struct conform to `<File>Context` (README.md's READMEContext) when
// there is one.
protocol READMEContext: SnippetContext {}
extension READMEContext {
    var player: GameObject { fatalError() }
}

protocol EventsContext: SnippetContext {}
extension EventsContext {
    var player: GameObject { fatalError() }
}

protocol MusicContext: SnippetContext {}
extension MusicContext {
    var player: QueuePlayer { fatalError() }
}
