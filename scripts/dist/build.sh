#!/usr/bin/env bash
# make dist: writes every release artifact of the version in
# cmd/session-starter/version.go to dist/ (DIST_DIR), with SHA-256 sums:
#
#   session-starter-V-GOOS-GOARCH[.exe]   static binaries: linux, darwin,
#                                         freebsd, windows x amd64, arm64
#   session-starter-V.tar.gz              the source (git archive of HEAD),
#                                         which the Homebrew formula builds
#   man/session-starter.1                 the man page and the bash, zsh
#   completions/session-starter.bash      and fish completions, as
#   completions/_session-starter          cmd/session-starter/docs/ holds
#   completions/session-starter.fish      them (generated from the flags,
#                                         checked up to date first); the
#                                         packages below carry them too
#   npm/session-starter-V.tgz             the npm package, and one package
#   npm/session-starter-P-A-V.tgz         per platform (@session-starter/P-A)
#   wheels/session_starter-V-py3-none-T.whl   one wheel per platform, no FreeBSD
#   deb/session-starter_V_A.deb           amd64 and arm64, with the man
#                                         page, the completions and the
#                                         README
#   homebrew/session-starter.rb           the formula, for the tap
#   SHA256SUMS                            sha256sum of every file above, by
#                                         its name alone: the release uploads
#                                         them side by side, where
#                                         sha256sum -c --ignore-missing
#                                         SHA256SUMS checks what was fetched
#
# Reproducible: two runs on one commit write the same bytes. Go builds are
# reproducible given the toolchain: -trimpath drops the paths, and
# -buildvcs=false (whatever GOFLAGS says) keeps the build info the same in a
# clone, a worktree and the source archive, which has no .git (the tag names
# the commit). SOURCE_DATE_EPOCH, the last commit's time unless set, dates
# every entry of the archives; npm pack dates its entries itself.
#
# If HEAD carries a tag vX.Y.Z, it must be v<releaseVersion>: otherwise this
# fails before building anything.
#
# Usage: scripts/dist/build.sh   (make dist; GO, DIST_DIR from the environment)
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
# shellcheck source=scripts/dist/lib.sh
source scripts/dist/lib.sh

GO=${GO:-go}
out=${DIST_DIR:-dist}

# The targets of the binaries; the npm, wheel and deb builders take theirs
# from these.
osarch=(linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 freebsd/amd64 freebsd/arm64 windows/amd64 windows/arm64)
deb_arches=(amd64 arm64)

# The .deb's Maintainer field: a placeholder until the project names its
# release contact (scripts/dist/RELEASE.md, "Once, before the first release").
deb_maintainer='session-starter maintainers <maintainers@session-starter.invalid>'

need "$GO" golang
need git
need node nodejs
need npm
need python3
need dpkg-deb dpkg
need sha256sum coreutils
need gzip

version=$(release_version)
commit=$(release_commit)
while read -r tag; do
	[[ -z $tag ]] && continue
	if [[ ${tag#v} =~ $semver_re && $tag != "v$version" ]]; then
		die "HEAD is tagged $tag but cmd/session-starter/version.go says $version: make them agree"
	fi
done < <(git tag --points-at HEAD)

SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct)}
export SOURCE_DATE_EPOCH
if [[ -n $(git status --porcelain --untracked-files=no) ]]; then
	echo "dist: warning: the tree has changes that are not committed: the binaries have them," \
		"the source archive (HEAD) does not" >&2
fi

stage=$(mktemp -d "${TMPDIR:-/tmp}/session-starter-dist.XXXXXX")
trap 'rm -rf "$stage"' EXIT
rm -rf "$out"
mkdir -p "$out"

echo "dist: session-starter $version, SOURCE_DATE_EPOCH=$SOURCE_DATE_EPOCH, into $out/"

for t in "${osarch[@]}"; do
	goos=${t%/*} goarch=${t#*/} ext=
	[[ $goos == windows ]] && ext=.exe
	bin="$out/session-starter-$version-$goos-$goarch$ext"
	echo "dist: $bin"
	CGO_ENABLED=0 GOOS=$goos GOARCH=$goarch "$GO" build -trimpath -buildvcs=false \
		-ldflags "-s -w -X main.version=$version -X main.commit=$commit" -o "$bin" ./cmd/session-starter
done

# The man page and the completions: committed, generated from the flags'
# help by a test of cmd/session-starter, which refuses them unless they
# are what the flags of this tree generate.
docs=cmd/session-starter/docs
echo "dist: $docs is what the flags generate (go test -run TestShellDocsUpToDate)"
"$GO" test -count=1 -run '^TestShellDocsUpToDate$' ./cmd/session-starter >"$stage/shelldocs.log" 2>&1 || {
	cat "$stage/shelldocs.log" >&2
	die "$docs is not what the flags generate"
}
mkdir -p "$out/man" "$out/completions"
install -m 0644 "$docs/session-starter.1" "$out/man/"
install -m 0644 "$docs/session-starter.bash" "$docs/_session-starter" "$docs/session-starter.fish" "$out/completions/"
echo "dist: $out/man/session-starter.1, $out/completions/"

src="$out/session-starter-$version.tar.gz"
echo "dist: $src"
# git archive dates every entry with the commit's time; gzip -n leaves the
# name and time out of its header.
git archive --format=tar --prefix="session-starter-$version/" HEAD | gzip -n -9 >"$src"

echo "dist: $out/npm/"
mkdir -p "$out/npm"
abs_out=$(cd "$out" && pwd)
mapfile -t npm_dirs < <(node scripts/dist/npm.js "$version" "$abs_out" "$stage/npm")
for dir in "${npm_dirs[@]}"; do
	# The directory is given by its absolute path: npm reads a relative
	# a/b as a GitHub repository.
	npm_config_update_notifier=false npm pack --offline --ignore-scripts --silent \
		--pack-destination "$abs_out/npm" "$dir" >/dev/null
done
ls "$out/npm"

echo "dist: $out/wheels/"
python3 scripts/dist/wheel.py "$version" "$out" "$out/wheels" | sed 's|.*/|  |'

echo "dist: $out/deb/"
mkdir -p "$out/deb"
debv=$(deb_version "$version")
for arch in "${deb_arches[@]}"; do
	root="$stage/deb-$arch"
	mkdir -p "$root/DEBIAN" "$root/usr/bin" "$root/usr/share/doc/session-starter" "$root/usr/share/man/man1" \
		"$root/usr/share/bash-completion/completions" "$root/usr/share/zsh/vendor-completions" \
		"$root/usr/share/fish/vendor_completions.d"
	install -m 0755 "$out/session-starter-$version-linux-$arch" "$root/usr/bin/session-starter"
	install -m 0644 LICENSE "$root/usr/share/doc/session-starter/copyright"
	# Debian compresses man pages, and documents over 4 kB, with gzip -9;
	# -n leaves the name and time out of the header.
	gzip -n -9 <README.md >"$root/usr/share/doc/session-starter/README.md.gz"
	gzip -n -9 <"$docs/session-starter.1" >"$root/usr/share/man/man1/session-starter.1.gz"
	chmod 0644 "$root/usr/share/doc/session-starter/README.md.gz" "$root/usr/share/man/man1/session-starter.1.gz"
	install -m 0644 "$docs/session-starter.bash" "$root/usr/share/bash-completion/completions/session-starter"
	install -m 0644 "$docs/_session-starter" "$root/usr/share/zsh/vendor-completions/_session-starter"
	install -m 0644 "$docs/session-starter.fish" "$root/usr/share/fish/vendor_completions.d/session-starter.fish"
	size_kib=$(du -s -k --apparent-size "$root/usr" | cut -f1)
	cat >"$root/DEBIAN/control" <<-EOF
		Package: session-starter
		Version: $debv
		Architecture: $arch
		Maintainer: $deb_maintainer
		Installed-Size: $size_kib
		Section: utils
		Priority: optional
		Homepage: https://github.com/session-starter/session-starter
		Description: run a program so that every process it starts ends with it
		 session-starter is a small supervisor that a launcher starts in place of
		 a long-running program. When the session ends, every process the program
		 started ends too, and session-starter exits with the program's status.
		 The binary is static.
	EOF
	chmod 0644 "$root/DEBIAN/control"
	find "$root" -type d -exec chmod 0755 {} +
	find "$root" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
	# dpkg-deb dates the ar members with SOURCE_DATE_EPOCH; --root-owner-group
	# makes every file root's, whoever builds.
	dpkg-deb --root-owner-group -Zxz --build "$root" "$out/deb/session-starter_${debv}_$arch.deb" >/dev/null
done
ls "$out/deb"

echo "dist: $out/homebrew/session-starter.rb"
mkdir -p "$out/homebrew"
src_sum=$(sha256sum "$src" | cut -d' ' -f1)
sed -e "s/@VERSION@/$version/g" -e "s/@COMMIT@/$commit/g" -e "s/@SHA256@/$src_sum/g" \
	scripts/dist/homebrew/session-starter.rb.in >"$out/homebrew/session-starter.rb"

# Flat, as the release assets are: every name must be unique.
mkdir "$stage/flat"
while IFS= read -r -d '' f; do
	[[ ! -e $stage/flat/${f##*/} ]] || die "two artifacts are named ${f##*/}"
	ln -s "$(cd "$(dirname "$f")" && pwd)/${f##*/}" "$stage/flat/${f##*/}"
done < <(find "$out" -type f -print0)
(
	cd "$stage/flat"
	find . -mindepth 1 -printf '%P\0' | LC_ALL=C sort -z | xargs -0 sha256sum
) >"$out/SHA256SUMS"
echo "dist: $out/SHA256SUMS ($(wc -l <"$out/SHA256SUMS") files)"
