#!/usr/bin/env bash
# The release steps of scripts/dist/RELEASE.md, each one command:
#
#   release.sh preflight       the tree is clean and HEAD carries both tags
#                              (v<releaseVersion>, starter/mcp/v…); make dist twice, with the
#                              same SHA256SUMS; make dist-check; npm publish
#                              --dry-run of every tarball (offline)
#   release.sh sign KEY        signs dist/SHA256SUMS with the SSH key KEY
#                              (ssh-keygen -Y sign, namespace "file") into
#                              dist/SHA256SUMS.sig, and verifies it with
#                              KEY.pub
#   release.sh notes           prints the release notes: the subjects of
#                              the commits since the previous tag
#   release.sh upload          prints the upload commands, in the order
#                              they must run; with RELEASE_UPLOAD=yes it
#                              runs them (needs git push rights, gh, npm
#                              and twine logged in, TAP_DIR a clone of the
#                              Homebrew tap)
#
# Nothing here uploads unless RELEASE_UPLOAD=yes.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
# shellcheck source=scripts/dist/lib.sh
source scripts/dist/lib.sh

out=${DIST_DIR:-dist}
repo=session-starter/session-starter

version=$(release_version)
tag=v$version
# mcp_tag is the nested module starter/mcp's tag for the same version: Go
# finds a nested module's versions by tags prefixed with its directory.
mcp_tag=starter/mcp/$tag

# npm_tag is the dist-tag a version is published under: a pre-release
# must not become "latest".
npm_tag() {
	if [[ $version == *-* ]]; then echo next; else echo latest; fi
}

# The platform tarballs first: the main package depends on them, and a
# user who installs it between two uploads must find them.
npm_tarballs() {
	local f
	for f in "$out"/npm/session-starter-*-"$version".tgz; do
		[[ $f == "$out/npm/session-starter-$version.tgz" ]] || echo "$f"
	done
	echo "$out/npm/session-starter-$version.tgz"
}

preflight() {
	[[ -z $(git status --porcelain) ]] || die "the tree is not clean: commit or stash first"
	git tag --points-at HEAD | grep -qxF "$tag" || die "HEAD is not tagged $tag (git tag -s $tag)"
	git tag --points-at HEAD | grep -qxF "$mcp_tag" || die "HEAD is not tagged $mcp_tag, the nested module's tag (git tag -s $mcp_tag)"
	make dist
	cp "$out/SHA256SUMS" "${TMPDIR:-/tmp}/session-starter-SHA256SUMS.$$"
	make dist
	if ! cmp -s "$out/SHA256SUMS" "${TMPDIR:-/tmp}/session-starter-SHA256SUMS.$$"; then
		diff "${TMPDIR:-/tmp}/session-starter-SHA256SUMS.$$" "$out/SHA256SUMS" >&2 || true
		rm -f "${TMPDIR:-/tmp}/session-starter-SHA256SUMS.$$"
		die "two make dist runs differ: not reproducible"
	fi
	rm -f "${TMPDIR:-/tmp}/session-starter-SHA256SUMS.$$"
	echo "release: two make dist runs wrote the same bytes"
	make dist-check
	local f
	while read -r f; do
		npm_config_update_notifier=false npm publish --dry-run --offline --ignore-scripts --access public \
			--registry http://127.0.0.1:9/ --tag "$(npm_tag)" "$PWD/$f" >/dev/null 2>&1 ||
			die "npm publish --dry-run $f"
	done < <(npm_tarballs)
	echo "release: npm publish --dry-run accepts every tarball"
	echo "release: preflight of $tag passed; next: release.sh sign KEY"
}

sign() {
	local key=${1:-}
	[[ -n $key && -f $key && -f $key.pub ]] || die "usage: release.sh sign KEY (an SSH private key, KEY.pub beside it)"
	need ssh-keygen openssh-client
	rm -f "$out/SHA256SUMS.sig"
	ssh-keygen -Y sign -f "$key" -n file "$out/SHA256SUMS"
	# Verify as a user would, with the published public key.
	local signers
	signers=$(mktemp)
	echo "release@$repo $(cat "$key.pub")" >"$signers"
	ssh-keygen -Y verify -f "$signers" -I "release@$repo" -n file -s "$out/SHA256SUMS.sig" <"$out/SHA256SUMS"
	rm -f "$signers"
}

notes() {
	local prev
	prev=$(git describe --tags --abbrev=0 --match 'v[0-9]*' "$tag^" 2>/dev/null || true)
	echo "session-starter $version"
	echo
	if [[ -n $prev ]]; then
		echo "Changes since $prev:"
		echo
		git log --no-merges --format='- %s' "$prev..$tag"
	else
		echo "The first release."
	fi
	echo
	echo "Verify the downloads: sha256sum -c SHA256SUMS; the signature:"
	echo "ssh-keygen -Y verify -f allowed_signers -I release@$repo -n file -s SHA256SUMS.sig < SHA256SUMS"
}

upload() {
	[[ -f $out/SHA256SUMS.sig ]] || die "$out/SHA256SUMS.sig not found: release.sh sign KEY first"
	local cmds=() f prerelease=
	[[ $version != *-* ]] || prerelease=' --prerelease'
	cmds+=("git push origin main $tag $mcp_tag")
	# Every artifact, side by side, as SHA256SUMS names them: a user checks
	# what was fetched with sha256sum -c --ignore-missing SHA256SUMS.
	cmds+=("notes=\$(mktemp) && scripts/dist/release.sh notes >\"\$notes\" && gh release create $tag --repo $repo --verify-tag --title 'session-starter $version' --notes-file \"\$notes\"$prerelease $out/session-starter-$version-* $out/session-starter-$version.tar.gz $out/npm/*.tgz $out/wheels/*.whl $out/deb/*.deb $out/homebrew/session-starter.rb $out/man/session-starter.1 $out/completions/* $out/SHA256SUMS $out/SHA256SUMS.sig")
	while read -r f; do
		cmds+=("npm publish --access public --tag $(npm_tag) $PWD/$f")
	done < <(npm_tarballs)
	cmds+=("python3 -m twine upload $out/wheels/*.whl")
	cmds+=("cp $out/homebrew/session-starter.rb \"\$TAP_DIR/Formula/session-starter.rb\" && git -C \"\$TAP_DIR\" commit -m 'session-starter $version' Formula/session-starter.rb && git -C \"\$TAP_DIR\" push")
	local c
	for c in "${cmds[@]}"; do
		if [[ ${RELEASE_UPLOAD:-} == yes ]]; then
			echo "release: $c"
			bash -c "$c" || die "failed: $c (the steps before it are done; fix and run the rest by hand)"
		else
			echo "$c"
		fi
	done
	[[ ${RELEASE_UPLOAD:-} == yes ]] || echo "# (printed only: RELEASE_UPLOAD=yes runs them)" >&2
}

case ${1:-} in
preflight) preflight ;;
sign) sign "${2:-}" ;;
notes) notes ;;
upload) upload ;;
*) die "usage: release.sh preflight | sign KEY | notes | upload" ;;
esac
