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
// Elsewhere it spawns the binary as its child and stays as a relay; also
// when --control-fd or --status-fd name a descriptor (Node marks the
// descriptors above 2 that it inherits close-on-exec at start, the low
// ones at least, so an exec would lose them; the relay hands those two on
// by number), and when a package runner ran it (npm_lifecycle_event is
// set: npx and npm exec, npm run, yarn and pnpm scripts). A runner
// SIGKILLed sends nothing on, and one SIGTERMed may end only the shell it
// ran the command through (sh -c, which dash does not replace by the
// command): the binary, exec'd, would run on. The relay passes SIGTERM,
// SIGINT, SIGHUP and SIGQUIT on, and exits with the binary's code or dies
// of the binary's signal (128+N only for a signal Node ignores, SIGPIPE).
//
// The relay never outlives its launcher: every 500 ms it checks that its
// parent is the one it started with (process.ppid), and, under a package
// runner whose shell (sh -c) is that parent, that the shell's parent is
// too (Linux, /proc/PID/stat). Once either is gone (exited, or SIGKILLed:
// no signal can be relayed then) it sends SIGTERM to the binary, which
// ends the session as a SIGTERM to the binary itself does, and exits with
// it (within the end's bound, grace plus kill budget). So nohup does not
// keep a relay alive past its parent; the exec'd binary it keeps. Not on
// Windows. A SIGINT sent to npx alone goes on to that shell, which waits
// for its command before it acts on it (as bash does): it reaches the
// session only from a terminal, which sends it to the whole group.
//
// What the relay cannot hide: the binary's parent is this process, so
// --watch-parent watches it and --parent-pid of the launcher's PID exits
// 125. Launchers therefore spawn binaryPath() themselves
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

// A package runner ran this command: see above.
const underRunner = process.env.npm_lifecycle_event !== undefined;

if (typeof process.execve === 'function' && process.platform !== 'win32' && fds.length === 0 && !underRunner) {
  try {
    // The environment must be passed: process.execve's default is an
    // empty one. On success this call does not return.
    process.execve(bin, [bin, ...args], process.env);
  } catch {
    // Refused (the permission model, a failed execve): the relay below
    // reports what the spawn makes of it.
  }
}

// watchIntervalMs is how often the relay checks that its launcher lives.
const watchIntervalMs = 500;

// parentOf returns the parent PID of process pid from /proc/PID/stat (its
// fourth field, after the command name in parentheses).
function parentOf(pid) {
  const stat = require('node:fs').readFileSync(`/proc/${pid}/stat`, 'latin1');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}

// shellParent returns, where this process's parent is a shell running a
// command string (sh -c …) on Linux, that shell's parent; else null.
function shellParent(parent) {
  if (process.platform !== 'linux') {
    return null;
  }
  try {
    const argv = require('node:fs').readFileSync(`/proc/${parent}/cmdline`, 'latin1').split('\0');
    if (!/(?:^|\/)(?:sh|dash|bash|ash|ksh|mksh|zsh)$/.test(argv[0]) || argv[1] !== '-c') {
      return null;
    }
    return parentOf(parent);
  } catch {
    return null; // gone already: process.ppid says so
  }
}

// The launcher as this process found it at start: under a package
// runner, the runner beyond its shell.
const parent = process.ppid;
const shellsParent = underRunner ? shellParent(parent) : null;

// launcherGone says whether the parent, or the parent shell's parent, is
// no longer the one found at start.
function launcherGone() {
  if (process.ppid !== parent) {
    return true;
  }
  if (shellsParent === null) {
    return false;
  }
  try {
    return parentOf(parent) !== shellsParent;
  } catch {
    return true;
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

// The launcher's watch; the binary's exit ends it.
const watch =
  process.platform === 'win32'
    ? null
    : setInterval(() => {
        if (launcherGone()) {
          clearInterval(watch);
          try {
            child.kill('SIGTERM');
          } catch {
            // The binary has exited; its 'exit' event follows.
          }
        }
      }, watchIntervalMs);

child.on('error', (err) => {
  process.stderr.write(`session-starter: ${bin}: ${err.message}\n`);
  process.exit(err.code === 'ENOENT' ? exitNotFound : exitCannotExecute);
});

child.on('exit', (code, signal) => {
  clearInterval(watch);
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
