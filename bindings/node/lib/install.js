'use strict';
// The package's "install" script. With the prebuilt addon for this platform
// (prebuilds/linux-x64/ in the npm package) nothing is built: it is loaded
// once here to prove that it fits (glibc, OpenSSL 3, Cyrus SASL present).
// Otherwise, or with ZKL_NODE_BUILD_FROM_SOURCE=1 (or npm's
// --build-from-source), the addon is built from src/ with CMake into
// build/zkl.node against an installed libzkl found by pkg-config; this needs
// CMake, a C++17 compiler and the running Node's headers
// (<prefix>/include/node). Nothing is downloaded.
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { prebuild, root, tuple } = require('./load');

// A yes/no environment variable, strictly: unset or empty is no; 1/0,
// true/false, yes/no, on/off in any case; anything else stops the install.
function envBool(name) {
  const v = process.env[name] ?? '';
  if (['', '0', 'false', 'no', 'off'].includes(v.toLowerCase())) return false;
  if (['1', 'true', 'yes', 'on'].includes(v.toLowerCase())) return true;
  console.error(`zkl: $${name} must be one of 1/0, true/false, yes/no, on/off (any case), not '${v}'`);
  process.exit(1);
}
const fromSource = envBool('ZKL_NODE_BUILD_FROM_SOURCE') || envBool('npm_config_build_from_source');

function usePrebuild() {
  const pre = prebuild();
  if (!pre || !fs.existsSync(pre)) {
    console.error(`zkl: no prebuilt addon for ${tuple}${pre ? '' : ' (musl)'}; building from source`);
    return false;
  }
  try {
    require(pre);
    return true;
  } catch (err) {
    console.error(`zkl: the prebuilt addon does not load here (${err.message}); building from source`);
    return false;
  }
}

function run(cmd, args) {
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit' });
  if (r.error) throw new Error(`${cmd}: ${r.error.message}`);
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited with ${r.status ?? r.signal}`);
}

function buildFromSource() {
  const build = path.join(root, 'build');
  const ninja = spawnSync('ninja', ['--version'], { stdio: 'ignore' }).status === 0;
  run('cmake', ['-S', root, '-B', build, '-DCMAKE_BUILD_TYPE=Release', ...(ninja ? ['-G', 'Ninja'] : [])]);
  run('cmake', ['--build', build]);
}

if (fromSource || !usePrebuild()) {
  try {
    buildFromSource();
  } catch (err) {
    console.error(`zkl: building the addon from source failed: ${err.message}\n` +
                  'zkl: it needs libzkl (pkg-config zkl; PKG_CONFIG_PATH for a non-system prefix), ' +
                  "CMake, a C++17 compiler and the Node headers (Debian's nodejs: apt-get install libnode-dev).");
    process.exit(1);
  }
}
