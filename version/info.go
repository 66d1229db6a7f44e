package version

// Info is what a server (package server, Options.Version) says it is, at
// /version and in the info of its OpenAPI documents, as
// k8s.io/apimachinery/pkg/version.Info. Zero fields take the defaults
// written next to them: a Kubernetes release whose API behaviour the
// server follows, so that kubectl sees no version skew.
type Info struct {
	// Major and Minor default to "1" and "37".
	Major, Minor string
	// EmulationMajor and EmulationMinor are the version whose API the
	// server emulates (kube-apiserver's --emulated-version); each
	// defaults to Major and Minor.
	EmulationMajor, EmulationMinor string
	// MinCompatibilityMajor and MinCompatibilityMinor are the oldest
	// version the server stays compatible with; they default to the
	// emulated major and the minor before the emulated one, as
	// kube-apiserver's do (1.36 for 1.37).
	MinCompatibilityMajor, MinCompatibilityMinor string
	// GitVersion defaults to "v<Major>.<Minor>.0+apisem".
	GitVersion string
	// GitCommit defaults to "".
	GitCommit string
	// GitTreeState defaults to "clean".
	GitTreeState string
	// BuildDate defaults to "1970-01-01T00:00:00Z".
	BuildDate string
}
