#!/bin/sh
# Counts the public API per module from the compiler's symbol graphs: the
# types (struct, class, enum, protocol, typealias) and the members (methods,
# properties, initializers, subscripts, enum cases, associated types, global
# functions and variables) each module declares public or open, its
# extensions of other modules' types included. Members a protocol's default
# implementation or a superclass supplies are not counted (they are not
# declared in the module).
#
# Usage: Scripts/public-api-count.sh [MODULE ...]
# With no modules it counts the package's library modules and BackbeatBench.
# It builds the package in debug mode first (`swift package dump-symbol-graph`).
# BACKBEAT_SYMBOL_GRAPHS=DIR counts the graphs already in DIR instead.
set -eu
cd "$(dirname "$0")/.."
if [ "$#" -eq 0 ]; then
    set -- BackbeatSupport BackbeatOpenAL BackbeatMedia BackbeatSession BackbeatEngine BackbeatEffects \
        BackbeatMusic Backbeat BackbeatLibrary BackbeatDesktop BackbeatTesting BackbeatBench
fi
dir="${BACKBEAT_SYMBOL_GRAPHS:-}"
if [ -z "$dir" ]; then
    # It fails on the package's test module (which has no module to read)
    # after writing every other module's graph: judge by the graphs.
    out=$(swift package dump-symbol-graph --minimum-access-level public --skip-synthesized-members 2>&1) || true
    dir=$(printf '%s\n' "$out" | sed -n 's/^Files written to //p' | tail -n 1)
    [ -n "$dir" ] || { printf '%s\n' "$out" >&2; exit 1; }
fi
[ -d "$dir" ] || { echo "no symbol graphs in '$dir'" >&2; exit 1; }
python3 - "$dir" "$@" <<'EOF'
import glob, json, os, sys

directory, modules = sys.argv[1], sys.argv[2:]
types = {"swift.struct", "swift.class", "swift.enum", "swift.protocol", "swift.typealias"}
members = {
    "swift.method", "swift.type.method", "swift.property", "swift.type.property", "swift.init",
    "swift.subscript", "swift.type.subscript", "swift.enum.case", "swift.associatedtype", "swift.func",
    "swift.var", "swift.func.op",
}
print("| module | public types | public members | with parameters | of those documented |")
print("|---|---:|---:|---:|---:|")
totals = [0, 0, 0, 0]
for module in modules:
    counted = [0, 0, 0, 0]
    seen = set()
    # MODULE.symbols.json, and MODULE@Other.symbols.json for extensions of Other's types.
    files = glob.glob(os.path.join(directory, module + ".symbols.json"))
    files += glob.glob(os.path.join(directory, module + "@*.symbols.json"))
    for path in files:
        with open(path) as handle:
            graph = json.load(handle)
        for symbol in graph.get("symbols", []):
            if symbol.get("accessLevel") not in ("public", "open"):
                continue
            identifier = symbol["identifier"]["precise"]
            if identifier in seen:
                continue
            seen.add(identifier)
            kind = symbol["kind"]["identifier"]
            if kind in types:
                counted[0] += 1
            elif kind in members:
                counted[1] += 1
                parameters = symbol.get("functionSignature", {}).get("parameters", [])
                if parameters:
                    counted[2] += 1
                    lines = " ".join(l["text"] for l in (symbol.get("docComment") or {}).get("lines", []))
                    if "- Parameter" in lines:
                        counted[3] += 1
    totals = [a + b for a, b in zip(totals, counted)]
    print("| %s | %d | %d | %d | %d |" % (module, *counted))
print("| total | %d | %d | %d | %d |" % tuple(totals))
EOF
