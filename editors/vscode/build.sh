#!/usr/bin/env bash
# Packages the extension as dist/gzguide.vsix with @vscode/vsce, from the locked packages
# (npm ci: the same versions every time). Needs Node 20 or newer and npm.
#   editors/vscode/build.sh          then: code --install-extension editors/vscode/dist/gzguide.vsix
set -euo pipefail
cd "$(dirname "$0")"
# npm ci starts from nothing; skip it while node_modules holds what the lock says.
if ! cmp -s package-lock.json node_modules/.installed.lock; then
    npm ci --no-fund --no-audit --loglevel=error
    cp package-lock.json node_modules/.installed.lock
fi
mkdir -p dist media
# The README's screenshot is the project's docs/vscode.png, outside this folder: the
# package carries a copy, and its README points there.
cp ../../docs/vscode.png media/vscode.png
sed 's#(\.\./\.\./docs/vscode\.png)#(media/vscode.png)#' README.md >dist/README.md
# No repository URL or LICENSE file of its own: the license is the project's (MIT,
# package.json), and the README's other links are kept as written.
node_modules/.bin/vsce package --allow-missing-repository --skip-license \
    --no-rewrite-relative-links --readme-path dist/README.md --out dist/gzguide.vsix
