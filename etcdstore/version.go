package etcdstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// VersionSource is what CheckVersion asks: the endpoints of a client and
// the status (with the server version) of each. A *clientv3.Client is
// one.
type VersionSource interface {
	Endpoints() []string
	Status(ctx context.Context, endpoint string) (*clientv3.StatusResponse, error)
}

// CheckVersion refuses an etcd whose version answers watch progress
// requests wrongly: consistent reads (a read with resourceVersion unset
// waits until the replica has reached etcd's current revision, using a
// progress request; Kubernetes' KEP-2340) would then wait for a
// notification that may never come, or come for a revision not yet
// delivered. It asks every endpoint of c for its version (etcd's
// Maintenance Status call) and returns the error of SupportsProgressRequests
// for the first that is too old; an endpoint that does not answer is an
// error too. Call it once a client is made, before serving from it.
func CheckVersion(ctx context.Context, c VersionSource) error {
	eps := c.Endpoints()
	if len(eps) == 0 {
		return errors.New("etcd client has no endpoints")
	}
	for _, ep := range eps {
		resp, err := c.Status(ctx, ep)
		if err != nil {
			return fmt.Errorf("checking the version of etcd at %s: %w", ep, err)
		}
		if err := SupportsProgressRequests(resp.Version); err != nil {
			return fmt.Errorf("etcd at %s: %w", ep, err)
		}
	}
	return nil
}

// SupportsProgressRequests reports whether an etcd of version (such as
// "3.5.17", as its Status call reports it) answers watch progress
// requests correctly, with the versions Kubernetes requires for them:
// 3.4.31 or later of the 3.4 releases, 3.5.13 or later of the 3.5
// releases, and every release from 3.6 on. Earlier releases can send a
// progress notification ahead of events not yet delivered, or none at
// all (etcd-io/etcd#15220, fixed in 3.4.25 and 3.5.8, and #17507, fixed
// in 3.4.31 and 3.5.13). A pre-release counts as earlier than its
// release; a version that does not parse is refused.
func SupportsProgressRequests(version string) error {
	v, err := parseVersion(version)
	if err != nil {
		return err
	}
	need := semver{major: 3, minor: 4, patch: 31} // 3.4 and every release before it
	switch {
	case v.major > 3 || v.major == 3 && v.minor >= 6:
		return nil
	case v.major == 3 && v.minor == 5:
		need = semver{major: 3, minor: 5, patch: 13}
	}
	if v.less(need) {
		return fmt.Errorf("etcd %s is too old: its watch progress requests, on which consistent reads rely, "+
			"can report a revision before the events up to it are delivered, or never answer "+
			"(etcd-io/etcd#15220, #17507); use etcd 3.4.31 or later of 3.4, 3.5.13 or later of 3.5, or 3.6 and later, "+
			"the versions Kubernetes requires", version)
	}
	return nil
}

// semver is a version major.minor.patch, with a pre-release part or not
// (the build part is ignored, as semantic versioning orders them).
type semver struct {
	major, minor, patch uint64
	pre                 bool
}

// less reports whether v precedes w, a release.
func (v semver) less(w semver) bool {
	switch {
	case v.major != w.major:
		return v.major < w.major
	case v.minor != w.minor:
		return v.minor < w.minor
	case v.patch != w.patch:
		return v.patch < w.patch
	}
	return v.pre && !w.pre
}

// parseVersion parses "X.Y.Z", optionally with a "v" in front and a
// "-pre-release" and "+build" after.
func parseVersion(s string) (semver, error) {
	bad := fmt.Errorf("etcd reports version %q, which is not a version of the form X.Y.Z: cannot tell whether its watch progress requests are reliable", s)
	core := strings.TrimPrefix(s, "v")
	core, _, _ = strings.Cut(core, "+")
	core, pre, hasPre := strings.Cut(core, "-")
	if hasPre && pre == "" {
		return semver{}, bad
	}
	parts := strings.Split(core, ".")
	if len(parts) != 3 {
		return semver{}, bad
	}
	var n [3]uint64
	for i, p := range parts {
		if p == "" || p[0] == '+' || p[0] == '-' {
			return semver{}, bad
		}
		u, err := strconv.ParseUint(p, 10, 32)
		if err != nil {
			return semver{}, bad
		}
		n[i] = u
	}
	return semver{major: n[0], minor: n[1], patch: n[2], pre: hasPre}, nil
}
