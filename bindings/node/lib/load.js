'use strict';
// Finds the native addon, by node-gyp-build's convention:
//   1. $ZKL_NODE_ADDON, when set (any other build);
//   2. build/zkl.node: a build from source (`npm run build` in a checkout, or
//      the install script's fallback when no prebuild fits);
//   3. prebuilds/<platform>-<arch>/zkl.napi.node: the prebuilt addon shipped
//      in the npm package (Node-API, so one file serves every Node >= 18).
//      libzkl.so.1 and the abseil libraries it needs lie beside it and are
//      found through its RUNPATH $ORIGIN; glibc only (no musl prebuild).
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');
const tuple = `${process.platform}-${process.arch}`;

function isMusl() {
  if (process.platform !== 'linux') return false;
  try {
    return !process.report.getReport().header.glibcVersionRuntime;
  } catch {
    return false;
  }
}

/** The prebuilt addon's path for this platform, or null when none can fit. */
function prebuild() {
  if (isMusl()) return null;
  return path.join(root, 'prebuilds', tuple, 'zkl.napi.node');
}

/** The paths tried, in order. */
function candidates() {
  if (process.env.ZKL_NODE_ADDON) return [path.resolve(process.env.ZKL_NODE_ADDON)];
  const list = [path.join(root, 'build', 'zkl.node')];
  const pre = prebuild();
  if (pre) list.push(pre);
  return list;
}

function load() {
  const tried = candidates();
  for (const file of tried) {
    if (fs.existsSync(file)) return require(file);
  }
  throw new Error(`zkl: no native addon for ${tuple} (tried ${tried.join(', ')}). ` +
                  'Reinstall to build it from source (needs libzkl found by pkg-config, ' +
                  'CMake and a C++17 compiler), or set ZKL_NODE_ADDON.');
}

module.exports = { load, candidates, prebuild, root, tuple };
