#!/usr/bin/env bash
# Build the wheel and, from a clean install of it, the frozen one-folder bundle
# (dist/medrcube-desktop/ and dist/medrcube-desktop-VERSION-linux-x86_64.tar.gz), then
# prove the bundle: --version, --help, the validate command, and its self-test, started
# as a user would (no venv, a fresh HOME) and compared with the unfrozen app's pixels; the
# self-test runs evaluate (with image workers) and judge against a local stub endpoint and
# render-batch and compare --out (every file written, every SVG parsed as XML), each from
# the frozen executable, and fails on 0 answers or a missing figure.
# 3 to 5 minutes on 2 cores (683 MB folder, 226 MB tarball). Usage: packaging/build_bundle.sh [PYTHON] (default python3).
set -euo pipefail
cd "$(dirname "$0")/.."
py=${1:-python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
start=$SECONDS

"$py" -m venv "$work/venv"
"$work/venv/bin/pip" install -q build pyinstaller
rm -rf dist/medrcube-desktop dist/medrcube_desktop-*.whl
"$work/venv/bin/python" -m build -q --wheel --outdir dist . >/dev/null
wheel=$(ls dist/medrcube_desktop-*.whl)
"$work/venv/bin/python" packaging/check_wheel.py "$wheel"
"$work/venv/bin/pip" install -q "$wheel"
"$work/venv/bin/pyinstaller" --noconfirm --log-level WARN --distpath dist \
    --workpath "$work/build" packaging/medrcube-desktop.spec
built=$SECONDS

# The unfrozen app's pixels, then the frozen app started as a user would.
QT_QPA_PLATFORM=offscreen "$work/venv/bin/medrcube-desktop" self-test --out "$work/unfrozen" \
    >"$work/unfrozen.log" || { tail -n 20 "$work/unfrozen.log"; exit 1; }
app=dist/medrcube-desktop/medrcube-desktop
as_user=(env -i HOME="$work/home" PATH=/usr/bin:/bin LANG=C.UTF-8 QT_QPA_PLATFORM=offscreen)
version=$("${as_user[@]}" "$app" --version)
"${as_user[@]}" "$app" --help | grep -q "self-test"
"${as_user[@]}" "$app" self-test --out "$work/frozen" --expect "$work/unfrozen/self-test.json"
# its jobs ran from the frozen executable: evaluate (image workers), judge, render-batch, compare
"$work/venv/bin/python" - "$work/frozen/self-test.json" <<'EOF'
import json, sys
report = json.load(open(sys.argv[1], encoding="utf-8"))
assert report["frozen"] is True, "the self-test did not run frozen"
jobs = report["jobs"]
evaluate = jobs["evaluate"]
assert evaluate["answers"] > 0 and evaluate["with_image"] == evaluate["answers"], jobs
assert jobs["judge"]["judgments"] > 0 and jobs["render_batch"]["pngs"] > 0, jobs
assert jobs["compare"]["files"] > 0 and jobs["compare"]["svgs"] > 0, jobs
print(f"frozen jobs: {jobs}")
EOF
"${as_user[@]}" "$app" validate "$work/frozen/demo" >/dev/null
test -s "$work/frozen/screenshot.png"
# the launcher from the frozen app (its resources come through another loader there)
"${as_user[@]}" "$app" install-launcher --prefix "$work/launcher" >/dev/null
grep -q "Exec=.*medrcube-desktop" "$work/launcher/share/applications/medrcube-desktop.desktop"
"${as_user[@]}" "$app" install-launcher --prefix "$work/launcher" --uninstall >/dev/null
test ! -e "$work/launcher/share/applications/medrcube-desktop.desktop"

tarball="dist/medrcube-desktop-${version##* }-linux-x86_64.tar.gz"
tar -czf "$tarball" -C dist medrcube-desktop
echo "bundle: $(du -sh dist/medrcube-desktop | cut -f1) (folder), $(du -sh "$tarball" | cut -f1) ($tarball);" \
    "built in $((built - start)) s, proved in $((SECONDS - built)) s; $version"
