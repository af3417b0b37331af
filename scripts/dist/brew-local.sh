#!/usr/bin/env bash
# scripts/dist/brew-local.sh: installs session-starter with Homebrew as a
# user's `brew install` would, from source, and runs the formula's test:
# the source archive of HEAD (as make dist writes it), the formula of
# scripts/dist/homebrew/session-starter.rb.in pointed at it (a file://
# url, its SHA-256), a local tap of its own, then
#
#   brew install --build-from-source session-starter/local/session-starter
#   brew test session-starter/local/session-starter
#
# and the uninstall and the untap. Needs brew, git and Go (the formula's
# build dependency, which brew installs where it is missing). The macOS job
# of .github/workflows/ci.yml runs it; it changes the Homebrew it runs in
# (a tap and an install, both removed at the end), so run it on a machine
# of that use, not a workstation's own Homebrew.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
# shellcheck source=scripts/dist/lib.sh
source scripts/dist/lib.sh

need brew
need git
version=$(release_version)
commit=$(release_commit)
work=$(mktemp -d "${TMPDIR:-/tmp}/session-starter-brew.XXXXXX")
tap=session-starter/local
cleanup() {
	brew uninstall --formula "$tap/session-starter" >/dev/null 2>&1 || true
	brew untap "$tap" >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT

# The source archive, as scripts/dist/build.sh writes it.
src=$work/session-starter-$version.tar.gz
git archive --format=tar --prefix="session-starter-$version/" HEAD | gzip -n -9 >"$src"
if command -v sha256sum >/dev/null 2>&1; then
	sum=$(sha256sum "$src" | cut -d' ' -f1)
else
	sum=$(shasum -a 256 "$src" | cut -d' ' -f1)
fi

brew tap-new --no-git "$tap" >/dev/null
formula=$(brew --repository)/Library/Taps/${tap%/*}/homebrew-${tap#*/}/Formula/session-starter.rb
# The release's formula, its url the archive above.
sed -e "s/@VERSION@/$version/g" -e "s/@COMMIT@/$commit/g" -e "s/@SHA256@/$sum/g" \
	-e "s|^  url \".*\"$|  url \"file://$src\"|" \
	scripts/dist/homebrew/session-starter.rb.in >"$formula"
grep -qxF "  url \"file://$src\"" "$formula" || die "the formula's url was not replaced"

export HOMEBREW_NO_AUTO_UPDATE=1 HOMEBREW_NO_ANALYTICS=1
brew install --build-from-source --formula "$tap/session-starter"
brew test "$tap/session-starter"
installed=$(brew --prefix)/bin/session-starter
"$installed" --version | grep -qF "$version" || die "$installed --version does not name $version"
echo "brew-local: ok: session-starter $version built from source by Homebrew, its test passed"
