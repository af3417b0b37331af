// Package containers tests session-starter on a real container engine:
// podman 4 with runc, and the docker client against podman's Docker API.
//
// setup.sh installs the engine where it is missing (Debian's podman and
// runc), builds the static bin/session-starter, and imports an image of
// busybox-static's files and the binary, without any registry. Where no
// docker client is on PATH it unpacks the one of Debian's docker.io (no
// daemon).
// containers.conf, given through CONTAINERS_CONF, sets runc and no
// default ulimits. [Setup] runs setup.sh once per test binary; the tests
// need root.
//
// The tests run with `make test-containers`
// (SESSION_STARTER_CONTAINERS=1); without the variable they skip. Under
// CI=true a test whose engine cannot be set up fails. Every container,
// pod and image a test makes carries the label session-starter-test=<the
// test's name> and one of its run; [Engine.Cleanup] removes only those,
// also after a failure. The engine's store outlives a run: names are
// unique to the run.
package containers
