'use strict';

// The session-starter binary of this platform. It comes in one package per
// platform, @session-starter/<platform>-<arch> (Node's names: linux-x64,
// win32-arm64), each an optional dependency of this one whose os and cpu
// fields let npm, pnpm and yarn install only the one that fits; no install
// script runs, so --ignore-scripts and pnpm's defaults change nothing.
//
// binaryPath() returns the absolute path of an existing file, or throws one
// Error that names the platform and says what to do; it never returns a
// path it has not seen. A launcher spawns that path itself, so that no Node
// process stands between it and session-starter (--parent-pid, signals and
// the exit status are then the launcher's own).

const fs = require('node:fs');
const path = require('node:path');

const platforms = require('./platforms.json');

// The scope of the platform packages, as published (scripts/dist/RELEASE.md).
const scope = '@session-starter';

// SESSION_STARTER_BINARY names a binary to use instead of the platform
// package's, as ESBUILD_BINARY_PATH does for esbuild: a build of one's own,
// or a platform with no package.
const overrideEnv = 'SESSION_STARTER_BINARY';

const installHint =
  'build it from a clone of session-starter with Go (make build writes bin/session-starter) ' +
  `and set ${overrideEnv} to its path`;

function fail(code, message) {
  const err = new Error(`session-starter: ${message}`);
  err.code = code;
  return err;
}

function isFile(p) {
  try {
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

/**
 * The name of the package that holds the binary for a platform and an
 * architecture as Node names them (process.platform, process.arch), or
 * undefined where there is none.
 */
function packageName(platform = process.platform, arch = process.arch) {
  const key = `${platform}-${arch}`;
  return Object.hasOwn(platforms, key) ? `${scope}/${key}` : undefined;
}

/**
 * The absolute path of the session-starter binary for this platform.
 *
 * Throws an Error with code ERR_SESSION_STARTER_UNSUPPORTED_PLATFORM where
 * no package exists for the platform, ERR_SESSION_STARTER_NOT_INSTALLED
 * where the platform's package is missing (installed with
 * --omit=optional, or a lockfile made elsewhere that left it out), or
 * ERR_SESSION_STARTER_BINARY_MISSING where SESSION_STARTER_BINARY or the
 * package names a file that is not there.
 */
function binaryPath() {
  const override = process.env[overrideEnv];
  if (override) {
    if (!isFile(override)) {
      throw fail('ERR_SESSION_STARTER_BINARY_MISSING', `${overrideEnv}=${override}: no such file`);
    }
    return path.resolve(override);
  }
  const key = `${process.platform}-${process.arch}`;
  const pkg = packageName(process.platform, process.arch);
  if (pkg === undefined) {
    throw fail(
      'ERR_SESSION_STARTER_UNSUPPORTED_PLATFORM',
      `no package for this platform (${key}); there are packages for ${Object.keys(platforms).join(', ')}: ${installHint}`,
    );
  }
  let dir;
  try {
    dir = path.dirname(require.resolve(`${pkg}/package.json`));
  } catch {
    throw fail(
      'ERR_SESSION_STARTER_NOT_INSTALLED',
      `the package for this platform (${key}), ${pkg}, is not installed: ` +
        'install session-starter again without --omit=optional or --no-optional ' +
        `(a lockfile made on another platform must list ${pkg} too)`,
    );
  }
  const bin = path.join(dir, 'bin', process.platform === 'win32' ? 'session-starter.exe' : 'session-starter');
  if (!isFile(bin)) {
    throw fail('ERR_SESSION_STARTER_BINARY_MISSING', `${pkg} (for ${key}) has no ${bin}: install it again`);
  }
  return bin;
}

exports.binaryPath = binaryPath;
exports.packageName = packageName;
