#!/usr/bin/env bash
# Builds the DEB from a built tree, checks its metadata, unpacks it into a scratch root and runs the
# installed binaries from there: the CLI on a bundled sample, the GUI's screenshot mode (which needs the
# Graphviz plugin found through the installed RPATH and the Qt platform plugins the package depends on).
# Usage: scripts/check-package.sh [BUILD_DIR=build]
set -euo pipefail
build=$(realpath "${1:-build}")
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT

cd "$build"
rm -f xpushark_*.deb
cpack -G DEB > "$root/cpack.log" 2>&1 || { cat "$root/cpack.log"; exit 1; }
deb=$(ls xpushark_*.deb)
echo "package: $deb ($(du -h "$deb" | cut -f1))"

# Every dependency must name an installed package (this machine built and ran the tests).
depends=$(dpkg-deb -f "$deb" Depends)
echo "depends: $depends"
for dep in $(echo "$depends" | tr ',' '\n' | sed 's/(.*)//; s/|.*//' | tr -d ' '); do
  dpkg-query -W -f='${Status}' "$dep" 2>/dev/null | grep -q "install ok installed" ||
    { echo "dependency $dep is not an installed package"; exit 1; }
done

dpkg -x "$deb" "$root/install"
usr="$root/install/usr"
desktop-file-validate "$usr/share/applications/org.xpushark.xpushark.desktop"
appstreamcli validate --no-net "$usr/share/metainfo/org.xpushark.xpushark.metainfo.xml"
for size in 16 24 32 48 64 128 256; do
  test -s "$usr/share/icons/hicolor/${size}x${size}/apps/org.xpushark.xpushark.png"
done
grep -q 'glob pattern="\*.xtrace.json"' "$usr/share/mime/packages/xpushark.xml"

"$usr/bin/xpushark-cli" --version
"$usr/bin/xpushark-cli" analyze "$usr/share/xpushark/samples/vector_add.xasm" > "$root/analysis.txt"
grep -q "suggestions" "$root/analysis.txt"
# An imported profile (libprotobuf at run time): the bundled 4-rank Chakra training step.
"$usr/bin/xpushark-cli" analyze "$usr/share/xpushark/samples/ddp_step/step.0.et" > "$root/chakra.txt"
grep -q "Chakra execution trace (4 ranks)" "$root/chakra.txt"
grep -q "rank 3 sets the pace" "$root/chakra.txt"
"$usr/bin/xpushark-cli" report "$usr/share/xpushark/samples/allgather_naive.xtrace.json" -o "$root/report.pdf"
test "$(head -c 5 "$root/report.pdf")" = "%PDF-"
"$usr/bin/xpushark-cli" report "$usr/share/xpushark/samples/allgather_naive.xtrace.json" --no-measure -o "$root/report.html"
grep -q 'id="suggestions"' "$root/report.html"
QT_QPA_PLATFORM=offscreen "$usr/bin/xpushark" --version
QT_QPA_PLATFORM=offscreen "$usr/bin/xpushark" --screenshot "$root/graph.png" --view graph --size 800x500 \
  "$usr/share/xpushark/samples/vector_add.xasm" 2>/dev/null
test -s "$root/graph.png"
echo "package check: 1 passed, 0 failed"
