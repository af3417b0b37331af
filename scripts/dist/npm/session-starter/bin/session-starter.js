#!/usr/bin/env node
'use strict';

// The session-starter command of the npm package (node_modules/.bin,
// npx, a global install): it runs the platform package's binary with the
// same arguments, environment and standard descriptors.
//
// Where Node can replace itself with another program (process.execve:
// Node 22.15, 23.11 and later, not on Windows) it does, and nothing of
// Node is left: the binary runs with this process's PID and parent, so
// --watch-parent and --parent-pid watch the launcher, signals reach the
// binary directly, and its exit status or death by signal is the
// launcher's to see.
//
// Elsewhere, and when --control-fd or --status-fd name a descriptor, it
// spawns the binary as its child and stays as a relay. (Node marks the
// descriptors above 2 that it inherits close-on-exec at start, the low
// ones at least, so an exec would lose them; the relay hands those two on
// by number.) It passes
// SIGTERM, SIGINT, SIGHUP and SIGQUIT on, and exits with the binary's code
// or dies of the binary's signal (128+N only for a signal Node ignores,
// SIGPIPE). What the relay cannot hide: the binary's parent is this
// process, so --watch-parent watches it (it lives until the binary exits,
// even if the launcher is SIGKILLed) and --parent-pid of the launcher's PID
// exits 125. Launchers therefore spawn binaryPath() themselves
// (require('session-starter').binaryPath()), as the README shows, and keep
// this command for people and scripts. Other descriptors above 2 do not
// reach the binary or the Engine through this command.
//
// Exit 127 with one line on stderr if there is no binary for this
// platform; nothing is started.

const { binaryPath } = require('../lib/binary.js');

// exitNotFound is the shell's status for a command that is not there.
const exitNotFound = 127;
// exitCannotExecute is the shell's status for a command that cannot run.
const exitCannotExecute = 126;

let bin;
try {
  bin = binaryPath();
} catch (err) {
  process.stderr.write(`${err.message}\n`);
  process.exit(exitNotFound);
}
const args = process.argv.slice(2);

// passedDescriptors returns the descriptors that --control-fd and
// --status-fd name in args and that are open here. It looks at every
// argument, the Engine's included: handing the binary one descriptor too
// many is harmless (it does not pass them on), missing one is not.
function passedDescriptors(argv) {
  const fs = require('node:fs');
  const fds = new Set();
  for (let i = 0; i < argv.length; i++) {
    const m = /^--(?:control|status)-fd(?:=(.*))?$/.exec(argv[i]);
    if (m === null) {
      continue;
    }
    const value = m[1] !== undefined ? m[1] : argv[i + 1];
    const fd = Number(value);
    if (!Number.isInteger(fd) || fd <= 2) {
      continue; // session-starter says what is wrong with it.
    }
    try {
      fs.fstatSync(fd);
      fds.add(fd);
    } catch {
      // Not open: session-starter reports it.
    }
  }
  return [...fds];
}

// On Windows --control-fd and --status-fd take handle values, which are
// inherited as they are.
const fds = process.platform === 'win32' ? [] : passedDescriptors(args);

if (typeof process.execve === 'function' && process.platform !== 'win32' && fds.length === 0) {
  try {
    // The environment must be passed: process.execve's default is an
    // empty one. On success this call does not return.
    process.execve(bin, [bin, ...args], process.env);
  } catch {
    // Refused (the permission model, a failed execve): the relay below
    // reports what the spawn makes of it.
  }
}

const { spawn } = require('node:child_process');
const os = require('node:os');

// Descriptors 0-2 are inherited; the ones --control-fd and --status-fd
// name are handed on by number, each at its own number.
const stdio = ['inherit', 'inherit', 'inherit'];
for (const fd of fds) {
  while (stdio.length < fd) {
    stdio.push('ignore');
  }
  stdio[fd] = fd;
}
const child = spawn(bin, args, { stdio });

// On Windows a console's Ctrl-C reaches every process of the console, the
// binary included, and child.kill would be TerminateProcess: the relay only
// stays alive until the binary has ended the session.
const forwarded = process.platform === 'win32' ? ['SIGINT', 'SIGBREAK', 'SIGHUP'] : ['SIGTERM', 'SIGINT', 'SIGHUP', 'SIGQUIT'];
const listeners = forwarded.map((sig) => {
  const listener =
    process.platform === 'win32'
      ? () => {}
      : () => {
          try {
            child.kill(sig);
          } catch {
            // The binary has exited; its 'exit' event follows.
          }
        };
  process.on(sig, listener);
  return [sig, listener];
});

child.on('error', (err) => {
  process.stderr.write(`session-starter: ${bin}: ${err.message}\n`);
  process.exit(err.code === 'ENOENT' ? exitNotFound : exitCannotExecute);
});

child.on('exit', (code, signal) => {
  if (signal === null) {
    process.exit(code);
    return;
  }
  // Die of the same signal: with no listener left, Node's own action for
  // it is the default one (it resets the terminal first).
  for (const [sig, listener] of listeners) {
    process.removeListener(sig, listener);
  }
  process.kill(process.pid, signal);
  process.exit(128 + (os.constants.signals[signal] || 0));
});
