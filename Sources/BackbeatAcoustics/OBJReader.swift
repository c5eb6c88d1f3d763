import BackbeatSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A small, strict Wavefront OBJ reader for acoustic levels.
///
/// Why not Debian's `libtinyobjloader-dev`: it is C++, so every module that
/// imports it, and every module above, would need Swift's C++ interoperability
/// mode; it skips what it cannot parse without saying where, and its
/// materials are `.mtl` colours where a level names acoustic presets. A level
/// needs six statements (`v`, `f`, `o`, `g`, `usemtl`, and comments); this
/// reader takes them, ignores the ones that only matter to drawing (`vt`,
/// `vn`, `vp`, `s`, `mtllib`, `l`, `p`), and answers anything else, and every
/// bad number or index, with a ``BackbeatError`` naming the line.
/// (`libassimp-dev` reads glTF too, but is a large dependency with the same
/// silence about bad input; glTF levels are left for later.)
///
/// Polygons are split into fans from their first corner, which is right for
/// the convex faces modelling tools write.
struct OBJReader {
    /// The largest file read, in bytes: far above a 1,000,000-triangle level
    /// (about 60 MiB), far below what would strain memory.
    static let maximumFileSize = 512 * 1024 * 1024

    private struct Object {
        var name: String
        /// Triangles as indices into the file's vertices, and each one's material.
        var triangles: [SIMD3<UInt32>] = []
        var materials: [Int] = []
        var firstLine: Int
    }

    private let url: URL?
    private var vertices: [SIMD3<Float>] = []
    private var objects: [Object] = []
    private var objectIndex: [String: Int] = [:]
    private var current: Int?
    /// The file's materials, in order of first use after slot 0, the one
    /// faces before any `usemtl` have; each triangle's index points here.
    private var palette: [AcousticMaterial] = []
    private var material = 0
    private var warnings: [AcousticWarning] = []
    private var triangleCount = 0
    private var line = 0

    private init(url: URL?) {
        self.url = url
        palette = [.generic]
    }

    /// Reads a level from the bytes of an OBJ file.
    ///
    /// - Parameters:
    ///   - bytes: The file's contents.
    ///   - url: The file, for messages.
    /// - Throws: ``BackbeatError/Code/malformedLevel`` with the line for anything it cannot read;
    ///   ``BackbeatError/Code/levelTooLarge`` beyond ``AcousticLevel/maximumTriangleCount``.
    static func read(_ bytes: [UInt8], url: URL?) throws(BackbeatError) -> AcousticLevel {
        var reader = OBJReader(url: url)
        var start = 0
        while start < bytes.count {
            let end = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
            reader.line += 1
            try reader.statement(bytes[start..<end])
            start = end + 1
        }
        return try reader.level()
    }

    private func fail(_ message: String, code: BackbeatError.Code = .malformedLevel) -> BackbeatError {
        BackbeatError(code, operation: "readOBJ", url: url, reason: "line \(line): \(message)")
    }

    private mutating func statement(_ text: ArraySlice<UInt8>) throws(BackbeatError) {
        var content = text
        if let hash = content.firstIndex(of: UInt8(ascii: "#")) { content = content[..<hash] }
        let tokens = content.split { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") || $0 == 13 }
        guard let keyword = tokens.first else { return }
        let arguments = tokens.dropFirst()
        switch String(decoding: keyword, as: UTF8.self) {
        case "v": try vertex(arguments)
        case "f": try face(arguments)
        case "o", "g": try object(arguments)
        case "usemtl": try useMaterial(arguments)
        case "vt", "vn", "vp", "s", "mtllib", "l", "p": return
        case let other:
            throw fail("unknown statement \"\(other.prefix(32))\"")
        }
    }

    private mutating func vertex(_ arguments: ArraySlice<ArraySlice<UInt8>>) throws(BackbeatError) {
        // x y z, then an optional w or an optional colour (r g b), which acoustics ignore.
        guard [3, 4, 6, 7].contains(arguments.count) else {
            throw fail("a vertex is \"v x y z\", got \(arguments.count) numbers")
        }
        var xyz = SIMD3<Float>()
        for (k, token) in arguments.prefix(3).enumerated() {
            guard let value = Float(String(decoding: token, as: UTF8.self)) else {
                throw fail("\"\(String(decoding: token.prefix(32), as: UTF8.self))\" is not a number")
            }
            guard abs(value) <= AcousticLevel.maximumCoordinate else {
                throw fail(
                    "vertex coordinate \(value) is not finite within ±\(Int(AcousticLevel.maximumCoordinate)) m",
                    code: .invalidGeometry)
            }
            xyz[k] = value
        }
        guard vertices.count < 3 * AcousticLevel.maximumTriangleCount else {
            throw fail("more than \(3 * AcousticLevel.maximumTriangleCount) vertices", code: .levelTooLarge)
        }
        vertices.append(xyz)
    }

    private mutating func face(_ arguments: ArraySlice<ArraySlice<UInt8>>) throws(BackbeatError) {
        guard arguments.count >= 3 else { throw fail("a face needs at least 3 corners, got \(arguments.count)") }
        var corners: [UInt32] = []
        corners.reserveCapacity(arguments.count)
        for token in arguments {
            // v, v/vt, v//vn or v/vt/vn: the vertex is what acoustics need; the rest must still be numbers.
            let parts = token.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
            let text = String(decoding: token.prefix(32), as: UTF8.self)
            guard (1...3).contains(parts.count), let first = parts.first, !first.isEmpty,
                parts.dropFirst().allSatisfy({ $0.isEmpty || Int(String(decoding: $0, as: UTF8.self)) != nil }),
                let index = Int(String(decoding: first, as: UTF8.self))
            else { throw fail("\"\(text)\" is not a face corner (v, v/vt, v//vn or v/vt/vn)") }
            // 1-based; negative counts back from the last vertex read.
            let resolved = index > 0 ? index - 1 : vertices.count + index
            guard index != 0, resolved >= 0, resolved < vertices.count else {
                throw fail("vertex index \(index) is out of range (\(vertices.count) vertices so far)")
            }
            corners.append(UInt32(resolved))
        }
        guard triangleCount + corners.count - 2 <= AcousticLevel.maximumTriangleCount else {
            throw fail("more than \(AcousticLevel.maximumTriangleCount) triangles", code: .levelTooLarge)
        }
        let object = currentObject()
        for k in 1..<(corners.count - 1) {
            objects[object].triangles.append(SIMD3(corners[0], corners[k], corners[k + 1]))
            objects[object].materials.append(material)
        }
        triangleCount += corners.count - 2
    }

    private mutating func currentObject() -> Int {
        if let current { return current }
        startObject(named: "default")
        return current!
    }

    private mutating func startObject(named name: String) {
        if let known = objectIndex[name] {
            current = known
            return
        }
        objectIndex[name] = objects.count
        current = objects.count
        objects.append(Object(name: name, firstLine: line))
    }

    private mutating func object(_ arguments: ArraySlice<ArraySlice<UInt8>>) throws(BackbeatError) {
        guard let first = arguments.first else { throw fail("an object needs a name") }
        // `g` may list several groups; the first names the object.
        startObject(named: String(decoding: first.prefix(256), as: UTF8.self))
    }

    private mutating func useMaterial(_ arguments: ArraySlice<ArraySlice<UInt8>>) throws(BackbeatError) {
        guard let first = arguments.first else { throw fail("usemtl needs a material name") }
        let name = String(decoding: first.prefix(256), as: UTF8.self)
        let preset = AcousticMaterial.preset(named: name.lowercased())
        if preset == nil, !warnings.contains(where: { $0.kind == .unknownMaterial && $0.subject == name }) {
            warnings.append(AcousticWarning(kind: .unknownMaterial, subject: name, count: 1))
        }
        let chosen = preset ?? .generic
        // Slot 0 is "no usemtl" (generic for a mesh, wood for a portal); a named material never takes it.
        if let known = palette.dropFirst().firstIndex(of: chosen) {
            material = known
        } else {
            palette.append(chosen)
            material = palette.count - 1
        }
    }

    /// The objects as meshes, rooms and portals, each with its own vertices.
    private mutating func level() throws(BackbeatError) -> AcousticLevel {
        var level = AcousticLevel()
        for object in objects where !object.triangles.isEmpty {
            var local: [UInt32: UInt32] = [:]
            var meshVertices: [SIMD3<Float>] = []
            let triangles = object.triangles.map { t -> SIMD3<UInt32> in
                var mapped = SIMD3<UInt32>()
                for k in 0..<3 {
                    if let known = local[t[k]] {
                        mapped[k] = known
                    } else {
                        let next = UInt32(meshVertices.count)
                        local[t[k]] = next
                        meshVertices.append(vertices[Int(t[k])])
                        mapped[k] = next
                    }
                }
                return mapped
            }
            // Only the materials this object uses, so a mesh's palette stays small.
            let used = Array(Set(object.materials)).sorted()
            let slot = Dictionary(uniqueKeysWithValues: used.enumerated().map { ($1, $0) })
            let mesh = try AcousticMesh(
                name: object.name, vertices: meshVertices, triangles: triangles, materials: used.map { palette[$0] },
                triangleMaterials: object.materials.map { slot[$0]! })
            if object.name.hasPrefix("room:") {
                level.rooms.append(AcousticRoom(name: String(object.name.dropFirst(5)), mesh: mesh))
            } else if object.name.hasPrefix("portal:") {
                line = object.firstLine
                level.portals.append(try portal(named: String(object.name.dropFirst(7)), mesh: mesh, uses: used))
            } else {
                level.staticMeshes.append(mesh)
            }
        }
        level.warnings = warnings
        return level
    }

    /// A `portal:NAME` object: one quad (four distinct corners), in order around it.
    private func portal(named name: String, mesh: AcousticMesh, uses used: [Int]) throws(BackbeatError)
        -> AcousticPortal
    {
        var corners: [SIMD3<Float>] = []
        for v in mesh.vertices where !corners.contains(v) { corners.append(v) }
        guard corners.count == 4 else {
            throw fail("portal:\(name.prefix(64)) must be one quad (4 corners), it has \(corners.count)")
        }
        let centre = corners.reduce(.zero, +) / 4
        let normal = normalized(cross(corners[1] - corners[0], corners[2] - corners[0]))
        let u = normalized(corners[0] - centre)
        let v = cross(normal, u)
        corners.sort {
            atan2(Double(dot($0 - centre, v)), Double(dot($0 - centre, u)))
                < atan2(Double(dot($1 - centre, v)), Double(dot($1 - centre, u)))
        }
        let material = used.first { $0 != 0 }.map { palette[$0] } ?? .wood
        return AcousticPortal(name: name, corners: corners, material: material)
    }
}

extension AcousticLevel {
    /// Reads a level from a Wavefront OBJ file.
    ///
    /// Objects (`o` or `g`) named `room:NAME` are rooms (closed volumes that
    /// do not block sound), `portal:NAME` are portals (one quad each, open),
    /// and every other object blocks sound. `usemtl NAME` picks a preset of
    /// ``AcousticMaterial/presets`` for the faces after it; an unknown name is
    /// ``AcousticMaterial/generic``, with one warning in ``warnings``.
    ///
    /// - Parameter url: The file.
    /// - Throws: ``BackbeatError/Code/malformedLevel`` (a missing file, a bad line, with its number),
    ///   ``BackbeatError/Code/invalidGeometry`` (a vertex not finite),
    ///   ``BackbeatError/Code/levelTooLarge``.
    public init(contentsOfOBJ url: URL) throws(BackbeatError) {
        let size: Int
        do {
            let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
            size = (attributes[.size] as? Int) ?? 0
        } catch {
            throw BackbeatError(.malformedLevel, operation: "readOBJ", url: url, reason: "no such file")
        }
        guard size <= OBJReader.maximumFileSize else {
            throw BackbeatError(
                .levelTooLarge, operation: "readOBJ", url: url,
                reason: "\(size) bytes; at most \(OBJReader.maximumFileSize)")
        }
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw BackbeatError(.malformedLevel, operation: "readOBJ", url: url, reason: "\(error)")
        }
        self = try OBJReader.read([UInt8](data), url: url)
    }

    /// Reads a level from the bytes of a Wavefront OBJ file (what a fuzzer feeds).
    ///
    /// - Parameters:
    ///   - bytes: The file's contents.
    ///   - url: Where they came from, for messages; nil for none.
    /// - Throws: As ``init(contentsOfOBJ:)``.
    public init(objBytes bytes: [UInt8], url: URL? = nil) throws(BackbeatError) {
        guard bytes.count <= OBJReader.maximumFileSize else {
            throw BackbeatError(
                .levelTooLarge, operation: "readOBJ", url: url,
                reason: "\(bytes.count) bytes; at most \(OBJReader.maximumFileSize)")
        }
        self = try OBJReader.read(bytes, url: url)
    }
}
