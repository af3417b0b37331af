# Shared by scripts/dist/build.sh, check.sh and release.sh (sourced, not run).
# shellcheck shell=bash

# die prints its arguments as one line on stderr, prefixed with the
# script's name, and exits 1.
die() {
	echo "${0##*/}: $*" >&2
	exit 1
}

# need fails, naming the command and the Debian package that has it, if a
# command is not on PATH.
need() {
	local cmd=$1 pkg=${2:-$1}
	command -v "$cmd" >/dev/null 2>&1 || die "$cmd not found (Debian: apt-get install $pkg)"
}

# The release version: the one constant in cmd/session-starter/version.go.
semver_re='^[0-9]+\.[0-9]+\.[0-9]+(-(alpha|beta|rc)\.[0-9]+)?$'

# release_commit prints the commit the release is built from (HEAD), as
# --version names it: 12 hexadecimal digits, the same for every build of it.
release_commit() {
	git rev-parse --short=12 HEAD
}

# release_version prints releaseVersion of cmd/session-starter/version.go,
# or fails if it is missing or not semver of the shape releases use.
release_version() {
	local file=cmd/session-starter/version.go v
	v=$(sed -n 's/^const releaseVersion = "\(.*\)"$/\1/p' "$file")
	[[ -n $v ]] || die "$file: no line 'const releaseVersion = \"X.Y.Z\"'"
	[[ $v =~ $semver_re ]] || die "$file: releaseVersion \"$v\": want X.Y.Z or X.Y.Z-(alpha|beta|rc).N"
	echo "$v"
}

# deb_version prints a semver version as Debian orders it: a pre-release
# sorts before its release with "~" (0.2.0-rc.1 -> 0.2.0~rc.1).
deb_version() {
	echo "${1/-/\~}"
}

# pep440_version prints a semver version as PEP 440 spells it, as
# scripts/dist/wheel.py does (0.2.0-rc.1 -> 0.2.0rc1).
pep440_version() {
	local v=$1
	v=${v/-alpha./a}
	v=${v/-beta./b}
	v=${v/-rc./rc}
	echo "$v"
}

# dev_npm_cache prints the npm cache that make dist-deps fills with the
# launch API tests' devDependencies (scripts/dist/npm/test/package-lock.json)
# and that the tests install them from, offline.
dev_npm_cache() {
	echo "${SESSION_STARTER_NPM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/session-starter/npm}"
}
