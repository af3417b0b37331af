'use strict';

// Stages the npm packages for npm pack: the main package session-starter
// (scripts/dist/npm/session-starter, with the version and one optional
// dependency per platform written into its package.json) and one package
// per platform of lib/platforms.json, @session-starter/<platform>-<arch>,
// holding bin/session-starter (bin/session-starter.exe on Windows) with os
// and cpu fields, so that package managers install only the one that fits.
// The binaries are static: there is no libc field and no glibc/musl split.
// The main package carries the man page; npm has no place for shell
// completions.
//
// Usage: node scripts/dist/npm.js VERSION BINDIR STAGEDIR
//
// BINDIR holds the release binaries, session-starter-VERSION-GOOS-GOARCH
// (.exe on Windows); STAGEDIR must not exist. Writes STAGEDIR/session-starter
// and STAGEDIR/<platform>-<arch>, and prints one directory a line, the
// platform packages first (they are published before the package that
// depends on them).

const fs = require('node:fs');
const path = require('node:path');

const scope = '@session-starter';
const src = path.join(__dirname, 'npm', 'session-starter');
const repoRoot = path.join(__dirname, '..', '..');
// Files of the main package that its source directory does not hold:
// the man page, generated from the flags into cmd/session-starter/docs
// (npm install -g links it into the prefix's share/man, as the package's
// "man" field asks).
const generated = {
  'man/session-starter.1': path.join(repoRoot, 'cmd', 'session-starter', 'docs', 'session-starter.1'),
};

function writeJSON(file, value) {
  fs.writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`, { mode: 0o644 });
}

function copy(from, to, mode) {
  fs.mkdirSync(path.dirname(to), { recursive: true });
  fs.copyFileSync(from, to);
  // Explicit, so that the umask of the build does not reach the tarball.
  fs.chmodSync(to, mode);
}

function main(argv) {
  if (argv.length !== 3) {
    throw new Error('usage: node scripts/dist/npm.js VERSION BINDIR STAGEDIR');
  }
  const [version, binDir, stageDir] = argv;
  if (fs.existsSync(stageDir)) {
    throw new Error(`${stageDir} exists`);
  }
  const platforms = JSON.parse(fs.readFileSync(path.join(src, 'lib', 'platforms.json'), 'utf8'));
  const template = JSON.parse(fs.readFileSync(path.join(src, 'package.json'), 'utf8'));
  const license = path.join(repoRoot, 'LICENSE');
  const out = [];

  for (const [key, { goos, goarch }] of Object.entries(platforms)) {
    const [os, cpu] = key.split('-');
    const exe = goos === 'windows' ? 'session-starter.exe' : 'session-starter';
    const binary = path.join(binDir, `session-starter-${version}-${goos}-${goarch}${goos === 'windows' ? '.exe' : ''}`);
    if (!fs.existsSync(binary)) {
      throw new Error(`${binary}: no such file (make dist builds it first)`);
    }
    const dir = path.join(stageDir, key);
    copy(binary, path.join(dir, 'bin', exe), 0o755);
    copy(license, path.join(dir, 'LICENSE'), 0o644);
    fs.writeFileSync(
      path.join(dir, 'README.md'),
      `# ${scope}/${key}\n\nThe ${key} binary of [session-starter](https://www.npmjs.com/package/session-starter): ` +
        'install `session-starter`, which depends on this package where it fits.\n',
      { mode: 0o644 },
    );
    writeJSON(path.join(dir, 'package.json'), {
      name: `${scope}/${key}`,
      version,
      description: `The ${key} binary of session-starter`,
      homepage: template.homepage,
      repository: template.repository,
      license: template.license,
      os: [os],
      cpu: [cpu],
      // Yarn's Plug'n'Play keeps a package with this field on disk, where
      // its binary can be executed.
      preferUnplugged: true,
      files: [`bin/${exe}`],
    });
    out.push(dir);
  }

  const main = path.join(stageDir, 'session-starter');
  for (const f of template.files) {
    copy(generated[f] ?? path.join(src, f), path.join(main, f), f.startsWith('bin/') ? 0o755 : 0o644);
  }
  copy(path.join(src, 'README.md'), path.join(main, 'README.md'), 0o644);
  copy(license, path.join(main, 'LICENSE'), 0o644);
  const optionalDependencies = {};
  for (const key of Object.keys(platforms)) {
    optionalDependencies[`${scope}/${key}`] = version;
  }
  writeJSON(path.join(main, 'package.json'), { ...template, version, optionalDependencies });
  out.push(main);

  process.stdout.write(`${out.join('\n')}\n`);
}

try {
  main(process.argv.slice(2));
} catch (err) {
  process.stderr.write(`npm.js: ${err.message}\n`);
  process.exit(1);
}
