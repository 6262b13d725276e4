#!/bin/sh
# Rebuild static/vendor/codemirror-bundle-<version>.min.js and its licences file from the
# packages pinned in package-lock.json, byte for byte (see docs/web.md, "The code
# editor"). Needs Node 20 and the npm registry; nothing else in the project runs npm.
#   sh static/editor-src/build.sh
set -eu
cd "$(dirname "$0")"
# `npm ci` installs exactly the lock file's versions (and checks their integrity);
# no install scripts: esbuild's binary comes from its platform package.
npm ci --ignore-scripts --no-audit --no-fund
node build.mjs
