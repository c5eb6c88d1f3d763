#!/usr/bin/env bash
# Writes the symbol graph of the Backbeat module, with the symbols of the
# modules it re-exports, into $1 (make docs hands it to DocC).
#
# Why not the plugin's own: SwiftPM extracts each target's symbols with
# swift-symbolgraph-extract, which leaves out what a module re-exports
# unless it is told which modules it may take them from
# (-experimental-allowed-reexported-modules), and SwiftPM does not say. Backbeat
# declares no symbol of its own (it only re-exports), so its graph came out
# empty and every ``AudioEngine`` link in the catalog failed.
#
# Run after `swift build --target Backbeat`.
set -euo pipefail
out=${1:?usage: docs-symbol-graph.sh OUTPUT_DIR}
bin=$(swift build --show-bin-path)
triple=$(basename "$(dirname "$bin")")
reexported=$(sed -n 's/^@_exported import \(Backbeat[A-Za-z]*\)$/\1/p' Sources/Backbeat/Backbeat.swift | paste -sd, -)

# The C modules the re-exported ones import: a system library's module map
# sits in its folder; a C target's is generated into the build folder.
flags=()
for dir in Sources/C*; do
    name=$(basename "$dir")
    if [ -d "$dir/include" ]; then
        flags+=(-Xcc "-fmodule-map-file=$bin/$name.build/module.modulemap" -Xcc -I -Xcc "$dir/include")
    else
        flags+=(-I "$dir")
    fi
done

rm -rf "$out"
mkdir -p "$out"
swift-symbolgraph-extract -module-name Backbeat -target "$triple" -I "$bin/Modules" "${flags[@]}" \
    -minimum-access-level public -emit-extension-block-symbols \
    -experimental-allowed-reexported-modules="$reexported" -output-dir "$out"
# Graphs of extensions to other modules' types (Foundation's): not Backbeat's API.
rm -f "$out"/Backbeat@*.symbols.json
