package main

// releaseVersion is the version of the next (or current) release, in
// semver without the leading "v": the one place it is written. make dist
// reads it from this file's text (scripts/dist/build.sh, with a plain
// pattern: keep it one line of this shape), fails if HEAD carries a tag
// vX.Y.Z that differs, and stamps it into the binaries (-X main.version,
// which --version prints, as it prints this constant without it),
// the npm packages, the wheels, the .deb and the Homebrew formula. Raise it
// in the commit that is tagged vX.Y.Z (scripts/dist/RELEASE.md).
const releaseVersion = "0.1.0"
