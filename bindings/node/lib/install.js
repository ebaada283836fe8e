'use strict';
// The package's "install" script. With the prebuilt addon for this platform
// (prebuilds/linux-x64/ in the npm package) nothing is built: it is loaded
// once here to prove that it fits (glibc, OpenSSL 3, Cyrus SASL present).
// Otherwise, or with ZKL_NODE_BUILD_FROM_SOURCE=1 (or npm's
// --build-from-source), the addon is built from src/ with CMake into
// build/zkl.node, against libzkl:
//   - an installed libzkl of this version, when pkg-config finds one
//     (PKG_CONFIG_PATH for a non-system prefix);
//   - else the libzkl sources the npm package carries (libzkl/: libzkl's
//     src/, include/, CMake files and the patched ZooKeeper C client), built
//     into build/libzkl/ (shared; the addon finds it by its RUNPATH).
//     This needs abseil's development files (Debian: libabsl-dev),
//     libssl-dev and, for SASL, libsasl2-dev.
// Either way: CMake, a C++17 compiler and the running Node's headers
// (<prefix>/include/node). Nothing is downloaded.
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
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

function run(cmd, args, env = process.env) {
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', env });
  if (r.error) throw new Error(`${cmd}: ${r.error.message}`);
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited with ${r.status ?? r.signal}`);
}

function installedLibzkl() {
  const { version } = require('../package.json');
  return spawnSync('pkg-config', ['--exists', `zkl >= ${version}`], { stdio: 'ignore' }).status === 0;
}

function buildFromSource() {
  const build = path.join(root, 'build');
  const ninja = spawnSync('ninja', ['--version'], { stdio: 'ignore' }).status === 0;
  const gen = ninja ? ['-G', 'Ninja'] : [];
  const cpus = os.availableParallelism ? os.availableParallelism() : os.cpus().length;
  const jobs = process.env.CMAKE_BUILD_PARALLEL_LEVEL ? [] : ['--parallel', String(cpus)];
  const bundled = path.join(root, 'libzkl');
  const env = { ...process.env };
  if (!installedLibzkl() && fs.existsSync(path.join(bundled, 'CMakeLists.txt'))) {
    console.error('zkl: no installed libzkl found by pkg-config; building the one this package carries (libzkl/)');
    const prefix = path.join(build, 'libzkl');
    run('cmake', ['-S', bundled, '-B', path.join(build, 'libzkl-build'), ...gen,
                  '-DCMAKE_BUILD_TYPE=Release', `-DCMAKE_INSTALL_PREFIX=${prefix}`, '-DCMAKE_INSTALL_LIBDIR=lib',
                  '-DZKL_BUILD_TESTS=OFF', '-DZKL_BUILD_BENCH=OFF', '-DZKL_WERROR=OFF',
                  `-DZKL_ZOOKEEPER_SOURCE_DIR=${path.join(bundled, 'third_party', 'zookeeper', 'src')}`]);
    run('cmake', ['--build', path.join(build, 'libzkl-build'), ...jobs]);
    run('cmake', ['--install', path.join(build, 'libzkl-build')]);
    const pc = path.join(prefix, 'lib', 'pkgconfig');
    env.PKG_CONFIG_PATH = env.PKG_CONFIG_PATH ? `${pc}${path.delimiter}${env.PKG_CONFIG_PATH}` : pc;
  }
  run('cmake', ['-S', root, '-B', build, '-DCMAKE_BUILD_TYPE=Release', ...gen], env);
  run('cmake', ['--build', build, ...jobs], env);
}

if (fromSource || !usePrebuild()) {
  try {
    buildFromSource();
  } catch (err) {
    console.error(`zkl: building the addon from source failed: ${err.message}\n` +
                  'zkl: it needs CMake, a C++17 compiler, the Node headers (Debian\'s nodejs: apt-get install libnode-dev) ' +
                  'and libzkl: an installed one (pkg-config zkl; PKG_CONFIG_PATH for a non-system prefix), or, to build ' +
                  "the package's own libzkl/, abseil, OpenSSL and SASL development files (Debian: apt-get install " +
                  'libabsl-dev libssl-dev libsasl2-dev).');
    process.exit(1);
  }
}
