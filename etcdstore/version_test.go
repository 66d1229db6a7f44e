package etcdstore

import (
	"context"
	"errors"
	"strings"
	"testing"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// The version rule of Kubernetes' consistent reads: 3.4.31+, 3.5.13+,
// 3.6 and later; pre-releases precede their release; what does not parse
// is refused.
func TestSupportsProgressRequests(t *testing.T) {
	for _, tc := range []struct {
		version string
		ok      bool
	}{
		{"3.4.31", true},
		{"3.4.32", true},
		{"3.4.100", true},
		{"3.4.30", false},
		{"3.4.23", false}, // Debian's etcd-server of 2026
		{"3.4.31-rc.0", false},
		{"3.4.31+build.7", true},
		{"v3.4.31", true},
		{"3.5.13", true},
		{"3.5.21", true},
		{"3.5.12", false},
		{"3.5.0", false},
		{"3.5.0-rc.1", false},
		{"3.5.13-alpha.0", false},
		{"3.6.0", true},
		{"3.6.0-alpha.0", true},
		{"3.7.3", true},
		{"3.10.0", true},
		{"4.0.0", true},
		{"3.3.27", false},
		{"3.3.99", false},
		{"2.3.8", false},
		{"0.0.0", false},
		{"", false},
		{"3.5", false},
		{"3.5.13.1", false},
		{"3.5.x", false},
		{"3.5.-13", false},
		{"3.5.+13", false},
		{"3.5.13-", false},
		{"3..13", false},
		{"99999999999.0.0", false},
	} {
		err := SupportsProgressRequests(tc.version)
		if (err == nil) != tc.ok {
			t.Errorf("SupportsProgressRequests(%q) = %v; want ok %v", tc.version, err, tc.ok)
		}
	}
}

// fakeVersions answers Status with a version per endpoint, or an error
// for endpoints it does not know.
type fakeVersions map[string]string

func (f fakeVersions) Endpoints() []string {
	var eps []string
	for _, ep := range []string{"http://a:2379", "http://b:2379", "http://c:2379"} {
		if _, ok := f[ep]; ok {
			eps = append(eps, ep)
		}
	}
	return eps
}

func (f fakeVersions) Status(ctx context.Context, ep string) (*clientv3.StatusResponse, error) {
	v := f[ep]
	if v == "down" {
		return nil, errors.New("context deadline exceeded")
	}
	return &clientv3.StatusResponse{Version: v}, nil
}

// CheckVersion refuses a client with any endpoint too old or silent, and
// says why.
func TestCheckVersion(t *testing.T) {
	for _, tc := range []struct {
		name     string
		versions fakeVersions
		want     string // "" for no error
	}{
		{"current", fakeVersions{"http://a:2379": "3.6.5"}, ""},
		{"several", fakeVersions{"http://a:2379": "3.5.13", "http://b:2379": "3.4.31", "http://c:2379": "3.7.0"}, ""},
		{"too old", fakeVersions{"http://a:2379": "3.4.23"},
			"etcd at http://a:2379: etcd 3.4.23 is too old: its watch progress requests, on which consistent reads rely, " +
				"can report a revision before the events up to it are delivered, or never answer (etcd-io/etcd#15220, #17507); " +
				"use etcd 3.4.31 or later of 3.4, 3.5.13 or later of 3.5, or 3.6 and later, the versions Kubernetes requires"},
		{"one of several too old", fakeVersions{"http://a:2379": "3.6.0", "http://b:2379": "3.5.12"}, "etcd at http://b:2379: etcd 3.5.12 is too old"},
		{"unreachable", fakeVersions{"http://a:2379": "3.6.0", "http://b:2379": "down"},
			"checking the version of etcd at http://b:2379: context deadline exceeded"},
		{"garbage", fakeVersions{"http://a:2379": "banana"}, `etcd reports version "banana", which is not a version of the form X.Y.Z`},
		{"no endpoints", fakeVersions{}, "etcd client has no endpoints"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckVersion(context.Background(), tc.versions)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("CheckVersion: %v; want nil", err)
			case tc.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.want) && !strings.Contains(err.Error(), tc.want)):
				t.Errorf("CheckVersion: %v; want %q", err, tc.want)
			}
		})
	}
}

// The etcd of the tests (the version in go.mod) passes.
func TestCheckVersionRealEtcd(t *testing.T) {
	_, c := newEtcd(t)
	if err := CheckVersion(context.Background(), c); err != nil {
		t.Fatal(err)
	}
}

// Whatever etcd reports, the check does not panic, and a "v" in front or
// build metadata after does not change its answer.
func FuzzSupportsProgressRequests(f *testing.F) {
	for _, s := range []string{"3.4.31", "3.5.12", "3.6.0-alpha.0", "3.5.13+x", "", "1.2", "v3.4.30", "3.5.-1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		ok := SupportsProgressRequests(v) == nil
		if strings.HasPrefix(v, "v") || strings.Contains(v, "+") {
			return
		}
		if got := SupportsProgressRequests("v"+v) == nil; got != ok {
			t.Errorf("%q: %v, with a v in front %v", v, ok, got)
		}
		if got := SupportsProgressRequests(v+"+build.1") == nil; got != ok {
			t.Errorf("%q: %v, with build metadata %v", v, ok, got)
		}
	})
}
